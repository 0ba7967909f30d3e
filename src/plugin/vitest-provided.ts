/**
 * What the `fluxlab()` vitest plugin (src/vitest.ts, in vitest's main process) hands its setup file in each test
 * worker (src/plugin/vitest-setup.ts), through vitest's `project.provide` and `inject`.
 */
import type { FluxOptions } from '../context/options.js'

/** The `provide`/`inject` key. */
export const PROVIDED_KEY = 'fluxlab'

/** Shape of what the plugin passes to test workers with `project.provide`. */
export interface FluxProvided {
  options: FluxOptions
  updateState: string
  multiProject: boolean
  /** The config file vitest loaded (absolute), if any: a command that runs a test again may have to name it. */
  configFile?: string
  /** The mode vitest runs in (`--mode int`), when not its own `test`. */
  mode?: string
}

/**
 * What the plugin provided, read in a worker with vitest's `inject` (`undefined` where no `fluxlab()` plugin ran).
 * @example
 * const provided = readProvided(inject)
 */
export function readProvided(inject: (key: string) => unknown): FluxProvided | undefined {
  return inject(PROVIDED_KEY) as FluxProvided | undefined
}

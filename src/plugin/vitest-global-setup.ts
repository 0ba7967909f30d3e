/**
 * Issue 38 item 4: the global setup the `fluxlab()` plugin puts before a project's own `globalSetup` files, in vitest's main
 * process: it opens the gate (`context/gate-keys.ts`), so a global setup that needs a key (`if (!process.env.OPENAI_API_KEY)
 * throw …`) finds it on replay as it did while recording. `vitest-global-setup-end.ts` comes after the project's own.
 * @example
 * // what the plugin does with `test: { globalSetup: ['./test/global-setup.ts'] }`
 * test.globalSetup = [GATE_OPEN, './test/global-setup.ts', GATE_END]
 */
import { openGate, pauseGate } from '../context/gate-keys.js'
import { toUpdateState } from '../golden/update-mode.js'
import { PROVIDED_KEY, type FluxProvided } from './vitest-provided.js'

/** The part of vitest's `TestProject` (3.2 and later) read here. */
interface ProjectLike {
  config?: { root?: string }
  getProvidedContext?: () => Record<string, unknown>
}

/**
 * Open the gate for the project's fixture root, with the options the plugin provided it (`configureVitest` runs first).
 * @example
 * setup(project)
 */
export function setup(project?: ProjectLike): void {
  const provided = project?.getProvidedContext?.()[PROVIDED_KEY] as FluxProvided | undefined
  openGate({ rootDir: project?.config?.root ?? process.cwd(), options: provided?.options, updateState: toUpdateState(provided?.updateState) })
}

/**
 * After the project's own global teardown: the placeholders go again.
 * @example
 * teardown()
 */
export function teardown(): void {
  pauseGate()
}

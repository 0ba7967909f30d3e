import { fileURLToPath } from 'node:url'
import type { Plugin } from 'vite'
import type { FluxOptions } from './scenario/options.js'

/** Shape of what the plugin passes to test workers with `project.provide`. */
export interface FluxProvided {
  options: FluxOptions
  updateState: string
  multiProject: boolean
}

const SETUP = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? './plugin/vitest-setup.ts' : './vitest-setup.js', import.meta.url),
)

/**
 * The vitest plugin: registers fluxlab's setup file (matchers, per-test routing,
 * the end-of-test divergence check) next to yours, and passes the snapshot
 * update state (`-u`) to the workers.
 * @example
 * // vitest.config.ts
 * import { defineConfig } from 'vitest/config'
 * import { fluxlab } from 'fluxlab/vitest'
 * export default defineConfig({ plugins: [fluxlab()] })
 */
export function fluxlab(options: FluxOptions = {}): Plugin {
  return {
    name: 'fluxlab',
    config(config) {
      const test = ((config as { test?: { setupFiles?: string | string[] } }).test ??= {})
      const existing = test.setupFiles === undefined ? [] : Array.isArray(test.setupFiles) ? test.setupFiles : [test.setupFiles]
      if (!existing.includes(SETUP)) test.setupFiles = [...existing, SETUP]
      return undefined
    },
    // @note vitest ≥ 3.2 calls this on project plugins; `provide` reaches `inject()` in workers.
    configureVitest({ vitest, project }: { vitest: VitestLike; project: ProjectLike }) {
      const provided: FluxProvided = {
        options,
        updateState: String(vitest.config?.snapshotOptions?.updateSnapshot ?? 'new'),
        multiProject: (vitest.projects?.length ?? 1) > 1,
      }
      project.provide('fluxlab', provided)
    },
  } as Plugin
}

interface VitestLike {
  config?: { snapshotOptions?: { updateSnapshot?: string } }
  projects?: unknown[]
}
interface ProjectLike {
  provide: (key: string, value: unknown) => void
}

export type { FluxOptions } from './scenario/options.js'
export default fluxlab

import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import type { Plugin } from 'vite'
import { PROVIDED_KEY, type FluxProvided } from './plugin/vitest-provided.js'
import { checkVitestVersion } from './plugin/vitest-version.js'
import { githubOn } from './reporter/github.js'
import { FluxlabVitestReporter } from './reporter/vitest-reporter.js'
import type { FluxOptions } from './context/options.js'

/** `fluxlab()` options: the scenario options, plus the run summary switch. */
export interface FluxPluginOptions extends FluxOptions {
  /** Print fluxlab's run summary after vitest's own (default `true`). */
  summary?: boolean
  /** Under `GITHUB_ACTIONS=true`, annotations at the tests' lines and the step summary (default `true`; also `FLUX_GITHUB=0`). */
  github?: boolean
}

const built = (name: string) => fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? `./plugin/${name}.ts` : `./${name}.js`, import.meta.url))
const SETUP = built('vitest-setup')
// Issue 38 item 4: around a project's own global setup, in vitest's main process (src/context/gate-keys.ts).
const GATE_OPEN = built('vitest-global-setup')
const GATE_END = built('vitest-global-setup-end')

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
export function fluxlab(pluginOptions: FluxPluginOptions = {}): Plugin {
  const { summary = true, github, ...options } = pluginOptions
  return {
    name: 'fluxlab',
    config(config) {
      checkRunner()
      const test = ((config as { test?: { setupFiles?: string | string[]; globalSetup?: string | string[] } }).test ??= {})
      const existing = test.setupFiles === undefined ? [] : Array.isArray(test.setupFiles) ? test.setupFiles : [test.setupFiles]
      if (!existing.includes(SETUP)) test.setupFiles = [...existing, SETUP]
      // Issue 41: the annotations point at each test's line, which vitest records only when asked.
      if (summary && githubOn(github)) (test as { includeTaskLocation?: boolean }).includeTaskLocation ??= true
      // Issue 38 item 4: a project's global setup runs in this process, where the workers' placeholders never stand: the
      // gate fills its own, from the record of what the global setup read while recording, and lets go before the workers start.
      const global = test.globalSetup === undefined ? [] : Array.isArray(test.globalSetup) ? test.globalSetup : [test.globalSetup]
      if (global.length && !global.includes(GATE_OPEN)) test.globalSetup = [GATE_OPEN, ...global, GATE_END]
      return undefined
    },
    // @note vitest ≥ 3.2 calls this on project plugins; `provide` reaches `inject()` in workers.
    configureVitest({ vitest, project }: { vitest: VitestLike; project: ProjectLike }) {
      const provided: FluxProvided = {
        options,
        updateState: String(vitest.config?.snapshotOptions?.updateSnapshot ?? 'new'),
        multiProject: multiProject(vitest),
        ...runOf(vitest),
      }
      project.provide(PROVIDED_KEY, provided)
      // @note added to the reporters vitest already resolved (the config's, `--reporter`'s, or its default), not in the
      // `config` hook: `--reporter` on the command line replaces the config's list, which would drop ours.
      const reporters = vitest.config?.reporters
      if (summary && reporters && !reporters.some((r) => (r as { fluxlabSummary?: boolean } | undefined)?.fluxlabSummary))
        reporters.push(new FluxlabVitestReporter({ dirs: options.dir ? [options.dir] : [], ...(github === undefined ? {} : { github }) }))
    },
  } as Plugin
}

let warned = false
/**
 * The vitest fluxlab's setup file will import (resolved from here, as the setup's `import 'vitest'` is): older than
 * the tested range fails the run at startup, newer warns once.
 * @note in the `config` hook, which every vitest calls; `configureVitest` does not exist before vitest 3.1.
 */
function checkRunner(): void {
  let version: string | undefined
  try {
    version = (createRequire(import.meta.url)('vitest/package.json') as { version?: string }).version
  } catch {
    return // a vitest without a readable package.json: nothing to compare, its own errors will say more
  }
  if (!version) return
  const { error, warning } = checkVitestVersion(version)
  if (error) throw error
  if (warning && !warned) {
    warned = true
    console.warn(warning)
  }
}

interface VitestLike {
  config?: { snapshotOptions?: { updateSnapshot?: string }; reporters?: unknown[]; project?: string[]; projects?: unknown[] }
  projects?: unknown[]
  /** The root project's vite config: the config file the run started from, and the mode (`--mode`). */
  vite?: { config?: { configFile?: string; mode?: string } }
}

/**
 * Whether the config defines more than one project, whatever `--project` picked: a test's fixture folder (under its
 * project's name or not) must not depend on the filter, or a test recorded with `--project int` is not found by the
 * whole run. With a filter, vitest lists only the projects it picked, so the config's own list is read: more than one
 * entry, or a glob (`packages/*`), counts as several.
 */
function multiProject(vitest: VitestLike): boolean {
  if ((vitest.projects?.length ?? 1) > 1) return true
  const defined = vitest.config?.projects ?? []
  const picked = vitest.config?.project ?? []
  return picked.length > 0 && (defined.length > 1 || defined.some((p) => typeof p === 'string'))
}

/**
 * What a command that runs one test again needs to repeat of this run: the config file it started from (a project's
 * own config is not one the command line can name) and its mode, when not vitest's `test` (a config may pick its
 * tests by mode).
 */
function runOf(vitest: VitestLike): Pick<FluxProvided, 'configFile' | 'mode'> {
  const { configFile, mode } = vitest.vite?.config ?? {}
  return { ...(configFile ? { configFile } : {}), ...(mode && mode !== 'test' ? { mode } : {}) }
}
interface ProjectLike {
  provide: (key: string, value: unknown) => void
}

export type { FluxOptions } from './context/options.js'
export type { FluxProvided } from './plugin/vitest-provided.js'
export { FluxlabVitestReporter, type VitestReporterOptions } from './reporter/vitest-reporter.js'
export default fluxlab

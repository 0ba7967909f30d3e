/**
 * The engine side of `fluxlab/playwright` (src/playwright.ts), loaded by the `flux` fixture of a test's first run
 * in a worker: the config file and the runner process import the entry without it.
 */
import { dirname } from 'node:path'
import type { FluxOptions } from '../context/options.js'
import { state } from '../context/state.js'
import { finishTest } from '../context/test-context.js'
import type { TestContext } from '../context/types.js'
import type { UpdateState } from '../golden/update-mode.js'
import { encodeRunAddress, PLAYWRIGHT_DIR_ENV } from '../sources/server-requests.js'
import { importedInterceptors } from '../sources/interceptors-eager.js'
import { provideInterceptors } from '../sources/interceptors.js'
import { matchers } from '../matchers/index.js'
import { provideMatchers } from '../matchers/lazy.js'
import { collectFacts, FACTS_ATTACHMENT } from '../reporter/facts.js'
import type { Outcome } from '../scenario/outcome.js'
import { admitTo } from '../scenario/router.js'
import { openTestScenario } from '../scenario/test-scenario.js'
import { childEnv } from '../scenario/tree.js'

provideMatchers(matchers)
// The interceptors this build imports, for each test's acquire (src/sources/interceptors.ts): a worker always intercepts.
provideInterceptors(importedInterceptors)

/** What the fixture reads of Playwright's `TestInfo`. */
export interface InfoLike {
  titlePath: string[]
  file: string
  status?: string
  expectedStatus: string
  project: { name: string }
  config: { updateSnapshots: string; projects: unknown[]; configFile?: string; rootDir: string }
  attach(name: string, o: { body: string; contentType: string }): Promise<void>
}

/** A test's scenario as the fixture hands it out, and its end. */
export interface OpenedFlux {
  scenario: string
  mode: 'record' | 'replay'
  id: string
  outcome(): Promise<Outcome>
  /** The test ended: close the run, write or compare, fail the test on what it did not assert, report its facts. */
  finish(): Promise<void>
}

/** Playwright's `updateSnapshots` as an update state: CI never records (SPEC §2), `-u` rewrites trace snapshots. */
function updateStateOf(info: InfoLike): UpdateState {
  const update = info.config.updateSnapshots
  if (update === 'all' || update === 'changed') return 'all'
  return update === 'none' || process.env.CI ? 'none' : 'new'
}

/** The test as whole-suite mode names it: its file under the config's directory, its titles joined with ` > `. */
function contextOf(info: InfoLike): TestContext {
  return {
    runner: 'playwright',
    testName: info.titlePath.slice(1).join(' > '),
    testFile: info.file,
    ...(info.config.projects.length > 1 && info.project.name ? { project: info.project.name } : {}),
    rootDir: info.config.configFile ? dirname(info.config.configFile) : info.config.rootDir,
    ...(info.config.configFile ? { config: info.config.configFile } : {}),
    updateState: updateStateOf(info),
    runs: [],
    opened: new Set(),
  }
}

/**
 * Open the running test's scenario and register its run on this worker's tree socket: the address the browser's
 * requests carry.
 * @example
 * const flux = openFlux(testInfo, options)
 */
export function openFlux(info: InfoLike, own: FluxOptions): OpenedFlux {
  const ctx = contextOf(info)
  // Issue 39: `withFluxlab(entry, { dir })` gives the tests the root it gives serve; `use: { fluxlab: { dir } }` is the project's own
  const dir = process.env[PLAYWRIGHT_DIR_ENV]
  const options = { ...state.options, ...(dir ? { dir } : {}), ...own }
  const scenario = openTestScenario(ctx, options)
  const { run } = scenario
  run.register()
  const tree = childEnv(run, `the app server, for "${ctx.testName}"`, admitTo)
  let closed: Promise<void> | undefined
  const close = () => (closed ??= run.close())
  return {
    scenario: run.config.name,
    mode: run.config.mode,
    id: tree ? encodeRunAddress({ path: tree.env.FLUX_TREE, token: tree.env.FLUX_TREE_TOKEN }) : '',
    async outcome() {
      await close()
      return ctx.perTest!.outcome() as Outcome
    },
    async finish() {
      try {
        await close()
        await scenario.finish(info.status === info.expectedStatus)
        await finishTest(ctx)
      } finally {
        // what the summary reporter counts (src/reporter/playwright-reporter.ts)
        await info.attach(FACTS_ATTACHMENT, {
          body: JSON.stringify(collectFacts(ctx, { dir: options.dir, pricing: options.pricing })),
          contentType: 'application/json',
        })
      }
    },
  }
}

/**
 * `fluxlab/playwright` (issue 27): Playwright Test as the third runner. Each test is its own scenario, named as in
 * whole-suite mode, and the calls the app server makes while handling the test's browser requests go to its fixture:
 * the server runs under `fluxlab serve -- <cmd>` (the Playwright `webServer`), and every request of the test's
 * browser context carries the address of the test's run, as a header and a cookie.
 *
 * ```ts
 * import { test, expect } from 'fluxlab/playwright'
 * test('answers', async ({ page, flux }) => {
 *   await page.goto('/')
 *   …
 *   expect(await flux.outcome()).toReplayFaithfully()
 * })
 * ```
 */
import { dirname } from 'node:path'
import { test as base, expect as baseExpect, type Config, type ExpectMatcherState, type MatcherReturnType, type TestInfo } from '@playwright/test'
import type { FluxOptions } from './context/options.js'
import { state } from './context/state.js'
import { finishTest } from './context/test-context.js'
import type { TestContext } from './context/types.js'
import type { UpdateState } from './golden/update-mode.js'
import { encodeRunAddress, RUN_COOKIE, RUN_HEADER } from './interceptor/server-requests.js'
import { matchers } from './matchers/index.js'
import { collectFacts, FACTS_ATTACHMENT } from './reporter/facts.js'
import type { Outcome } from './scenario/outcome.js'
import { admitTo } from './scenario/router.js'
import { openTestScenario } from './scenario/test-scenario.js'
import { childEnv } from './scenario/tree.js'

/** What a test gets as `flux`. */
export interface Flux {
  /** The test's scenario (its fixture directory's name). */
  readonly scenario: string
  /** `record` or `replay`. */
  readonly mode: 'record' | 'replay'
  /** The value every request of this test's browser context carries (`x-fluxlab-run` and the `fluxlab-run` cookie). */
  readonly id: string
  /**
   * What the app server did for this test so far, as an `Outcome` for the matchers. The run is closed first (a
   * recording still reading a body ends), so call it when the page shows the last answer.
   */
  outcome(): Promise<Outcome>
}

export interface FluxFixtures {
  flux: Flux
  /** fluxlab's options for this project or file (`use: { fluxlab: { … } }`), over `configure()`'s. */
  fluxlab: FluxOptions
}

/** Playwright's `updateSnapshots` as an update state: CI never records (SPEC §2), `-u` rewrites trace snapshots. */
function updateStateOf(info: TestInfo): UpdateState {
  const update = info.config.updateSnapshots
  if (update === 'all' || update === 'changed') return 'all'
  return update === 'none' || process.env.CI ? 'none' : 'new'
}

/** The test as whole-suite mode names it: its file under the config's directory, its titles joined with ` > `. */
function contextOf(info: TestInfo): TestContext {
  return {
    runner: 'playwright',
    testName: info.titlePath.slice(1).join(' > '),
    testFile: info.file,
    ...(info.config.projects.length > 1 && info.project.name ? { project: info.project.name } : {}),
    rootDir: info.config.configFile ? dirname(info.config.configFile) : info.config.rootDir,
    updateState: updateStateOf(info),
    runs: [],
    opened: new Set(),
  }
}

export const test = base.extend<FluxFixtures>({
  fluxlab: [{}, { option: true }],
  flux: [
    async ({ fluxlab }, use, info) => {
    const ctx = contextOf(info)
    const options = { ...state.options, ...fluxlab }
    const scenario = openTestScenario(ctx, options)
    const { run } = scenario
    run.register()
    const tree = childEnv(run, `the app server, for "${ctx.testName}"`, admitTo)
    const id = tree ? encodeRunAddress({ path: tree.env.FLUX_TREE, token: tree.env.FLUX_TREE_TOKEN }) : ''
    let closed: Promise<void> | undefined
    const close = () => (closed ??= run.close())
    await use({
      scenario: run.config.name,
      mode: run.config.mode,
      id,
      async outcome() {
        await close()
        return ctx.perTest!.outcome() as Outcome
      },
    })
    try {
      await close()
      await scenario.finish(info.status === info.expectedStatus)
      await finishTest(ctx)
    } finally {
      // what the summary reporter counts (src/reporter/playwright-reporter.ts)
      await info.attach(FACTS_ATTACHMENT, { body: JSON.stringify(collectFacts(ctx, { dir: options.dir, pricing: options.pricing })), contentType: 'application/json' })
    }
    },
    { auto: true },
  ],
  extraHTTPHeaders: async ({ extraHTTPHeaders, flux }, use) => {
    await use({ ...extraHTTPHeaders, [RUN_HEADER]: flux.id })
  },
  context: async ({ context, flux, baseURL }, use) => {
    // A cookie too: a request the page makes where extra headers do not reach (a service worker, a new tab) carries it.
    if (baseURL) await context.addCookies([{ name: RUN_COOKIE, value: flux.id, url: baseURL }])
    await use(context)
  },
})

/**
 * One `webServer` entry of a Playwright config. @note The constraint of `withFluxlab`'s parameter: against a bare
 * `{ command: string }`, `stdout: 'pipe'` in the user's entry was inferred as `string` and the config no longer
 * type-checked (TS2769 in the playwright-express compat cell).
 */
type WebServer = Exclude<NonNullable<Config['webServer']>, readonly unknown[]>

/**
 * The app server entry of `playwright.config` (`webServer`), run under `fluxlab serve`: its command is wrapped, and it
 * is stopped with SIGTERM (Playwright's default is a kill), so the server's own scenario is settled when it ends.
 * @example
 * webServer: withFluxlab({ command: 'npm run start', url: 'http://127.0.0.1:3000' })
 */
export function withFluxlab<T extends WebServer>(server: T, o: { name?: string } = {}): T {
  return { gracefulShutdown: { signal: 'SIGTERM', timeout: 5000 }, ...server, command: `npx fluxlab serve${o.name ? ` --name ${o.name}` : ''} -- ${server.command}` }
}

/** Each matcher as Playwright's `expect.extend` types one: its own arguments after the received value. */
type PlaywrightMatchers = {
  [K in keyof typeof matchers]: (this: ExpectMatcherState, received: unknown, ...args: Parameters<(typeof matchers)[K]> extends [unknown, ...infer A] ? A : never) => MatcherReturnType
}

/** Playwright's `expect` with fluxlab's matchers. */
export const expect = baseExpect.extend(matchers as unknown as PlaywrightMatchers)

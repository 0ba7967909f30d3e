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
import { fileURLToPath } from 'node:url'
import { test as base, expect as baseExpect, type Config, type ExpectMatcherState, type MatcherReturnType } from '@playwright/test'
import type { FluxOptions } from './context/options.js'
import { READY_PATTERN } from './cli/ready.js'
import { PLAYWRIGHT_DIR_ENV, RUN_COOKIE, RUN_HEADER } from './sources/server-requests.js'
import { lazyMatchers } from './matchers/lazy.js'
import type { matchers } from './matchers/index.js'
import type { InfoLike } from './plugin/playwright-engine.js'
import type { Outcome } from './scenario/outcome.js'

// Issue 39: a spec that swaps its import of `test` and `expect` for ours keeps the one line: the Playwright types a spec
// names come from here too. @note named, not `export type *`: tsup's declaration bundle turns that into `export *`,
// which claims values (`devices`) this module does not export at run time; and a run-time `export *` breaks the
// CommonJS build (its getters refuse our own `test` and `expect`).
export type {
  APIRequestContext,
  APIResponse,
  Browser,
  BrowserContext,
  ConsoleMessage,
  Dialog,
  Download,
  ElementHandle,
  Frame,
  FrameLocator,
  JSHandle,
  Locator,
  Page,
  PlaywrightTestArgs,
  PlaywrightTestOptions,
  PlaywrightWorkerArgs,
  PlaywrightWorkerOptions,
  Request,
  Response,
  Route,
  TestInfo,
  WebSocket,
  Worker,
} from '@playwright/test'

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

/** The engine (the scenario, the tape, the tree's socket): loaded once per worker. */
let engine: Promise<typeof import('./plugin/playwright-engine.js')> | undefined
const loadEngine = () => (engine ??= import('./plugin/playwright-engine.js'))
// @note in a Playwright worker (it sets TEST_WORKER_INDEX) the load starts a turn after this module's, so it runs
// while the browser launches; a config file, which imports this module too, never loads it.
if (process.env.TEST_WORKER_INDEX !== undefined) setTimeout(() => void loadEngine().catch(() => {}), 0).unref()

export const test = base.extend<FluxFixtures>({
  fluxlab: [{}, { option: true }],
  flux: [
    async ({ fluxlab }, use, info) => {
      const { openFlux } = await loadEngine()
      const opened = openFlux(info as unknown as InfoLike, fluxlab)
      const { finish, ...flux } = opened
      await use(flux)
      await finish()
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
 * The app server entry of `playwright.config` (`webServer`), run under `fluxlab serve`: its command is wrapped (this
 * fluxlab's CLI, started by node), and it is stopped with SIGTERM (Playwright's default is a kill), so the server's
 * own scenario is settled when it ends. serve checks the entry's `url` (or `port`) itself, when the server listens, and prints a
 * line when it answers; the entry's `wait.stdout` is that line, so the tests start then, not at Playwright's next check
 * (its own are 0, 100, 250, 500 ms after the start, then every second). An entry that waits for its own output
 * (`wait.stdout` or `wait.stderr`) keeps its `wait`, and serve checks nothing.
 *
 * Issue 39: the tests and the server read one fixture root, `tests/scenarios` under the config's directory (or `dir`,
 * relative to it), whatever the entry's `cwd`: serve runs in the config's directory, and the server in the entry's `cwd`.
 * @example
 * webServer: withFluxlab({ command: 'npm run start', url: 'http://127.0.0.1:3000', cwd: '..' }, { dir: 'tests/scenarios' })
 */
export function withFluxlab<T extends WebServer>(server: T, o: { name?: string; dir?: string } = {}): T & Pick<WebServer, 'gracefulShutdown' | 'wait'> {
  // @note this fluxlab's own CLI, started by node: `npx` would look it up again at every run (a few hundred ms). Its
  // CommonJS build (issue 39, bench section 6): Node loads it without the ES module loader, about 10 ms less of serve's
  // CPU and the server answering sooner on a busy machine.
  const cli = [process.execPath, fileURLToPath(new URL('./cli.cjs', import.meta.url))].map(shellArg).join(' ')
  const own = server.wait?.stdout ?? server.wait?.stderr
  const ready = own ? undefined : (server.url ?? (server.port !== undefined ? String(server.port) : undefined))
  const { cwd, ...entry } = server
  const args = [
    ...(o.name ? ['--name', o.name] : []),
    ...(cwd ? ['--cwd', cwd] : []),
    ...(ready ? ['--ready', ready] : []),
    ...(ready && server.ignoreHTTPSErrors && /^https:/i.test(ready) ? ['--ignore-https-errors'] : []),
  ]
  // @note the workers read the root from here: they inherit this process's environment (the config is loaded first).
  if (o.dir) process.env[PLAYWRIGHT_DIR_ENV] = o.dir
  return {
    gracefulShutdown: { signal: 'SIGTERM', timeout: 5000 },
    ...(entry as T),
    // Playwright starts the command in the config's directory when the entry has no `cwd`: serve's root is the tests'.
    env: { ...server.env, [PLAYWRIGHT_DIR_ENV]: o.dir ?? '' },
    ...(ready ? { wait: { ...server.wait, stdout: new RegExp(READY_PATTERN) } } : {}),
    command: `${cli} serve ${args.map(shellArg).join(' ')}${args.length ? ' ' : ''}-- ${server.command}`,
  }
}

/** One word of a shell command line (Playwright runs the entry's `command` in a shell), quoted when it needs it. */
const shellArg = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : process.platform === 'win32' ? `"${word}"` : `'${word.replaceAll("'", "'\\''")}'`)

/** Each matcher as Playwright's `expect.extend` types one: its own arguments after the received value. */
type PlaywrightMatchers = {
  [K in keyof typeof matchers]: (
    this: ExpectMatcherState,
    received: unknown,
    ...args: Parameters<(typeof matchers)[K]> extends [unknown, ...infer A] ? A : never
  ) => MatcherReturnType
}

/**
 * Playwright's `expect` with fluxlab's matchers. Their code comes with the engine (every test's `flux` fixture loads
 * it before the test body runs).
 */
export const expect = baseExpect.extend(
  lazyMatchers(() => {
    throw new Error('no fluxlab test has started in this worker: use `test` from fluxlab/playwright')
  }) as unknown as PlaywrightMatchers,
)

import { AsyncLocalStorage } from 'node:async_hooks'
import { registerCopy, STATE_KEY } from './copies.js'
import type { ModelCallCodec } from '../providers/types.js'
import type { ProviderFamily } from '../providers/registry.js'
import type { FluxOptions } from './options.js'
import type { TestContext } from './types.js'

/** A `test.concurrent` test running where fluxlab cannot tell concurrent tests apart. */
export interface ConcurrentTest {
  /** The runner's name, as a message shows it. */
  runner: string
  name: string
  /** Why that runner cannot isolate it, one clause: "jest has no per-test async context". */
  why: string
  /** What to do instead. */
  fix: string
}

/** Which requests a route takes, and which of them before the app's own mocks see them (a run that only refuses has one). */
export interface Gate {
  /** Which requests the route takes; every other one passes untouched, as it would without fluxlab. */
  claims(method: string, url: URL): boolean
  /** Which of them it takes before the app's own mocks see them (the requests to a provider). */
  preempts(method: string, url: URL): boolean
}

/** What the router hands an intercepted request to: the run it was made inside (a `Run`, src/scenario/run.ts). */
export interface RequestRoute {
  /**
   * Answer one request: from the tape, live (recorded), or off-tape; `undefined` lets it pass untouched. Never throws.
   * `known`: what the router already found out about it (its model-call codec, none for any other request); without
   * it the route finds out itself. `origin`: the child process that sent it (its command line, redacted), if one did.
   * `pastMocks`: a model call the app's own msw or nock listeners would have seen without fluxlab.
   */
  handle(request: Request, known?: { codec?: ModelCallCodec<ProviderFamily>; origin?: string; url?: URL; pastMocks?: true }): Promise<Response | undefined>
  /**
   * What the router reads to admit a request without asking the route (frozen): extra provider hosts (the `hosts`
   * option), and, for a run that only refuses, the gate of what it takes. Without one the route takes every request,
   * and a model call before the app's mocks. `ownServers`: whole-suite mode, where a request to a server of the test's
   * own process tree passes untouched (issue 38, `scenario/router.ts`).
   */
  readonly config?: {
    readonly hosts?: Record<string, ProviderFamily>
    readonly refusal?: Gate
    readonly ownServers?: boolean
    /** The tape a replay serves: the router leaves a loopback host it holds to the run. */
    readonly fixture?: { readonly tools: ReadonlyArray<{ readonly url?: string }> }
  }
  /** The run is over: a request a child process of it sends now belongs to no tape (`scenario/tree.ts`). */
  readonly ended?: boolean
  /**
   * A child started with `execSync`, `execFileSync` or `spawnSync` blocks this process, so a holder process continues
   * the run for it: `handoff` gives the run as JSON, `absorb` takes back what the holder's run did (`scenario/handoff.ts`).
   */
  handoff?(): unknown
  absorb?(returned: never): void
  /** A request refused before it reached `handle` (an undici WebSocket to a model host): the run fails with it. */
  report?(error: Error): void
  /** One call of an in-process tool wrapped with `tools()` from `fluxlab`: on the tape (`Run.callTool`); without it, the tool runs. */
  callTool?(call: { name: string; args: unknown; callId?: string }, run: () => unknown): Promise<unknown>
}

interface GlobalState {
  /** The run a request belongs to (set while `Scenario.run` drives the agent). */
  runs: AsyncLocalStorage<RequestRoute>
  /** The test a scenario belongs to (vitest ≥ 4.1 `aroundEach`). */
  tests: AsyncLocalStorage<TestContext>
  /** jest and vitest < 4.1 have no `aroundEach`: the current test is a module variable there. */
  currentTest?: TestContext
  /** The test that ended last, until the next starts: `testOutcome()` in a jest `afterEach` that runs after fluxlab's. */
  lastTest?: TestContext
  /**
   * Under a runner without per-test async context (jest, vitest < 4.1): the running `test.concurrent`
   * test, if one is running (set by the runner setups); scenario() refuses to open there.
   * @note jest-circus runs concurrent tests without beforeEach/afterEach, so they never get a `currentTest`.
   */
  concurrentTest?: () => ConcurrentTest | undefined
  /** The runner whose setup file loaded, when it says (jest's does): its adapter may have interception let go at once. */
  runner?: string
  /** Options from the runner plugin (`fluxlab({...})`) or `configure()`. */
  options: FluxOptions
  /**
   * Whole-suite mode under a runner without per-test async context (jest, vitest < 4.1): the
   * running test's route, for requests made outside every `Scenario.run`.
   */
  attached?: RequestRoute
  /**
   * Whole-suite mode: the run a request made outside every test and run goes to (module top level, `beforeAll`):
   * the running test file's scenario, or the refusal of calls made outside every file.
   */
  outside?: () => RequestRoute | undefined
  /**
   * The credential-like variables the running test file read, set, while it was collected (the runner setups'
   * watch): a recording of the file notes them in its manifest's `keyVars` beside those its requests carried.
   */
  fileKeys?: { file: string; names: readonly string[] }
  /** The matcher code, once fluxlab's main module has loaded it (`matchers/lazy.ts`: the setup files register stand-ins). */
  matchers?: object
}

const KEY = Symbol.for(STATE_KEY)

/**
 * Process-wide state, on `globalThis` so that two copies of the library (ESM
 * and CJS, or two versions) share one router and never double-patch.
 * @example
 * state.options.dir // 'tests/scenarios' when configured so
 */
export const state: GlobalState =
  ((globalThis as Record<symbol, unknown>)[KEY] as GlobalState | undefined) ??
  (((globalThis as Record<symbol, unknown>)[KEY] = {
    runs: new AsyncLocalStorage<RequestRoute>(),
    tests: new AsyncLocalStorage<TestContext>(),
    options: {},
  } satisfies GlobalState) as GlobalState)
registerCopy(import.meta.url)

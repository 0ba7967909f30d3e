import { AsyncLocalStorage } from 'node:async_hooks'
import type { FluxOptions } from './options.js'
import type { Session } from './session.js'
import type { TestContext } from './test-context.js'

interface GlobalState {
  /** The run a request belongs to (set by `Scenario.run`). */
  sessions: AsyncLocalStorage<Session>
  /** The test a scenario belongs to (vitest `aroundEach`). */
  tests: AsyncLocalStorage<TestContext>
  /** jest has no `aroundEach`: the current test is a module variable there. */
  currentTest?: TestContext
  /**
   * jest: the name of the running test when it is a `test.concurrent` one (set by the jest setup).
   * @note jest-circus runs concurrent tests without beforeEach/afterEach, so they never get a `currentTest`.
   */
  jestConcurrentTest?: () => string | undefined
  /** Options from the runner plugin (`fluxlab({...})`) or `configure()`. */
  options: FluxOptions
}

const KEY = Symbol.for('fluxlab.state.v1')

/**
 * Process-wide state, on `globalThis` so that two copies of the library (ESM
 * and CJS, or two versions) share one router and never double-patch.
 */
export const state: GlobalState = ((globalThis as Record<symbol, unknown>)[KEY] as GlobalState | undefined) ??
  ((globalThis as Record<symbol, unknown>)[KEY] = {
    sessions: new AsyncLocalStorage<Session>(),
    tests: new AsyncLocalStorage<TestContext>(),
    options: {},
  } satisfies GlobalState) as GlobalState

/**
 * The session a request made now belongs to: the `Scenario.run` it was made
 * inside. A request made outside every run passes through untouched.
 * @note AsyncLocalStorage context survives msw's interception of both `fetch`
 * and `node:http` (checked on Node 20), so there is no guessing fallback that
 * could route another test's request into this run.
 */
export function currentSession(): Session | undefined {
  return state.sessions.getStore()
}

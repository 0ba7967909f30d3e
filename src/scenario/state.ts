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
  /** jest tests between their beforeEach and afterEach; more than one means `test.concurrent`. */
  jestRunning?: number
  /** Runs in progress, for requests whose async context was lost (some `node:http` paths). */
  active: Set<Session>
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
    active: new Set(),
    options: {},
  } satisfies GlobalState) as GlobalState

/**
 * The session a request made now belongs to.
 * @note Falls back to the only active run when the async context was lost; with
 * several runs active and no context the request is not routed (passes through).
 */
export function currentSession(): Session | undefined {
  const s = state.sessions.getStore()
  if (s) return s
  if (state.active.size === 1) return state.active.values().next().value
  return undefined
}

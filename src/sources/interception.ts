/**
 * What the interception is made of: the parts of `@mswjs/interceptors` it uses
 * (any copy, ESM or CJS, sharing the global symbols), its process-wide state, and the interceptor kinds.
 */
import type { AsyncLocalStorage } from 'node:async_hooks'
import type { setImmediate } from 'node:timers'
import { interceptorClasses } from './interceptors.js'
import type { Admit, RequestSource } from './source.js'

/** The parts of an `@mswjs/interceptors` interceptor this file uses (any copy, ESM or CJS, any version sharing the global symbols). */
export interface Shared {
  readonly symbol: symbol
  readyState: string
  apply(): void
  dispose(): void
  emitter: SharedEmitter
}
export interface SharedEmitter {
  prependListener(event: string, listener: Listener): unknown
  removeListener(event: string, listener: Listener): unknown
  removeAllListeners(event?: string): unknown
  listeners(event: string): Listener[]
  listenerCount(event: string): number
}
export type Listener = (...args: never[]) => unknown
interface Controller {
  readyState: number
  passthrough(): Promise<void>
  respondWith(response: Response): void
  errorWith(reason?: unknown): void
}
export interface RequestEvent {
  requestId: string
  request: Request
  controller: Controller
}
interface ResponseEvent {
  requestId: string
  response: Response
}

export interface InterceptionState {
  refs: number
  /**
   * Set while interception lingers with no holder (see `acquireInterception`): the pending detach, which a new
   * acquire cancels.
   */
  idle?: ReturnType<typeof setImmediate>
  /** The one question every source asks (`acquireInterception`'s argument, the latest holder's). */
  admit?: Admit
  /** The sources enabled at the first acquire (`./registry.ts`), until the last release disposes them in reverse. */
  sources?: RequestSource[]
  /** Interceptors fluxlab applied itself (no other library had one running): it restores their patches. */
  owned: Shared[]
  /** Owned interceptors another library's listeners have sat on: they stay applied (see `detach`). */
  shared: Set<Shared>
  /** The running interceptor of each kind our listeners sit on (first in line), ours or another library's. */
  attached: Shared[]
  /** Requests fluxlab answered, until their `response` event. */
  answered: Set<string>
  /** `globalThis.fetch` as it was before any `@mswjs/interceptors` fetch interceptor patched it, when it was seen so. */
  pristineFetch?: typeof fetch
  /**
   * The `globalThis.fetch` fluxlab's own fetch interceptor wrapped when it applied it, while it is applied, if that
   * was not `pristineFetch`: a layer installed after fluxlab loaded (a wrapper, another mocking library's patch).
   */
  beneathFetch?: typeof fetch
  /** Set while a run answers a request the fetch interceptor handed over and `beneathFetch` is set: `liveFetch` sends through it. */
  beneath?: AsyncLocalStorage<Beneath>
  /** Set while this process answers a request another process of its tree made: `liveFetch` has that process send it (issue 39). */
  sentBy?: AsyncLocalStorage<{ send?: (request: Request) => Promise<Response> }>
  onRequest: (event: RequestEvent) => Promise<void>
  /** `onRequest` for the `fetch` interceptor: a live copy of its requests goes through `beneathFetch`. */
  onFetchRequest?: (event: RequestEvent) => Promise<void>
  /** `onRequest` for the `node:http` interceptor: its answers wait for the client's turn (`afterClientTurn`). */
  onHttpRequest: (event: RequestEvent) => Promise<void>
  onResponse: (event: ResponseEvent) => void
  /** Requests made with `node:http` (which never follows a redirect itself), as the interceptor handed them over. */
  nodeHttp?: WeakSet<Request>
}

export interface Beneath {
  fetch: typeof fetch
  /** A request fluxlab answers before the app's own mocks (`Admission.preempts`): they do not see its live copy either. */
  preempted: boolean
}

/** The interceptor kinds fluxlab's listeners sit on, in order (loaded at the first acquire: `./interceptors.ts`). */
export function kinds(): Array<{ new (): Shared; symbol: symbol }> {
  const { ClientRequestInterceptor, FetchInterceptor, XMLHttpRequestInterceptor } = interceptorClasses()
  return [ClientRequestInterceptor, FetchInterceptor, XMLHttpRequestInterceptor] as unknown as Array<{ new (): Shared; symbol: symbol }>
}
export const KEY = Symbol.for('fluxlab.interception.v3')
// @note each kind's running interceptor is kept on the global under these (`Symbol.for`, so every copy of
// @mswjs/interceptors finds it); ./interceptors.test.ts checks they are the classes' own.
export const FETCH_SYMBOL = Symbol.for('fetch-interceptor')
export const HTTP_SYMBOL = Symbol.for('client-request-interceptor')
export const XHR_SYMBOL = Symbol.for('xhr-interceptor')
export const g = globalThis as Record<symbol, unknown>

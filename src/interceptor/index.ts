import { AsyncLocalStorage } from 'node:async_hooks'
import { syncBuiltinESMExports } from 'node:module'
import { clearImmediate, setImmediate } from 'node:timers'
import { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest'
import { FetchInterceptor } from '@mswjs/interceptors/fetch'
import { XMLHttpRequestInterceptor } from '@mswjs/interceptors/XMLHttpRequest'
import { FluxError, notice } from '../errors.js'
import { guardHttp2 } from './http2.js'
import { attachUndici, refreshUndici, refuseUnseen, unrouted, type UndiciRouter } from './undici.js'
import { attachWebSocket, type SocketRouter } from './websocket.js'

/**
 * Decides what to do with one request: a Response, or `undefined` to let it pass untouched.
 * Its optional hooks (`claims`, `isModelCall`, `report`) serve the undici routing (`./undici.ts`);
 * `socket` takes or leaves a socket the global `WebSocket` opens (`./websocket.ts`); `preempts` says which
 * requests fluxlab answers before the process's other mocking libraries (the app's own msw `setupServer`,
 * nock ≥ 14) see them: the model calls. Every other request is offered to them first, and reaches the
 * router only if none of them answered it (it would have gone to the network).
 */
export type Router = UndiciRouter & { socket?: SocketRouter; preempts?(request: Request): boolean }

/** The parts of an `@mswjs/interceptors` interceptor this file uses (any copy, ESM or CJS, any version sharing the global symbols). */
interface Shared {
  readonly symbol: symbol
  readyState: string
  apply(): void
  dispose(): void
  emitter: SharedEmitter
}
interface SharedEmitter {
  prependListener(event: string, listener: Listener): unknown
  removeListener(event: string, listener: Listener): unknown
  removeAllListeners(event?: string): unknown
  listeners(event: string): Listener[]
  listenerCount(event: string): number
}
type Listener = (...args: never[]) => unknown
interface Controller {
  readyState: number
  passthrough(): Promise<void>
  respondWith(response: Response): void
  errorWith(reason?: unknown): void
}
interface RequestEvent {
  requestId: string
  request: Request
  controller: Controller
}
interface ResponseEvent {
  requestId: string
  response: Response
}

interface InterceptionState {
  refs: number
  /**
   * Set while interception lingers with no holder (see `acquireInterception`): the pending detach, which a new
   * acquire cancels.
   */
  idle?: ReturnType<typeof setImmediate>
  router?: Router
  detachUndici?: () => void
  detachWebSocket?: () => void
  /** Undo of the HTTP/2 warning guard (`http2.ts`); true when it restored `http2.connect`. */
  unguardHttp2?: () => boolean
  /** Interceptors fluxlab applied itself (no other library had one running): it restores their patches. */
  owned: Shared[]
  /** Owned interceptors another library's listeners have sat on: they stay applied (see `detach`). */
  shared: Set<Shared>
  /** The running interceptor of each kind our listeners sit on (first in line), ours or another library's. */
  attached: Shared[]
  /** Requests fluxlab answered, until their `response` event. */
  answered: Set<string>
  /** Set while fluxlab itself performs a request for real (`liveFetch`): every listener of ours lets it through. */
  live: AsyncLocalStorage<true>
  /** `globalThis.fetch` as it was before any `@mswjs/interceptors` fetch interceptor patched it, when it was seen so. */
  pristineFetch?: typeof fetch
  /**
   * The `globalThis.fetch` fluxlab's own fetch interceptor wrapped when it applied it, while it is applied, if that
   * was not `pristineFetch`: a layer installed after fluxlab loaded (a wrapper, another mocking library's patch).
   */
  beneathFetch?: typeof fetch
  /** Set while the router answers a request the fetch interceptor handed over and `beneathFetch` is set: `liveFetch` sends through it. */
  beneath?: AsyncLocalStorage<Beneath>
  onRequest: (event: RequestEvent) => Promise<void>
  /** `onRequest` for the `fetch` interceptor: a live copy of its requests goes through `beneathFetch`. */
  onFetchRequest?: (event: RequestEvent) => Promise<void>
  /** `onRequest` for the `node:http` interceptor: its answers wait for the client's turn (`afterClientTurn`). */
  onHttpRequest: (event: RequestEvent) => Promise<void>
  onResponse: (event: ResponseEvent) => void
  /** Requests made with `node:http` (which never follows a redirect itself), as the interceptor handed them over. */
  nodeHttp?: WeakSet<Request>
}

interface Beneath {
  fetch: typeof fetch
  /** A request fluxlab answers before the app's own mocks (`Router.preempts`): they do not see its live copy either. */
  preempted: boolean
}

const KINDS = [ClientRequestInterceptor, FetchInterceptor, XMLHttpRequestInterceptor] as unknown as Array<{ new (): Shared; symbol: symbol }>
const KEY = Symbol.for('fluxlab.interception.v3')
const FETCH_SYMBOL = (FetchInterceptor as unknown as { symbol: symbol }).symbol
const HTTP_SYMBOL = (ClientRequestInterceptor as unknown as { symbol: symbol }).symbol
const g = globalThis as Record<symbol, unknown>
// @note STYLE "Side effects": one patch per process even with two copies of the library loaded.
const st: InterceptionState = (g[KEY] as InterceptionState | undefined) ?? (g[KEY] = createState())

/** Which interceptor handed a request over. */
type Via = 'fetch' | 'http' | 'xhr'

function createState(): InterceptionState {
  const beneath = new AsyncLocalStorage<Beneath>()
  /**
   * `router(request)`, with where its live copy goes: through the layer beneath our fetch patch, for a `fetch` request.
   * @note issue 24: not for a `node:http` or XMLHttpRequest request: the layers beneath our `http.request` patch have
   * seen it already (the agent the innermost one sets makes the connection), and no fetch layer was on its way.
   */
  const route = (router: Router, request: Request, via: Via, preempted: boolean): Promise<Response | undefined> => {
    const fetch = via === 'fetch' ? s.beneathFetch : undefined
    return fetch ? beneath.run({ fetch, preempted }, () => router(request)) : router(request)
  }
  const handle = async ({ requestId, request, controller }: RequestEvent, via: Via): Promise<void> => {
    const http = via === 'http'
    const answer = http ? afterClientTurn : (response: Response) => response
    if (http) s.nodeHttp?.add(request)
    if (s.live.getStore()) {
      // Our own live request goes out for real, and no listener after ours sees it (nock's
      // disableNetConnect or "no match", the app's msw handlers and onUnhandledRequest).
      await controller.passthrough()
      // @note the interceptor calls listeners one after another, awaiting each, and settles the request
      // as soon as it is handled: a listener that never returns ends the chain. Nothing holds the
      // pending promise once the request is settled, so it is collected with it.
      return new Promise<never>(() => {})
    }
    if (s.refs === 0 || !s.router) return
    // @note a `data:` or `blob:` URL is no traffic: the runtime answers it itself, the same way every time. It is left
    // alone, so a fixture never depends on such a probe (the OpenAI SDK fetches `data:,` once per fetch function to
    // test its FormData support, so whether a run makes it depends on the runs before it in the process).
    if (!request.url.startsWith('http:') && !request.url.startsWith('https:')) return
    // @note a WebSocket opened over node:http (the `ws` package) is an upgrade no Response can answer: to a
    // provider host it is refused, as an undici upgrade is (only the global `WebSocket` is recorded, ./websocket.ts).
    if (request.headers.get('upgrade')?.toLowerCase() === 'websocket') {
      const url = new URL(request.url)
      const router = s.router
      if ((router.claims?.(request.method, url) ?? true) && (router.isModelCall?.(request.method, url) ?? false)) {
        const refused = refuseUnseen(router, request.method, url, 'a node:http websocket upgrade (the `ws` package)')
        if (refused) return controller.errorWith(refused)
      }
    }
    if (s.router.preempts?.(request)) {
      const response = await route(s.router, request, via, true)
      if (!response) return
      if (response.type !== 'error' && drains()) s.answered.add(requestId)
      // @note @mswjs/interceptors answers a Response a listener throws and calls no listener after it,
      // so the app's msw or nock never see a model call fluxlab answered: no handler of theirs runs and
      // no "unhandled request" warning or error fires for it.
      throw answer(response)
    }
    // Not ours first: the listeners after us (the app's msw handlers, nock scopes) get it. What none of
    // them answered would go to the network; it comes back here instead (recorded, or replayed).
    const passthrough = controller.passthrough
    controller.passthrough = async () => {
      const router = s.refs > 0 ? s.router : undefined
      if (!router) return passthrough.call(controller)
      // The listeners' abort race is over by now: a client abort while we answer is ours to honour.
      const signal = request.signal as AbortSignal | undefined
      const abort = new Promise<'aborted'>((resolve) => signal?.addEventListener('abort', () => resolve('aborted'), { once: true }))
      const response = signal?.aborted ? 'aborted' : await Promise.race([route(router, request, via, false), abort])
      if (response === 'aborted') controller.errorWith(signal?.reason)
      else if (response) {
        if (response.type !== 'error' && drains()) s.answered.add(requestId)
        controller.respondWith(answer(response))
      }
      else await passthrough.call(controller)
    }
  }
  const s: InterceptionState = {
    refs: 0,
    owned: [],
    shared: new Set(),
    attached: [],
    answered: new Set(),
    live: new AsyncLocalStorage<true>(),
    pristineFetch: g[FETCH_SYMBOL] === undefined && typeof globalThis.fetch === 'function' ? globalThis.fetch : undefined,
    beneath,
    onRequest: (event) => handle(event, 'xhr'),
    onFetchRequest: (event) => handle(event, 'fetch'),
    onHttpRequest: (event) => handle(event, 'http'),
    nodeHttp: new WeakSet(),
    onResponse({ requestId, response }) {
      // @note mswjs/interceptors#799 (0.41): fetch clones every response for the `response` event, and while
      // that clone is unread, `response.body.cancel()` on the client's copy never settles (the OpenAI and
      // Anthropic SDKs cancel an error body before retrying a 429/5xx). Nobody reads the clone of a response
      // we answered: drain it in the background (never awaited, so the client is not held up).
      if (s.answered.delete(requestId)) void response.arrayBuffer().catch(() => {})
    },
  }
  return s
}

/**
 * The redirect mode a live copy of an intercepted request must be sent with, so the client meets a redirect as it
 * would without fluxlab: `manual` for `node:http` (it never follows one; the client or its library sees the 3xx),
 * else the request's own (`fetch`'s `redirect` option).
 * @example
 * new Request(target, { method, headers, body, redirect: redirectModeOf(request) })
 */
export function redirectModeOf(request: Request): RequestRedirect {
  return st.nodeHttp?.has(request) ? 'manual' : request.redirect
}

/**
 * Start intercepting `fetch`, `node:http` and `XMLHttpRequest` in this process (ref-counted) and
 * route each request through `router`. Returns the matching release: after the last one the patches are undone a
 * turn of the event loop later (`{ now: true }`: at once), and until then every request passes untouched.
 *
 * It shares one interception with the app's own msw or nock (`@mswjs/interceptors` keeps one running
 * interceptor per kind on `globalThis`): fluxlab's listener goes first in line; what `router.preempts` selects is
 * fluxlab's alone, everything else is offered to the app's mocks before `router` sees it. Calls made with
 * the npm `undici` package directly are routed to `router` too (`./undici.ts`).
 * @example
 * const release = acquireInterception(Object.assign(async (req: Request) => run?.handle(req), { preempts: isModelCall }))
 * try { await agent() } finally { release() }
 */
export function acquireInterception(router: Router): (options?: { now?: boolean }) => void {
  if (st.idle) {
    clearImmediate(st.idle)
    st.idle = undefined
  }
  if (st.refs === 0 && !st.detachUndici) assertInterceptorsLine()
  st.router = router
  if (st.refs++ === 0 && !st.detachUndici) {
    st.detachUndici = attachUndici(() => (st.refs > 0 ? st.router : undefined), liveFetch)
    const http2 = guardHttp2()
    st.unguardHttp2 = http2.undo
    if (http2.patched) syncBuiltinESMExports()
  } else refreshUndici()
  // @note a global `WebSocket` may appear after the first acquire (a polyfill, or undici's assigned by the app).
  st.detachWebSocket ??= attachWebSocket(() => (st.refs > 0 ? st.router?.socket : undefined))
  attach()
  let released = false
  return ({ now = false } = {}) => {
    if (released) return
    released = true
    if (--st.refs > 0) return
    if (now) return detachAll()
    // @note issue 14: the patches stay until the turn of the event loop after the last release, so back-to-back
    // runs (the tests of a file, one after another) reuse them rather than undo and redo every patch per run (an
    // eighth of a replayed run's time). Meanwhile nothing is routed: every listener of ours lets a request pass
    // untouched while no one holds the interception. `node:timers`' own setImmediate: fake timers never hold it.
    const idle = setImmediate(() => {
      if (st.idle !== idle) return
      try {
        st.idle = undefined
        if (st.refs === 0) detachAll()
      } catch (e) {
        // No run holds the interception to fail with it, and a throw here would end the process: said, not thrown.
        console.warn(notice(`could not undo the request interception after the last run: ${(e as Error).message}`))
      }
    })
    idle.unref()
    st.idle = idle
  }
}

/** Undo every patch of `acquireInterception` (the last holder released it, a turn ago). */
function detachAll(): void {
  detach()
  st.detachUndici?.()
  st.detachUndici = undefined
  st.detachWebSocket?.()
  st.detachWebSocket = undefined
  if (st.unguardHttp2?.()) syncBuiltinESMExports()
  st.unguardHttp2 = undefined
}

/**
 * fluxlab is written against the @mswjs/interceptors 0.41 line its package.json pins. npm `overrides` can put
 * msw 3's line (0.45) under it instead, whose interceptors are singletons on another registry with another
 * emitter: every test then failed inside the interceptor ("Failed to replace a global value at "WebSocket":
 * already replaced"). Refuse before anything is patched, naming the override; msw itself may be 3.x (only
 * `bypass` comes from it).
 */
function assertInterceptorsLine(): void {
  if (typeof (ClientRequestInterceptor as unknown as { singleton?: unknown }).singleton !== 'function') return
  throw new FluxError('FLUX_BAD_CONFIG', {
    failed: 'start intercepting requests',
    reason:
      "the @mswjs/interceptors that fluxlab resolves is a newer line than the 0.41 it is built for (its interceptors have the `singleton` API of msw 3's 0.45); an npm `overrides` entry for @mswjs/interceptors usually put it there",
    fix: 'Remove that override (forcing fluxlab\'s msw to 3.x is fine: `"overrides": { "fluxlab": { "msw": "3.0.5" } }`), then run `npm install` (see docs/compatibility.md#msw-2-and-msw-3)',
  })
}

/**
 * Put our listeners first on the running interceptor of each kind: the app's (its msw or nock started
 * first), else ours. Called at every acquire, so a mocking library started, stopped or restarted since
 * the last one is followed.
 */
function attach(): void {
  let patched = false
  for (const Kind of KINDS) {
    const running = runningOrOwn(Kind, () => (patched = true))
    const before = st.attached.find((i) => i.symbol === Kind.symbol)
    if (before && before !== running) unlisten(before)
    if (!running) continue
    const listener = Kind.symbol === HTTP_SYMBOL ? st.onHttpRequest : Kind.symbol === FETCH_SYMBOL ? (st.onFetchRequest ?? st.onRequest) : st.onRequest
    if (running.emitter.listeners('request')[0] !== listener) {
      unlisten(running)
      running.emitter.prependListener('request', listener)
    }
    drainIfShared(running)
    if (!st.attached.includes(running)) st.attached.push(running)
    if (!st.owned.includes(running)) followDispose(running)
  }
  // @note msw patches `http.request`/`http.get` on the CommonJS module object; ESM named imports
  // (`import { request } from 'node:http'`) keep the original until the builtin bindings are synced
  // (mswjs/interceptors#201, msw#2049). Without this such a request passes through, live, in replay.
  if (patched) syncBuiltinESMExports()
}

/** The interceptor of `Kind` that is running in this process, applying ours when none is. */
function runningOrOwn(Kind: { new (): Shared; symbol: symbol }, onPatch: () => void): Shared | undefined {
  const running = g[Kind.symbol] as Shared | undefined
  if (running) return running
  // @note issue 14: building the interceptor only to find the API missing cost a little on every run.
  if ((Kind as unknown) === XMLHttpRequestInterceptor && typeof (globalThis as { XMLHttpRequest?: unknown }).XMLHttpRequest === 'undefined') return undefined
  const wrapped = globalThis.fetch
  const mine = new Kind()
  mine.apply()
  if (g[Kind.symbol] !== mine) return undefined // this environment has no such API (XMLHttpRequest in Node)
  onPatch()
  st.owned.push(mine)
  if (Kind.symbol === FETCH_SYMBOL && wrapped !== st.pristineFetch) st.beneathFetch = wrapped
  anchor(mine)
  return mine
}

/**
 * Keep our running interceptor findable, and note when another library's listeners sit on it.
 * @note `Interceptor.dispose()` clears the global symbol even on an instance that never owned it, and nock
 * does exactly that when it is imported (`back.setMode` → `recorder.restore()` disposes its unapplied
 * interceptors). With the symbol gone, the next library patches `http`/`fetch` a second time over ours,
 * and two nested `http.get` patches fail every request. The same instance under the symbol on the global
 * object's own prototype survives the delete: lookups still find ours, and a library that really applies
 * one later (after ours is disposed) shadows it with its own property.
 */
function anchor(own: Shared): void {
  Object.defineProperty(Object.getPrototypeOf(globalThis), own.symbol, { value: own, configurable: true, writable: true })
  const add = (own.emitter as SharedEmitter & { addListener(event: string, listener: Listener): unknown }).addListener.bind(own.emitter)
  ;(own.emitter as SharedEmitter & { addListener(event: string, listener: Listener): unknown }).addListener = (event, listener) => {
    st.shared.add(own)
    const out = add(event, listener)
    if (event === 'response' && st.attached.includes(own)) drainIfShared(own)
    return out
  }
}

/**
 * A response to a `node:http` request, with its head held back one turn after the client's write callbacks.
 * @note @mswjs/interceptors 0.41 holds a mocked request's write callbacks until the response is decided, then
 * runs them in the tick it writes the response head. A client that ends its request one turn after a write
 * callback (got 16: `setImmediate`, then it destroys a request that already has a response as stale) aborted
 * the answer while it still streamed ("The server aborted pending request", ECONNRESET). On a socket the
 * callbacks run as the bytes leave, well before any answer. The head goes out with the first body chunk, so
 * that read waits one `setImmediate`, scheduled after the client's (the stream pulls only when read).
 */
function afterClientTurn(response: Response): Response {
  if (!response.body || response.type === 'error') return response
  const source = response.body.getReader()
  let waited = false
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!waited) await new Promise<void>((resolve) => setImmediate(() => resolve((waited = true, undefined))))
        const { done, value } = await source.read()
        if (done) controller.close()
        else controller.enqueue(value)
      },
      cancel: (reason) => source.cancel(reason),
    },
    { highWaterMark: 0 },
  )
  // @note the same Headers object: the interceptor reads the raw (as-written) header names from it.
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
}

/** Our listeners off every interceptor; ours disposed unless another library has used them. */
function detach(): void {
  for (const i of st.attached.splice(0)) unlisten(i)
  let restored = false
  for (const own of st.owned.splice(0)) {
    // @note once another library's interceptor has sat on ours it keeps sending its listeners to ours (its
    // `on` stays bound to the instance it found running, even after it stops and starts again): disposing
    // ours would end its mocks for good. Ours then stays applied, idle when no listener is left.
    if (st.shared.has(own) || own.readyState !== 'APPLIED') {
      if (own.readyState === 'APPLIED') st.owned.push(own)
      continue
    }
    own.dispose()
    if (own.symbol === FETCH_SYMBOL) st.beneathFetch = undefined
    const proto = Object.getPrototypeOf(globalThis) as Record<symbol, unknown>
    if (proto[own.symbol] === own) delete proto[own.symbol]
    restored = true
  }
  if (restored) syncBuiltinESMExports()
}

/**
 * Listen to `response` only while another library does: the fetch interceptor clones every response for that
 * event only when someone listens, and a clone nobody reads is what our listener drains (issue 14: a replayed
 * stream was teed and read twice for nothing).
 */
function drainIfShared(i: Shared): void {
  const theirs = i.emitter.listeners('response').filter((l) => l !== st.onResponse).length
  const ours = i.emitter.listeners('response').includes(st.onResponse)
  if (theirs > 0 && !ours) i.emitter.prependListener('response', st.onResponse)
  else if (theirs === 0 && ours) i.emitter.removeListener('response', st.onResponse)
}

/** Whether our `response` listener is on any interceptor: only then is a clone of what we answer made, and drained. */
function drains(): boolean {
  return st.attached.some((i) => i.emitter.listeners('response').includes(st.onResponse))
}

function unlisten(i: Shared): void {
  i.emitter.removeListener('request', st.onRequest)
  i.emitter.removeListener('request', st.onHttpRequest)
  if (st.onFetchRequest) i.emitter.removeListener('request', st.onFetchRequest)
  i.emitter.removeListener('response', st.onResponse)
  const at = st.attached.indexOf(i)
  if (at >= 0) st.attached.splice(at, 1)
}

/**
 * Another library's interceptor we sit on: when it is disposed (the app's `server.close()`), its patches
 * go and our listeners with them; while fluxlab is acquired, attach again at once (ours, then).
 */
function followDispose(running: Shared): void {
  const emitter = running.emitter as SharedEmitter & { [FOLLOWED]?: true }
  if (emitter[FOLLOWED]) return
  emitter[FOLLOWED] = true
  const removeAll = emitter.removeAllListeners.bind(emitter)
  emitter.removeAllListeners = (event) => {
    const out = removeAll(event)
    const listeners = emitter.listeners('request')
    const ours = [st.onRequest, st.onHttpRequest, st.onFetchRequest]
    if (st.attached.includes(running) && !listeners.some((l) => ours.includes(l as InterceptionState['onRequest']))) {
      unlisten(running)
      if (st.refs > 0) attach()
    }
    return out
  }
}
const FOLLOWED = Symbol.for('fluxlab.interception.followed')

/**
 * Perform a request for real, past the interception (record mode): no listener of ours answers it,
 * and msw's bypass marker keeps the app's msw handlers from answering or warning about it.
 * @note issue 14: through the patched `fetch`, `bypass()` clones the request twice and the interceptor wraps and
 * clones it again, so its body went out as a stream teed three times, and the response came back through the
 * interceptor: most of what recording added before the first chunk. The `fetch` from before any interceptor
 * (kept when this module first loaded, as the setup files load it before the tests) sends it directly; nothing
 * can answer it there, so the marker is not needed. Without one, the patched `fetch` and the marker as before.
 * @note issue 24: a `fetch` request met our patch over another layer (a wrapper installed after fluxlab loaded, the
 * app's msw 3 `setupServer`, whose interceptors are not the ones ours share): its live copy goes through that layer, as
 * the request would have gone without fluxlab, and the app's mock there answers it. A model call carries msw's
 * bypass marker there, so the app's msw does not answer or refuse it, as the mocks beside ours never see it.
 * @example
 * const res = await liveFetch(request)
 */
export function liveFetch(request: Request): Promise<Response> {
  const pristine = st.pristineFetch
  const beneath = st.beneath?.getStore()
  // @note issue 14: `msw` is imported here, on the first such request, not when this module loads: it is only needed for
  // `bypass`, and loading it (with graphql, cookies, path-to-regexp) was the largest part of fluxlab's setup file cost per
  // test file. The continuation keeps the async context (`unrouted`, `st.live` are AsyncLocalStorage).
  const bypassed = (send: typeof fetch) => import('msw').then(({ bypass }) => send(bypass(request)))
  return unrouted(() =>
    st.live.run(true, () => {
      if (beneath) return beneath.preempted ? bypassed(beneath.fetch) : beneath.fetch(request)
      return pristine ? pristine(request) : bypassed(fetch)
    }),
  )
}

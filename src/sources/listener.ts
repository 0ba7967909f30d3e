/**
 * fluxlab's `request` listener on the running interceptor of each kind: what it answers first (a model call,
 * `Admission.preempts`), what it leaves to the app's own mocks and takes back when none of them answered, and the
 * process-wide state it keeps.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { setImmediate } from 'node:timers'
import { processHold } from './process-hold.js'
import { FETCH_SYMBOL, g, type Beneath, type InterceptionState, type RequestEvent, type SharedEmitter } from './interception.js'
import { networkErrorOf } from './refused-network.js'
import { ownSends, type Admission, type Origin } from './source.js'
import { refuseUnseen } from './undici.js'

/** Which interceptor handed a request over. */
type Via = 'fetch' | 'http' | 'xhr'
const ORIGINS = { fetch: { via: 'fetch' }, http: { via: 'http' }, xhr: { via: 'xhr' } } as const satisfies Record<Via, Origin>
/** The same, with the app's own mocks listening after ours. */
const MOCKED = {
  fetch: { via: 'fetch', mocks: true },
  http: { via: 'http', mocks: true },
  xhr: { via: 'xhr', mocks: true },
} as const satisfies Record<Via, Origin>

export function createState(): InterceptionState {
  const beneath = new AsyncLocalStorage<Beneath>()
  /**
   * `answer()`, with where its live copy goes: through the layer beneath our fetch patch, for a `fetch` request.
   * @note issue 24: not for a `node:http` or XMLHttpRequest request: the layers beneath our `http.request` patch have
   * seen it already (the agent the innermost one sets makes the connection), and no fetch layer was on its way.
   */
  const route = (answer: Admission['answer'], via: Via, preempted: boolean): Promise<Response | undefined> => {
    const fetch = via === 'fetch' ? s.beneathFetch : undefined
    return fetch ? beneath.run({ fetch, preempted }, answer) : answer()
  }
  const handle = async ({ requestId, request, controller }: RequestEvent, via: Via, emitter?: SharedEmitter): Promise<void> => {
    // @note issue 24: a listener of a test file that is over, left on an interceptor its undo could not take it off.
    if (processHold.holder?.realm !== globalThis) return
    const http = via === 'http'
    const answer = http ? afterClientTurn : (response: Response) => response
    if (http) s.nodeHttp?.add(request)
    if (ownSends.getStore()) {
      // Our own live request goes out for real, and no listener after ours sees it (nock's
      // disableNetConnect or "no match", the app's msw handlers and onUnhandledRequest).
      await controller.passthrough()
      // @note the interceptor calls listeners one after another, awaiting each, and settles the request
      // as soon as it is handled: a listener that never returns ends the chain. Nothing holds the
      // pending promise once the request is settled, so it is collected with it.
      return new Promise<never>(() => {})
    }
    const admit = s.admit
    if (s.refs === 0 || !admit) return
    // @note a `data:` or `blob:` URL is no traffic: the runtime answers it itself, the same way every time. It is left
    // alone, so a fixture never depends on such a probe (the OpenAI SDK fetches `data:,` once per fetch function to
    // test its FormData support, so whether a run makes it depends on the runs before it in the process).
    if (!request.url.startsWith('http:') && !request.url.startsWith('https:')) return
    // @note a WebSocket opened over node:http (the `ws` package) is an upgrade no Response can answer: to a
    // provider host it is refused, as an undici upgrade is (only the global `WebSocket` is recorded, ./websocket.ts).
    if (request.headers.get('upgrade')?.toLowerCase() === 'websocket') {
      const unroutable = admit(request, { via, unroutable: true })
      if (unroutable?.preempts) {
        const refused = refuseUnseen(unroutable, request.method, new URL(request.url), 'a node:http websocket upgrade (the `ws` package)')
        if (refused) return controller.errorWith(refused)
      }
    }
    // Asked once: who answers it, and whether before the app's own mocks.
    const admitted = admit(request, mocksListen(emitter) ? MOCKED[via] : ORIGINS[via])
    if (!admitted) return
    if (admitted.preempts) {
      const response = await route(admitted.answer, via, true)
      if (!response) return
      // @note issue 39: a live send of this process's own that failed fails the client with its very error.
      const failed = response.type === 'error' ? networkErrorOf(response, http) : undefined
      if (failed) return controller.errorWith(failed)
      if (response.type !== 'error' && drains(s)) s.answered.add(requestId)
      // @note @mswjs/interceptors answers a Response a listener throws and calls no listener after it,
      // so the app's msw or nock never see a model call fluxlab answered: no handler of theirs runs and
      // no "unhandled request" warning or error fires for it.
      throw answer(response)
    }
    // Not ours first: the listeners after us (the app's msw handlers, nock scopes) get it. What none of
    // them answered would go to the network; it comes back here instead (recorded, or replayed).
    const passthrough = controller.passthrough
    controller.passthrough = async () => {
      if (s.refs === 0 || !s.admit) return passthrough.call(controller)
      // The listeners' abort race is over by now: a client abort while we answer is ours to honour.
      const signal = request.signal as AbortSignal | undefined
      const abort = new Promise<'aborted'>((resolve) => signal?.addEventListener('abort', () => resolve('aborted'), { once: true }))
      const response = signal?.aborted ? 'aborted' : await Promise.race([route(admitted.answer, via, false), abort])
      if (response === 'aborted') controller.errorWith(signal?.reason)
      else if (response) {
        if (response.type !== 'error' && drains(s)) s.answered.add(requestId)
        // @note checked on an error answer only: a replayed call's path never enters refused-network.ts (path.test.ts)
        const refused = response.type === 'error' ? networkErrorOf(response, http) : undefined
        if (refused) controller.errorWith(refused)
        else controller.respondWith(answer(response))
      } else await passthrough.call(controller)
    }
  }
  const s: InterceptionState = {
    refs: 0,
    owned: [],
    shared: new Set(),
    attached: [],
    answered: new Set(),
    pristineFetch: g[FETCH_SYMBOL] === undefined && typeof globalThis.fetch === 'function' ? globalThis.fetch : undefined,
    beneath,
    sentBy: new AsyncLocalStorage(),
    onRequest: ours(function (this: SharedEmitter | undefined, event: RequestEvent) {
      return handle(event, 'xhr', this)
    }),
    onFetchRequest: ours(function (this: SharedEmitter | undefined, event: RequestEvent) {
      return handle(event, 'fetch', this)
    }),
    onHttpRequest: ours(function (this: SharedEmitter | undefined, event: RequestEvent) {
      return handle(event, 'http', this)
    }),
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
        if (!waited) await new Promise<void>((resolve) => setImmediate(() => resolve(((waited = true), undefined))))
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

/** fluxlab's own listeners (a jest file's, left on an interceptor after its file, included) carry this mark. */
const OURS = Symbol.for('fluxlab.interception.listener')
const ours = <F extends object>(listener: F): F => Object.assign(listener, { [OURS]: true })

/**
 * Whether the app's own mocks (msw, nock) listen on the interceptor that called us: the interceptor calls each
 * listener with its emitter as `this`, and any listener there that is not one of ours is theirs.
 */
const mocksListen = (emitter: SharedEmitter | undefined): boolean => emitter?.listeners('request').some((l) => !(l as { [OURS]?: true })[OURS]) ?? false

/** Whether our `response` listener is on any interceptor: only then is a clone of what we answer made, and drained. */
function drains(s: InterceptionState): boolean {
  return s.attached.some((i) => i.emitter.listeners('response').includes(s.onResponse))
}

/**
 * Routing for undici clients msw does not see: the npm `undici` package's `request`, `fetch`,
 * `stream` and `pipeline` (through the global dispatcher), and any client built on a dispatcher of
 * its own (`new Agent()`, `ProxyAgent`, `Pool`, `Client`), taken off the wire when undici creates
 * the request. Node's global `fetch` is msw's; what msw already saw is never routed twice.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { FluxError } from '../errors.js'
import { realmState } from './process-hold.js'
import { ownSends, type Admission, type Admit, type Origin } from './source.js'
import { patchLoadedCopies, unpatchCopies, watchLoads, type CopiesState } from './undici-copies.js'
import { dispatchUrl, respond, toRequest, type DispatchOptions, type UndiciHandler } from './undici-wire.js'

type Dispatch = (opts: DispatchOptions, handler: UndiciHandler) => boolean

type Dispatcher = { dispatch: Dispatch }
type Slot = { original: Dispatcher; wrapper: Dispatcher }

interface UndiciState extends CopiesState {
  admit?: Admit
  live?: (request: Request) => Promise<Response>
  /** > 0 while a dispatch is being handed to the original dispatcher (synchronous in undici). */
  depth: number
  /** Handlers given to an original dispatcher untouched: their requests are not taken over. */
  delegated: WeakSet<object>
  slots: Map<symbol, Slot>
  warned: Set<string>
  listener?: (message: unknown) => void
}

/** undici's global dispatcher: `.1` is read by undici ≤ 7 and Node's bundled copy (global `fetch`), `.2` by undici 8. */
export const GLOBAL_DISPATCHERS = [Symbol.for('undici.globalDispatcher.1'), Symbol.for('undici.globalDispatcher.2')]
const CREATE = 'undici:request:create'
const KEY = Symbol.for('fluxlab.undici.v1')
const g = globalThis as Record<symbol, unknown>
const UNDICI: Origin = { via: 'undici' }
const UNROUTABLE: Origin = { via: 'undici', unroutable: true }
const u: UndiciState = realmState<UndiciState>(KEY, () => ({
  depth: 0,
  delegated: new WeakSet(),
  slots: new Map(),
  patches: new Map(),
  warned: new Set(),
}))

/**
 * Start handing undici traffic to `admit`; `live` performs a request past every interception when the run declines
 * one undici can no longer send itself. Returns the undo.
 * @example
 * const detach = attachUndici(admit, liveFetch)
 */
export function attachUndici(admit: Admit, live: (request: Request) => Promise<Response>): () => void {
  u.admit = admit
  u.live = live
  const unwatch = watchLoads()
  wrapGlobalDispatchers()
  patchLoadedDispatchers()
  if (!u.listener) {
    u.listener = (message) => onRequestCreated((message as { request: CoreRequest }).request)
    subscribe(CREATE, u.listener)
  }
  return () => {
    for (const [symbol, slot] of u.slots) if (g[symbol] === slot.wrapper) g[symbol] = slot.original
    u.slots.clear()
    unwatch()
    unpatchCopies(u)
    if (u.listener) unsubscribe(CREATE, u.listener)
    u.listener = undefined
    u.admit = undefined
  }
}

/**
 * Pick up what changed since `attachUndici` (a copy of undici imported since, a global dispatcher
 * set since): called each time interception is acquired again, e.g. at every run or test.
 * @example
 * refreshUndici()
 */
export function refreshUndici(): void {
  if (!u.admit) return
  wrapGlobalDispatchers()
  patchLoadedDispatchers()
}

/** Put a routing wrapper on every global dispatcher undici has set (and re-wrap one replaced since). */
function wrapGlobalDispatchers(): void {
  for (const symbol of GLOBAL_DISPATCHERS) {
    const current = g[symbol] as Dispatcher | undefined
    if (!current || typeof current.dispatch !== 'function' || u.slots.get(symbol)?.wrapper === current) continue
    const original = current
    const dispatch = (opts: DispatchOptions, handler: UndiciHandler): boolean => dispatchRouted((o, h) => original.dispatch(o, h), opts, handler)
    const wrapper = new Proxy(original, {
      get(target, key) {
        if (key === 'dispatch') return dispatch
        const value: unknown = Reflect.get(target, key, target)
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
      },
    })
    u.slots.set(symbol, { original, wrapper })
    // @note undici defines the slot `writable: true, configurable: false`: assignment is the only way in.
    g[symbol] = wrapper
  }
}

/** Route each copy of the npm package loaded through Node's module cache since the last look (./undici-copies.ts). */
function patchLoadedDispatchers(): void {
  patchLoadedCopies(u, dispatchRouted)
}

function delegate(send: Dispatch, opts: DispatchOptions, handler: UndiciHandler): boolean {
  u.delegated.add(handler)
  u.depth++
  try {
    return send(opts, handler)
  } finally {
    u.depth--
  }
}

/** The global dispatcher's `dispatch`: route what the current route claims, hand the rest on untouched. */
function dispatchRouted(original: Dispatch, opts: DispatchOptions, handler: UndiciHandler): boolean {
  const admit = u.admit
  if (!admit || u.depth > 0 || ownSends.getStore() || u.delegated.has(handler)) return delegate(original, opts, handler)
  const url = dispatchUrl(opts.origin, opts.path)
  const method = (opts.method ?? 'GET').toUpperCase()
  const unroutable = !!opts.upgrade || method === 'CONNECT'
  const admitted = url && admit(headOf(url, method), unroutable ? UNROUTABLE : UNDICI)
  if (!url || !admitted) return delegate(original, opts, handler)
  if (unroutable) {
    const refused = refuseUnroutable(admitted, method, url, opts.upgrade)
    if (!refused) return delegate(original, opts, handler)
    void respond(handler, () => Promise.reject(refused))
    return true
  }
  void (async () => {
    let request: Request
    let answer: Response | undefined
    try {
      request = await toRequest(url, method, opts.headers, opts.body)
      answer = await admit(request.clone(), UNDICI)?.answer()
    } catch (e) {
      return respond(handler, () => Promise.reject(e))
    }
    if (answer) return respond(handler, () => Promise.resolve(answer))
    // @note the run declined it: it goes, as it was, to the dispatcher it was meant for (its body read once, so as bytes).
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : null
    delegate(original, { ...opts, body }, handler)
  })()
  return true
}

/** undici's request object (`lib/core/request.js`), as published on `undici:request:create`. */
interface CoreRequest {
  origin?: string | URL
  path?: string
  method?: string
  headers?: unknown
  body?: unknown
  upgrade?: string | null
  aborted?: boolean
  host?: string | null
  onError?(error: Error): void
}

/**
 * A request created by an undici dispatcher fluxlab did not wrap (a custom `Agent`, `ProxyAgent`,
 * `Pool` or `Client`, or a global dispatcher set after interception started): if the current
 * route claims it, undici is told it is aborted before it writes a byte, and the handler is
 * answered by the run instead.
 */
function onRequestCreated(request: CoreRequest): void {
  const admit = u.admit
  if (!admit || u.depth > 0 || ownSends.getStore()) return
  const handler = handlerOf(request)
  if (handler && u.delegated.has(handler)) return
  const url = dispatchUrl(request.origin, request.path)
  const method = (request.method ?? 'GET').toUpperCase()
  const unroutable = !handler || !!request.upgrade || method === 'CONNECT'
  const admitted = url && admit(headOf(url, method), unroutable ? UNROUTABLE : UNDICI)
  if (!url || !admitted) return
  wrapGlobalDispatchers()
  patchLoadedDispatchers()
  if (unroutable || !handler) {
    const refused = refuseUnroutable(admitted, method, url, request.upgrade, !handler)
    if (refused) request.onError?.(refused)
    return
  }
  // @note undici skips a request marked aborted when it comes to write it (and ignores its errors),
  // so nothing of it goes on the wire; the dispatcher may still open its connection.
  request.aborted = true
  const live = u.live
  void respond(handler, async () => {
    const routed = await toRequest(url, method, request.headers, request.body)
    const answer = await admit(routed.clone(), UNDICI)?.answer()
    if (answer) return answer
    // @note declined after all, and undici will not send it any more: send it past the interception.
    if (!live) throw new TypeError('fetch failed')
    return await ownSends.run(true, () => live(routed))
  })
}

/** undici keeps the handler under a private `Symbol('handler')`. */
function handlerOf(request: CoreRequest): UndiciHandler | undefined {
  const symbol = Object.getOwnPropertySymbols(request).find((s) => s.description === 'handler')
  const handler = symbol ? (request as Record<symbol, unknown>)[symbol] : undefined
  return handler && typeof handler === 'object' ? (handler as UndiciHandler) : undefined
}

/**
 * A request the current route claims but fluxlab cannot answer (an upgrade such as a WebSocket, a
 * CONNECT, an undici whose request object we cannot read): a model call is refused, with the
 * reason, and reported to the run; anything else passes with a warning, once per origin.
 */
function refuseUnroutable(admitted: Admission, method: string, url: URL, upgrade: string | null | undefined, unreadable = false): FluxError | undefined {
  const what = unreadable
    ? 'an undici request object this version of fluxlab cannot read'
    : upgrade
      ? `an undici ${upgrade} upgrade`
      : 'an undici CONNECT tunnel'
  return refuseUnseen(admitted, method, url, what)
}

/**
 * A request fluxlab sees but cannot route, made through `what` (`an undici websocket upgrade`,
 * `a node:http websocket upgrade`), admitted as `unroutable`: refused with `FLUX_UNROUTABLE` and reported to the run
 * when it goes to a provider host (`preempts`), else `undefined` after a warning, once per origin.
 * @example
 * const refused = refuseUnseen(admitted, 'GET', new URL('wss://api.openai.com/v1/realtime'), 'a node:http websocket upgrade')
 */
export function refuseUnseen(admitted: Admission, method: string, url: URL, what: string): FluxError | undefined {
  if (!admitted.preempts) {
    if (!u.warned.has(url.origin)) {
      u.warned.add(url.origin)
      console.warn(`[fluxlab] ${method} ${url.origin}${url.pathname} is ${what}: fluxlab does not record or replay it, so it goes to the network as it is.`)
    }
    return undefined
  }
  const error = new FluxError('FLUX_UNROUTABLE', {
    failed: `send ${method} ${url.host}${url.pathname}`,
    reason: `it is a model call made through ${what}, which fluxlab can neither record nor replay, so it was refused rather than sent live`,
    fix: what.includes('websocket')
      ? "Open realtime sockets with the global `WebSocket` (Node 22+, e.g. the `openai` SDK's `OpenAIRealtimeWebSocket` rather than `OpenAIRealtimeWS`), " +
        'which fluxlab records and replays; see docs/realtime.md.'
      : 'Call the model over plain HTTP (`fetch`, `undici.request`, `node:http`, or an SDK) so fluxlab can route it.',
  })
  admitted.report?.(error)
  return error
}

/**
 * The head of a request undici is about to send (no body yet), for the question `admit` answers synchronously.
 * @note a `Request` cannot carry `CONNECT`, `TRACE` or `TRACK` (fetch forbids them): such a head is asked as a `GET`,
 * which no family takes for a model call either (a CONNECT is only ever asked as `unroutable`).
 */
function headOf(url: URL, method: string): Request {
  return new Request(url, { method: /^(CONNECT|TRACE|TRACK)$/.test(method) ? 'GET' : method })
}

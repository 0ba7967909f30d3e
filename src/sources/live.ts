/**
 * How a request goes out live, past every interception of fluxlab's own: `liveFetch`, where its host's upstream takes
 * it (`upstreamed`), with the client's redirect mode (`redirectModeOf`), or as the code that made it said (`sentBy`:
 * requests that are not HTTP on the wire, such as an MCP message over a child's stdio, walk the same pipeline as HTTP
 * ones, and their maker reads the reason out of an off-tape answer itself). `sendLive` is all of it for a run's live
 * stage, one call: a recorded call's live send enters one file of the sources (issue 40 items 2 and 6).
 */
import { st } from './state.js'
import { ownSends } from './source.js'

/** Sends the request for real; `upstream` is the run's upstream map (`FLUX_UPSTREAM` / `upstream`), by host. */
type Sender = (upstream: Record<string, URL>) => Promise<Response>

/** Kept on `globalThis` so the ESM and CJS copies of one version agree. */
const KEY = Symbol.for('fluxlab.own-senders.v1')
const senders: WeakMap<Request, Sender> =
  ((globalThis as Record<symbol, unknown>)[KEY] as WeakMap<Request, Sender> | undefined) ??
  (((globalThis as Record<symbol, unknown>)[KEY] = new WeakMap<Request, Sender>()) as WeakMap<Request, Sender>)

/**
 * Mark `request` as sent by `send` when it goes live (instead of fetch), and return it.
 * @example
 * route(sentBy(new Request('stdio://weather/', { method: 'POST', body }), () => writeToChild(body)))
 */
export function sentBy(request: Request, send: Sender): Request {
  senders.set(request, send)
  return request
}

/**
 * Send `request` for real, as a run's live stage does: the way its maker said (`sentBy`), else its live copy through
 * `send` (`liveFetch`, or a run's own `live`): its body as the pipeline read it (a `node:http` request written in chunks
 * has no length, and a streamed body cannot be sent again), to its host's upstream when one is set (`upstream` /
 * `FLUX_UPSTREAM`), with the client's redirect mode.
 * @example
 * const res = await sendLive(call.request, call.bytes, config.upstream, config.live)
 */
export function sendLive(request: Request, bytes: Buffer, upstream: Record<string, URL>, send: (request: Request) => Promise<Response>): Promise<Response> {
  const own = senders.get(request)
  return own ? own(upstream) : send(liveCopy(request, bytes, upstream))
}

/** The request as it goes out (`sendLive`): the same method, headers and body; a new Request only when something differs. */
function liveCopy(request: Request, bytes: Buffer, upstream: Record<string, URL>): Request {
  const routed = upstreamed(new URL(request.url), upstream)
  const bodyless = request.method === 'GET' || request.method === 'HEAD' || request.body === null
  // @note the live copy keeps the client's redirect mode (node:http: manual), or the pre-interception fetch would
  // follow a redirect the client meant to see.
  const redirect = redirectModeOf(request)
  if (!routed && bodyless && redirect === request.redirect) return request
  const target = routed ?? new URL(request.url)
  const headers = new Headers(request.headers)
  for (const h of ['host', 'content-length', 'transfer-encoding']) headers.delete(h)
  const body = bodyless ? undefined : (bytes as Uint8Array<ArrayBuffer>)
  return new Request(target, { method: request.method, headers, body, signal: request.signal, redirect })
}

/**
 * The reason an off-tape answer (`x-fluxlab: off-tape`) gives, for a channel that cannot hand the client an HTTP
 * error: the message of its JSON error body, else the body as it is.
 * @example
 * if (response.headers.get('x-fluxlab') === 'off-tape') throw new Error(await offTapeMessage(response))
 */
export async function offTapeMessage(response: Response): Promise<string> {
  const text = await response.text()
  try {
    return (JSON.parse(text) as { error: { message: string } }).error.message
  } catch {
    return text
  }
}

/**
 * Where `url` goes under the upstream map (`upstreamFrom`): its host's base URL with the request's path after the base's
 * own, or `undefined` when its host has none.
 * @example
 * const upstream = { 'api.openai.com': new URL('http://localhost:4000') }
 * upstreamed(new URL('https://api.openai.com/v1/chat/completions'), upstream)?.href // 'http://localhost:4000/v1/chat/completions'
 */
export function upstreamed(url: URL, upstream: Record<string, URL>): URL | undefined {
  const base = upstream[url.host.toLowerCase()] ?? upstream[url.hostname.toLowerCase()]
  if (!base) return undefined
  const target = new URL(url.href)
  target.protocol = base.protocol
  target.host = base.host
  target.pathname = `${base.pathname.replace(/\/+$/, '')}${url.pathname}`
  return target
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
 * Run `answer` (the tape answering a request another process of the tree sent over its socket) so that a live send of
 * that request (`liveFetch`) is made by that process, with `send`, through its own layers beneath fluxlab (issue 39).
 * @example
 * serveOverSocket(path, (head, request, live) => sentByChild(live, () => run.handle(request)))
 */
export function sentByChild<T>(send: (request: Request) => Promise<Response>, answer: () => T): T {
  return st.sentBy ? st.sentBy.run({ send }, answer) : answer()
}

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
  // @note issue 39: a request another process of the tree made is sent by that process, beneath fluxlab there (once).
  const child = st.sentBy?.getStore()
  const sender = child?.send
  if (sender) return ((child.send = undefined), sender(request))
  const pristine = st.pristineFetch
  const beneath = st.beneath?.getStore()
  // @note issue 14: `msw` is imported here, on the first such request, not when this module loads: it is only needed for
  // `bypass`, and loading it (with graphql, cookies, path-to-regexp) was the largest part of fluxlab's setup file cost per
  // test file. The continuation keeps the async context (`ownSends` is an AsyncLocalStorage).
  const bypassed = (send: typeof fetch) => import('msw').then(({ bypass }) => send(bypass(request)))
  return ownSends.run(true, () => {
    if (beneath) return beneath.preempted ? bypassed(beneath.fetch) : beneath.fetch(request)
    return pristine ? pristine(request) : bypassed(fetch)
  })
}

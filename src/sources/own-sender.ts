/**
 * Requests that are not HTTP on the wire (an MCP message over a child's stdio) walk the same
 * pipeline as HTTP ones; the code that made such a request says how it goes out live, and reads
 * the reason out of an off-tape answer itself. Kept on `globalThis` so the ESM and CJS copies of
 * one version agree.
 */
/** Sends the request for real; `upstream` is the run's upstream map (`FLUX_UPSTREAM` / `upstream`), by host. */
type Sender = (upstream: Record<string, URL>) => Promise<Response>

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
 * How `request` goes out live, when its maker said so (`sentBy`).
 * @example
 * const send = ownSender(request) ?? (() => fetch(request))
 */
export function ownSender(request: Request): Sender | undefined {
  return senders.get(request)
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

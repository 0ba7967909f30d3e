/**
 * An app server under `fluxlab serve` (issue 27): each browser request of a Playwright test carries the address of
 * its test's run (a header and a cookie, set by `fluxlab/playwright`), and everything the server does while handling
 * it (the model and tool calls, the children it starts, work still running after it answered) goes to that run. The
 * handling is entered inside an `AsyncLocalStorage` holding that address, so every continuation of it carries it; a
 * request without one goes to the server's own run.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { IncomingMessage } from 'node:http'

/** The header a test's browser context sends, and the cookie that carries the same value. */
export const RUN_HEADER = 'x-fluxlab-run'
export const RUN_COOKIE = 'fluxlab-run'

/**
 * Issue 39: the variable that carries `withFluxlab(entry, { dir })` to the Playwright workers and to serve, in the
 * environment of both (empty: the default root). Set, it also tells serve that `withFluxlab()` started it, in the
 * config's directory.
 */
export const PLAYWRIGHT_DIR_ENV = 'FLUX_PLAYWRIGHT_DIR'

/** Where a test's run takes requests: the tree socket of its test process, and the token naming the run there. */
export interface RunAddress {
  path: string
  token: string
}

/** The address of the test whose browser request is being handled now, if any. */
export const requestRun = new AsyncLocalStorage<RunAddress>()

/**
 * The value a test sends, for `address`: URL-safe, so it is a valid header and cookie value.
 * @example
 * encodeRunAddress({ path: '/tmp/fluxlab-1.sock', token: 'ab12' }) // 'L3RtcC9mbHV4bGFiLTEuc29jawphYjEy'
 */
export function encodeRunAddress(address: RunAddress): string {
  return Buffer.from(`${address.path}\n${address.token}`).toString('base64url')
}

/** The address a request carries (its header, else its cookie), or `undefined` when it carries none that parses. */
function runAddressOf(headers: IncomingMessage['headers']): RunAddress | undefined {
  const header = headers[RUN_HEADER]
  return decode((Array.isArray(header) ? header[0] : header) ?? cookieValue(headers.cookie))
}

const cookieValue = (cookie: string | null | undefined) => /(?:^|;\s*)fluxlab-run=([A-Za-z0-9_-]+)/.exec(cookie ?? '')?.[1]

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/

/**
 * Whether a request this process sends is a test's browser request handed on to another server of the machine: it
 * goes to a loopback address and carries a run's address (a framework's router forwarding to its render worker over
 * HTTP, a dev proxy in front of the app). It is not a call of the test's but the same request on its way: it passes
 * untouched, and the server that gets it (a child of the server, under the same preload) enters the test's run by
 * the address it carries. A request to any other host is a tool call, whatever headers it copied.
 * @example
 * isForwardedRequest(new Request('http://127.0.0.1:4100/api/chat', { headers: { 'x-fluxlab-run': id } })) // true
 */
export function isForwardedRequest(request: Request): boolean {
  if (!LOOPBACK.test(new URL(request.url).hostname)) return false
  return decode(request.headers.get(RUN_HEADER) ?? cookieValue(request.headers.get('cookie'))) !== undefined
}

function decode(value: string | undefined): RunAddress | undefined {
  if (!value || !/^[A-Za-z0-9_-]+$/.test(value)) return undefined
  const [path, token, extra] = Buffer.from(value, 'base64url').toString('utf8').split('\n')
  return path && token && extra === undefined && /^[0-9a-f]{32}$/.test(token) ? { path, token } : undefined
}

type Emit = (this: object, event: string | symbol, ...args: unknown[]) => boolean

/**
 * Patch the servers of `node:http` and `node:https` (Express, Next.js and plain servers all emit through them) so a
 * `request` that carries a run's address is handled inside it. A request that carries none is given `own`'s (the
 * process's own run, where its calls go anyway), so a server that forwards it to another server of the tree forwards
 * an address too (`isForwardedRequest`). `listening` is called when such a server starts listening. Returns the undo.
 * @example
 * const undo = attachServerRequests([http.Server.prototype, https.Server.prototype], own, () => say('listening'))
 */
export function attachServerRequests(protos: Array<{ emit: Emit }>, own?: RunAddress, listening?: () => void): () => void {
  const ownId = own && encodeRunAddress(own)
  const undo = protos.map((proto) => {
    const original = proto.emit
    const emit: Emit = function (this: object, event, ...args) {
      if (event === 'listening') listening?.()
      const headers = event === 'request' ? (args[0] as IncomingMessage).headers : undefined
      const address = headers && runAddressOf(headers)
      // @note Playwright's webServer health check and a warm-up carry no address: a router that hands them to its
      // worker would otherwise send a request that is no forward, and record it as the server's own tool call.
      if (headers && !address && ownId) headers[RUN_HEADER] = ownId
      return address ? requestRun.run(address, () => original.call(this, event, ...args)) : original.call(this, event, ...args)
    }
    proto.emit = emit
    return () => {
      if (proto.emit === emit) proto.emit = original
    }
  })
  return () => undo.forEach((u) => u())
}

/**
 * `fluxlab serve --ready <url|port>` (issue 27): serve learns when the app server is ready by the rule Playwright's
 * `webServer` uses, checked far more often than Playwright checks it, and says so in one line on stdout. Issue 39: the
 * check runs when a server of serve's tree starts listening (the preload says so), and between those every 100 ms
 * (a server the preload is not in: not Node, or started with a `NODE_OPTIONS` of its own).
 * `withFluxlab` sets the entry's `wait.stdout` to that line, so Playwright starts the tests as soon as serve prints it
 * instead of at its own next check (0, 100, 250, 500 ms after the start, then every second).
 *
 * The checks reach the server as Playwright's own do: without a test's address, so whatever the server does for them
 * is its own (src/sources/server-requests.ts). serve's own process is not intercepted, so a check is never a call
 * on any tape itself.
 */
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { connect } from 'node:net'

/** What serve is told to wait for: the entry's `url` (an HTTP check) or its `port` (a TCP connect). */
export type ReadyTarget = { url: URL; ignoreHTTPSErrors: boolean } | { port: number }

/** The text of serve's line, after `[fluxlab] `; the URL or port follows it. */
export const READY_TEXT = 'serve: the app server answers at'

/**
 * The line `withFluxlab` has Playwright wait for (`wait.stdout`). @note no named group: Playwright copies named
 * groups into `process.env`. Each webServer has its own stdout, so the line needs no URL to be this server's.
 */
export const READY_PATTERN = /^\[fluxlab\] serve: the app server answers at /m

/** Between two checks while nothing answers (the port is closed): a refused connection never reaches the app. */
const POLL_MS = 20
/**
 * The same, where the tree says when a server starts listening (`listening`): about 20 checks fewer over a server's
 * start of 400 ms, each a refused connection (bench section 6: about 20 ms of serve's CPU).
 */
const SIGNALLED_POLL_MS = 100
/**
 * Between two checks after the server answered but not yet ready (a 503 while it warms up): each of those reached the
 * app's handler, so they come less often.
 */
const ANSWERED_MS = 100
/** A connection not made by then is dropped and tried again; once made, the answer is awaited as Playwright does. */
const CONNECT_MS = 1000
/** Playwright follows redirects with no limit; a loop here is "not ready" until the server stops. */
const MAX_REDIRECTS = 20

/**
 * Read `--ready`'s value: a port number, or an `http:`/`https:` URL.
 * @example
 * readyTarget('3000', false) // { port: 3000 }
 * readyTarget('http://127.0.0.1:3000/health', false) // { url: URL, ignoreHTTPSErrors: false }
 */
export function readyTarget(value: string, ignoreHTTPSErrors: boolean): ReadyTarget | { error: string } {
  if (/^\d+$/.test(value)) return Number(value) >= 1 && Number(value) <= 65535 ? { port: Number(value) } : { error: `--ready ${value} is no port (1 to 65535)` }
  const url = URL.canParse(value) ? new URL(value) : undefined
  if (url?.protocol === 'http:' || url?.protocol === 'https:') return { url, ignoreHTTPSErrors }
  return { error: `--ready takes the webServer's \`url\` (http://127.0.0.1:3000/health) or its \`port\` (3000), not ${JSON.stringify(value)}` }
}

/** How a target is named in serve's line. */
export const describeTarget = (t: ReadyTarget) => ('port' in t ? `port ${t.port}` : t.url.href)

/**
 * Check `target` until it is ready (true) or `signal` aborts (false: the server exited), one check at a time; at once
 * when `listening` dispatches a `listening` event (a server of the tree started listening), else after a pause.
 * @example
 * if (await untilReady({ port: 3000 }, child.signal, listening)) out.line(notice(`${READY_TEXT} port 3000`))
 */
export async function untilReady(
  target: ReadyTarget,
  signal: AbortSignal,
  listening?: EventTarget,
  pollMs = listening ? SIGNALLED_POLL_MS : POLL_MS,
): Promise<boolean> {
  let heard = 0
  const hear = () => heard++
  listening?.addEventListener('listening', hear)
  try {
    while (!signal.aborted) {
      const before = heard
      const status = 'port' in target ? ((await isPortUsed(target.port, signal)) ? 200 : 0) : await urlStatus(target.url, target.ignoreHTTPSErrors, signal)
      if (status >= 200 && status < 404) return !signal.aborted
      // a server started listening while the check ran: it may be the one, so check again now
      if (heard === before) await sleep(status ? ANSWERED_MS : pollMs, signal, listening)
    }
    return false
  } finally {
    listening?.removeEventListener('listening', hear)
  }
}

/**
 * Playwright's `isURLAvailable` (playwright-core, utils/network.ts): a GET with `Accept: *∕*`, redirects followed, and
 * a 404 at `/` checked again at `/index.html`; ready when the status is 200 to 403. 0 when nothing answered.
 */
async function urlStatus(url: URL, ignoreHTTPSErrors: boolean, signal: AbortSignal): Promise<number> {
  const status = await statusCode(url, ignoreHTTPSErrors, signal)
  if (status !== 404 || url.pathname !== '/') return status
  const index = new URL(url)
  index.pathname = '/index.html'
  return statusCode(index, ignoreHTTPSErrors, signal)
}

function statusCode(url: URL, ignoreHTTPSErrors: boolean, signal: AbortSignal, redirects = 0): Promise<number> {
  return new Promise((resolve) => {
    if (signal.aborted || (url.protocol !== 'http:' && url.protocol !== 'https:')) return resolve(0)
    // @note no keep-alive (`agent: false`): the check leaves no idle connection in the server.
    const options: RequestOptions & { rejectUnauthorized: boolean } = {
      method: 'GET',
      headers: { accept: '*/*' },
      agent: false,
      rejectUnauthorized: !ignoreHTTPSErrors,
    }
    const settle = (status: number | Promise<number>, drop: boolean) => {
      clearTimeout(connecting)
      signal.removeEventListener('abort', abort)
      if (drop) req.destroy()
      resolve(status)
    }
    const abort = () => settle(0, true)
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, options, (res: IncomingMessage) => {
      const status = res.statusCode ?? 0
      const location = status >= 300 && status < 400 ? res.headers.location : undefined
      if (!location) {
        // the body is read to its end and the connection closes (`connection: close`), as after Playwright's check
        res.resume()
        return settle(status, false)
      }
      const next = new URL(location, url)
      settle(redirects < MAX_REDIRECTS ? statusCode(next, ignoreHTTPSErrors, signal, redirects + 1) : 0, true)
    })
    const connecting = setTimeout(() => settle(0, true), CONNECT_MS)
    req.on('socket', (socket) => socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connecting)))
    req.on('error', () => settle(0, true))
    signal.addEventListener('abort', abort, { once: true })
    req.end()
  })
}

/** Playwright's `isPortUsed` for a `port` entry: a TCP connection to 127.0.0.1 or ::1 is made. */
function isPortUsed(port: number, signal: AbortSignal): Promise<boolean> {
  const tryHost = (host: string) =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, host)
      const done = (used: boolean) => {
        clearTimeout(timer)
        signal.removeEventListener('abort', abort)
        if (!used) socket.destroy()
        resolve(used)
      }
      const abort = () => done(false)
      const timer = setTimeout(() => done(false), CONNECT_MS)
      socket.once('connect', () => {
        // a FIN, as Playwright's `conn.end()`: the server sees a connection that sends nothing, never a request
        socket.end()
        done(true)
      })
      socket.once('error', () => done(false))
      signal.addEventListener('abort', abort, { once: true })
    })
  return new Promise((resolve) => {
    let pending = 2
    for (const host of ['127.0.0.1', '::1'])
      void tryHost(host).then((used) => {
        if (used) resolve(true)
        else if (--pending === 0) resolve(false)
      })
  })
}

/** `ms`, or less: until `signal` aborts or `wake` dispatches `listening`. */
function sleep(ms: number, signal: AbortSignal, wake?: EventTarget): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      wake?.removeEventListener('listening', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
    wake?.addEventListener('listening', done, { once: true })
  })
}

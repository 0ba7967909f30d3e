/**
 * WebSockets opened with the global `WebSocket` class, through `@mswjs/interceptors`' WebSocket
 * interceptor (the one msw's `ws.link()` uses): each new socket is offered to the router's
 * `socket` hook, which takes it (its frames are then fluxlab's: recorded or replayed) or leaves it,
 * and a socket left goes to its server as it would without fluxlab. The `ws` package and undici's
 * own WebSocket class are not the global one and are not seen here (an undici upgrade to a provider
 * host is refused by `./undici.ts`).
 */
import { WebSocketInterceptor } from '@mswjs/interceptors/WebSocket'
import { keepForTakeover } from './process-hold.js'
import { unrouted } from './undici.js'

/** One intercepted client socket, as the router's `socket` hook drives it. */
export interface SocketConnection {
  /** The URL the client opened (`wss://api.openai.com/v1/realtime?model=…`). */
  readonly url: URL
  /** The subprotocols the client asked for. */
  readonly protocols: string[]
  /** Hand a frame to the client, as if its server sent it. */
  send(data: string): void
  /** Close the client's socket. */
  close(code?: number, reason?: string): void
  /** Every frame the client sends (text; a binary frame is handed over as its bytes' UTF-8 text). */
  onFrame(listener: (data: string) => void): void
  /** The client closed its socket. */
  onClose(listener: () => void): void
  /** Open a real socket to `url` with `protocols`, past the interception. */
  openReal(url: URL, protocols: string[]): RealSocket
}

/** A real socket fluxlab opened itself (a recording's connection to the server). */
export interface RealSocket {
  /** Resolves when it is open; rejects when it failed to open. */
  readonly opened: Promise<void>
  send(data: string): void
  close(): void
  onMessage(listener: (data: string) => void): void
  onClose(listener: (code: number, reason: string) => void): void
}

/** Decides about one new socket: `true` when fluxlab takes it. */
export type SocketRouter = (connection: SocketConnection) => boolean

interface Socketish extends EventTarget {
  binaryType: string
  send(data: string): void
  close(code?: number, reason?: string): void
  readyState: number
}
interface ConnectionEvent {
  client: { url: URL; send(data: string): void; close(code?: number, reason?: string): void; addEventListener(type: string, l: (e: Event) => void): void }
  server: { connect(): void }
  info: { protocols?: string | string[] }
}
interface Shared {
  readyState: string
  apply(): void
  dispose(): void
  on(event: 'connection', listener: (e: ConnectionEvent) => void): unknown
  off(event: 'connection', listener: (e: ConnectionEvent) => void): unknown
}

const SYMBOL = Symbol.for('websocket-interceptor')
const g = globalThis as Record<symbol, unknown> & { WebSocket?: new (url: string, protocols?: string[]) => Socketish }
const decoder = new TextDecoder()

/**
 * Offer every socket the global `WebSocket` opens to `router()` (when there is one), until the
 * returned detach. Returns `undefined`, doing nothing, where there is no global `WebSocket` (Node 20
 * without `--experimental-websocket`).
 * @example
 * const detach = attachWebSocket(() => router.socket)
 */
export function attachWebSocket(router: () => SocketRouter | undefined): (() => void) | undefined {
  if (typeof g.WebSocket !== 'function') return undefined
  // @note another library's WebSocket interceptor (the app's msw `ws.link()`) decides itself which sockets go to
  // their server (`server.connect()`): a second listener connecting them too would open each twice. fluxlab stays
  // off it (asked again at the next acquire), and such sockets meet the undici seams as before.
  if (g[SYMBOL]) return undefined
  // The class under the interceptor's proxy: the one a recording opens its real sockets with.
  const Real = g.WebSocket
  const own = new WebSocketInterceptor() as unknown as Shared
  own.apply()
  if (own.readyState !== 'APPLIED') return undefined
  // Issue 24: the next jest test file may have to dispose it.
  keepForTakeover(own)
  const listener = ({ client, server, info }: ConnectionEvent): void => {
    const take = router()
    const protocols = info.protocols === undefined ? [] : typeof info.protocols === 'string' ? [info.protocols] : [...info.protocols]
    const connection: SocketConnection = {
      url: new URL(client.url),
      protocols,
      send: (data) => client.send(data),
      close: (code, reason) => client.close(code, reason),
      onFrame: (l) => client.addEventListener('message', (e) => l(frameText((e as MessageEvent).data))),
      onClose: (l) => client.addEventListener('close', () => l()),
      openReal: (url, p) => realSocket(unrouted(() => new Real(url.href, p))),
    }
    // @note a listener on the interceptor makes every socket a mocked one: a socket fluxlab leaves goes to its server
    // through the interceptor's own `server.connect()` (frames both ways are forwarded by it), as without fluxlab.
    if (!take?.(connection)) server.connect()
  }
  own.on('connection', listener)
  return () => {
    own.off('connection', listener)
    own.dispose()
  }
}

function realSocket(socket: Socketish): RealSocket {
  // @note a binary frame arrives as bytes (not a Blob, which could only be read asynchronously and out of order): kept as its text.
  socket.binaryType = 'arraybuffer'
  const opened = new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true })
    socket.addEventListener('error', (e) => reject(new Error(`WebSocket failed to open: ${String((e as ErrorEvent).message ?? 'connection error')}`)), {
      once: true,
    })
  })
  opened.catch(() => {})
  return {
    opened,
    send: (data) => socket.send(data),
    close: () => socket.close(),
    onMessage: (l) => socket.addEventListener('message', (e) => l(frameText((e as MessageEvent).data))),
    onClose: (l) => socket.addEventListener('close', (e) => l((e as CloseEvent).code, (e as CloseEvent).reason)),
  }
}

function frameText(data: unknown): string {
  if (typeof data === 'string') return data
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) return decoder.decode(data as ArrayBuffer)
  return String(data)
}

/**
 * WebSockets opened with the global `WebSocket` class, through `@mswjs/interceptors`' WebSocket
 * interceptor (the one msw's `ws.link()` uses): each new socket is offered to `admit`, and the
 * admission's `socket` takes it (its frames are then fluxlab's: recorded or replayed) or none does,
 * and a socket left goes to its server as it would without fluxlab. The `ws` package and undici's
 * own WebSocket class are not the global one and are not seen here (an undici upgrade to a provider
 * host is refused by `./undici.ts`).
 */
import { interceptorClasses } from './interceptors.js'
import { keepForTakeover } from './process-hold.js'
import { ownSends, type Admit, type RealSocket, type SocketConnection } from './source.js'

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
 * Offer every socket the global `WebSocket` opens to `admit` (as its opening, `POST <url>`), until the
 * returned detach. Returns `undefined`, doing nothing, where there is no global `WebSocket` (Node 20
 * without `--experimental-websocket`).
 * @example
 * const detach = attachWebSocket(admit)
 */
export function attachWebSocket(admit: Admit): (() => void) | undefined {
  if (typeof g.WebSocket !== 'function') return undefined
  // @note another library's WebSocket interceptor (the app's msw `ws.link()`) decides itself which sockets go to
  // their server (`server.connect()`): a second listener connecting them too would open each twice. fluxlab stays
  // off it (asked again at the next acquire), and such sockets meet the undici seams as before.
  if (g[SYMBOL]) return undefined
  // The class under the interceptor's proxy: the one a recording opens its real sockets with.
  const Real = g.WebSocket
  const own = new (interceptorClasses().WebSocketInterceptor)() as unknown as Shared
  own.apply()
  if (own.readyState !== 'APPLIED') return undefined
  // Issue 24: the next jest test file may have to dispose it.
  keepForTakeover(own)
  const listener = ({ client, server, info }: ConnectionEvent): void => {
    const protocols = info.protocols === undefined ? [] : typeof info.protocols === 'string' ? [info.protocols] : [...info.protocols]
    const connection: SocketConnection = {
      url: new URL(client.url),
      protocols,
      send: (data) => client.send(data),
      close: (code, reason) => client.close(code, reason),
      onFrame: (l) => client.addEventListener('message', (e) => l(frameText((e as MessageEvent).data))),
      onClose: (l) => client.addEventListener('close', () => l()),
      openReal: (url, p) => realSocket(ownSends.run(true, () => new Real(url.href, p))),
    }
    // @note a listener on the interceptor makes every socket a mocked one: a socket fluxlab leaves goes to its server
    // through the interceptor's own `server.connect()` (frames both ways are forwarded by it), as without fluxlab.
    const take = admit(new Request(connection.url, { method: 'POST' }), { via: 'websocket' })?.socket
    if (take) take(connection)
    else server.connect()
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

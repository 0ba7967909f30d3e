/**
 * The CLI's side of `record`/`replay`: a loopback HTTP server that takes the requests the program's
 * preload intercepted, hands each to the session, and streams the answer back as frames.
 */
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { encodeFrame, FRAME, type ForwardedRequest } from '../interceptor/frames.js'

/** Headers that describe one hop (or the forwarding itself), not the program's request. */
const HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect', 'te', 'trailer', 'proxy-connection', 'content-length', 'x-msw-intention'])

export interface ControlServer {
  /** `http://127.0.0.1:<port>`: the preload's `FLUX_CONTROL_URL`. */
  url: string
  /** Sent by the preload in `x-flux-token`; anything else on the port is refused. */
  token: string
  /** Requests received so far. */
  readonly requests: number
  close(): Promise<void>
}

/**
 * Start the control server on 127.0.0.1 (ephemeral port).
 * @example
 * const control = await startControl((req) => run.handle(req))
 * spawn(cmd, args, { env: { FLUX_CONTROL_URL: control.url, FLUX_CONTROL_TOKEN: control.token } })
 */
export async function startControl(handle: (request: Request) => Promise<Response>): Promise<ControlServer> {
  const token = randomBytes(16).toString('hex')
  let requests = 0
  const server = createServer((req, res) => {
    if (req.headers['x-flux-token'] !== token || req.method !== 'POST') {
      res.writeHead(403).end()
      return
    }
    requests++
    void serve(req, res, handle)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    get requests() {
      return requests
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

async function serve(req: IncomingMessage, res: ServerResponse, handle: (request: Request) => Promise<Response>): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/x-fluxlab-frames', 'cache-control': 'no-store' })
  try {
    const fwd = JSON.parse((await readAll(req)).toString('utf8')) as ForwardedRequest
    const headers = new Headers()
    for (const [k, v] of fwd.headers) if (!HOP.has(k.toLowerCase())) headers.append(k, v)
    const body = fwd.body === null || fwd.method === 'GET' || fwd.method === 'HEAD' ? undefined : Buffer.from(fwd.body, 'base64')
    const response = await handle(new Request(fwd.url, { method: fwd.method, headers, body }))
    if (response.type === 'error') {
      res.end(encodeFrame(FRAME.error, JSON.stringify({ message: 'network error' })))
      return
    }
    res.write(encodeFrame(FRAME.head, JSON.stringify({ status: response.status, statusText: response.statusText, headers: [...response.headers] })))
    if (response.body) {
      const reader = response.body.getReader()
      res.on('close', () => void reader.cancel().catch(() => {}))
      try {
        for (;;) {
          const { done, value } = await reader.read()
          if (done) break
          if (value?.byteLength && !res.destroyed) res.write(encodeFrame(FRAME.data, value))
        }
      } catch (e) {
        const err = e as Error & { cause?: { message?: string; code?: string } }
        res.end(encodeFrame(FRAME.error, JSON.stringify({ message: err.cause?.message ?? err.message, code: err.cause?.code })))
        return
      }
    }
    res.end(encodeFrame(FRAME.end))
  } catch (e) {
    if (!res.destroyed) res.end(encodeFrame(FRAME.error, JSON.stringify({ message: String((e as Error)?.message ?? e) })))
  }
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

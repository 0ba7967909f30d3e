import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { createServer as createTcpServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { readyTarget, untilReady } from './ready.js'

const servers: Array<{ close(): unknown }> = []
afterEach(async () => {
  for (const s of servers.splice(0)) {
    ;(s as Server).closeAllConnections?.()
    await new Promise((r) => (s as Server).close(r))
  }
})

/** A node:http server on a free port, with every request it got. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void, make: (h: typeof handler) => Server = createServer) {
  const seen: string[] = []
  const server = make((req, res) => {
    seen.push(`${req.method} ${req.url}`)
    handler(req, res)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  servers.push(server)
  return { port: (server.address() as AddressInfo).port, seen }
}

/** Whether `untilReady` says ready within `ms` (false: it was still checking when the time ran out). */
async function readyWithin(value: string, ms: number, ignoreHTTPSErrors = false): Promise<boolean> {
  const target = readyTarget(value, ignoreHTTPSErrors)
  if ('error' in target) throw new Error(target.error)
  const stop = new AbortController()
  const timer = setTimeout(() => stop.abort(), ms)
  try {
    return await untilReady(target, stop.signal)
  } finally {
    clearTimeout(timer)
  }
}

const status =
  (code: number, headers: Record<string, string> = {}) =>
  (_: IncomingMessage, res: ServerResponse) =>
    res.writeHead(code, headers).end()

describe('readyTarget', () => {
  it('reads a port or an http(s) URL, and names what it takes otherwise', () => {
    expect(readyTarget('3000', false)).toEqual({ port: 3000 })
    expect(readyTarget('https://localhost:3000/health', true)).toEqual({ url: new URL('https://localhost:3000/health'), ignoreHTTPSErrors: true })
    expect(readyTarget('70000', false)).toEqual({ error: '--ready 70000 is no port (1 to 65535)' })
    expect(readyTarget('localhost:3000', false)).toEqual({
      error: '--ready takes the webServer\'s `url` (http://127.0.0.1:3000/health) or its `port` (3000), not "localhost:3000"',
    })
  })
})

describe("untilReady, on Playwright's rule (playwright-core's isURLAvailable)", () => {
  it('is ready on 200 to 403 and not on 404 or 500', async () => {
    for (const code of [200, 204, 401, 403])
      expect(await readyWithin(`http://127.0.0.1:${(await serve(status(code))).port}/health`, 2000), String(code)).toBe(true)
    for (const code of [404, 500, 503]) expect(await readyWithin(`http://127.0.0.1:${(await serve(status(code))).port}/health`, 300), String(code)).toBe(false)
  })

  it('checks /index.html after a 404 at /, and only at /', async () => {
    const app = await serve((req, res) => res.writeHead(req.url === '/index.html' ? 200 : 404).end())
    expect(await readyWithin(`http://127.0.0.1:${app.port}/`, 2000)).toBe(true)
    expect(app.seen).toEqual(['GET /', 'GET /index.html'])
    expect(await readyWithin(`http://127.0.0.1:${app.port}/health`, 300)).toBe(false)
    expect(app.seen).not.toContain('GET /health/index.html')
  })

  it('follows a redirect and judges where it lands (a loop is never ready); a 3xx without a location is ready', async () => {
    const app = await serve((req, res) =>
      req.url === '/'
        ? res.writeHead(302, { location: '/up' }).end()
        : req.url === '/up'
          ? res.writeHead(200).end()
          : res.writeHead(302, { location: '/missing' }).end(),
    )
    expect(await readyWithin(`http://127.0.0.1:${app.port}/`, 2000)).toBe(true)
    expect(app.seen).toEqual(['GET /', 'GET /up'])
    app.seen.length = 0
    expect(await readyWithin(`http://127.0.0.1:${app.port}/other`, 300)).toBe(false)
    expect(app.seen.slice(0, 2)).toEqual(['GET /other', 'GET /missing'])
    expect(await readyWithin(`http://127.0.0.1:${(await serve(status(304))).port}/`, 2000)).toBe(true)
  })

  it('says ready only once a server listens, a few tens of ms after, and asks nothing more then', async () => {
    const port = (await serve(status(200))).port
    servers.pop()!.close()
    await new Promise((r) => setTimeout(r, 50))
    const started = Date.now()
    let listened = 0
    const seen: number[] = []
    setTimeout(() => {
      const late = createServer((_, res) => (seen.push(Date.now()), res.end('ok')))
      late.listen(port, '127.0.0.1', () => (listened = Date.now()))
      servers.push(late)
    }, 300)
    expect(await readyWithin(`http://127.0.0.1:${port}/`, 5000)).toBe(true)
    const ready = Date.now()
    expect(listened, 'the server listened before it was called ready').toBeGreaterThan(started)
    expect(ready - listened).toBeLessThan(250)
    await new Promise((r) => setTimeout(r, 200))
    expect(seen).toHaveLength(1)
  })

  it('checks at once when the tree says a server started listening, not at its next pause (issue 39)', async () => {
    const port = (await serve(status(200))).port
    servers.pop()!.close()
    const listening = new EventTarget()
    const stop = new AbortController()
    const timer = setTimeout(() => stop.abort(), 20_000)
    // a pause of a minute between checks: only the word brings the next one
    const pending = untilReady({ url: new URL(`http://127.0.0.1:${port}/`), ignoreHTTPSErrors: false }, stop.signal, listening, 60_000)
    await new Promise((r) => setTimeout(r, 100))
    const late = createServer((_, res) => res.end('ok'))
    servers.push(late)
    await new Promise<void>((r) => late.listen(port, '127.0.0.1', r))
    const said = Date.now()
    listening.dispatchEvent(new Event('listening'))
    expect(await pending).toBe(true)
    clearTimeout(timer)
    expect(Date.now() - said).toBeLessThan(5000)
  })

  it('stops with false when the signal aborts (the server exited), a check in flight included', async () => {
    // a server that accepts the connection and never answers
    const app = await serve(() => {})
    const stop = new AbortController()
    const pending = untilReady({ url: new URL(`http://127.0.0.1:${app.port}/`), ignoreHTTPSErrors: false }, stop.signal)
    await new Promise((r) => setTimeout(r, 100))
    stop.abort()
    expect(await pending).toBe(false)
  })

  it('checks a `port` entry by a TCP connection alone, as Playwright does: the server gets no request', async () => {
    const connections: number[] = []
    const tcp = createTcpServer((socket) => (connections.push(1), socket.on('data', () => connections.push(2))))
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r))
    servers.push(tcp)
    expect(await readyWithin(String((tcp.address() as AddressInfo).port), 2000)).toBe(true)
    await new Promise((r) => setTimeout(r, 50))
    expect(connections).toEqual([1])
  })

  const openssl = (() => {
    try {
      execFileSync('openssl', ['version'], { stdio: 'ignore' })
      return true
    } catch {
      return false
    }
  })()
  it.skipIf(!openssl)("rejects a self-signed certificate unless told to ignore HTTPS errors (the entry's ignoreHTTPSErrors)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flux-ready-'))
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=localhost',
          '-keyout',
          join(dir, 'key.pem'),
          '-out',
          join(dir, 'cert.pem'),
        ],
        { stdio: 'ignore' },
      )
      const tls = { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }
      const app = await serve(status(200), (h) => createHttpsServer(tls, h))
      expect(await readyWithin(`https://127.0.0.1:${app.port}/`, 300)).toBe(false)
      expect(await readyWithin(`https://127.0.0.1:${app.port}/`, 2000, true)).toBe(true)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

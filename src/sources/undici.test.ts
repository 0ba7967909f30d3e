import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { Client, getGlobalDispatcher, request } from 'undici'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { acquireInterception, liveFetch, type Admit } from './index.js'

/** A run's answer to each request it takes (`claims`: which those are; default every one). */
type Router = ((request: Request) => Promise<Response | undefined>) & { claims?(method: string, url: URL): boolean }

const GLOBAL = Symbol.for('undici.globalDispatcher.1')
const g = globalThis as Record<symbol, unknown>

interface Seen {
  method?: string
  url?: string
  headers: IncomingHttpHeaders
  body: string
}

let server: Server
let base: string
let seen: Seen[]
let connections: number

beforeEach(async () => {
  seen = []
  connections = 0
  server = createServer((req, res) => {
    const parts: Buffer[] = []
    req.on('data', (c: Buffer) => parts.push(c))
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(parts).toString('utf8') })
      res.writeHead(200, { 'content-type': 'text/plain', 'x-from': 'server' }).end('from the server')
    })
  })
  server.on('connection', () => connections++)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

const releases: Array<(options?: { now?: boolean }) => void> = []
afterEach(async () => {
  // At once, not a turn later: the next test starts from no interception.
  for (const release of releases.splice(0).reverse()) release({ now: true })
  await new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r())))
})

function intercept(router: Router): void {
  const admit: Admit = (request) =>
    request && (router.claims?.(request.method, new URL(request.url)) ?? true) ? { preempts: false, answer: () => router(request) } : undefined
  releases.push(acquireInterception(admit))
}

const post = (path: string) => request(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-app': 'a' }, body: '{"q":1}' })

describe('the undici global dispatcher under interception', () => {
  test('answers an undici request from the router, which sees the method, URL, headers and body', async () => {
    const asked: Array<{ method: string; url: string; app: string | null; body: string }> = []
    intercept(async (req) => {
      asked.push({ method: req.method, url: req.url, app: req.headers.get('x-app'), body: await req.text() })
      return new Response('from the router', { status: 201, headers: { 'x-from': 'router' } })
    })
    const res = await post('/v1/chat/completions?x=1')
    expect([res.statusCode, res.headers['x-from'], await res.body.text()]).toEqual([201, 'router', 'from the router'])
    expect(asked).toEqual([{ method: 'POST', url: `${base}/v1/chat/completions?x=1`, app: 'a', body: '{"q":1}' }])
    expect(seen).toEqual([])
  })

  test('hands a request the router declines to the original dispatcher, body and headers intact', async () => {
    let asked = 0
    intercept(async () => void asked++)
    const res = await post('/declined')
    expect([res.statusCode, res.headers['x-from'], await res.body.text()]).toEqual([200, 'server', 'from the server'])
    expect(asked).toBe(1)
    expect(seen.map((s) => [s.method, s.url, s.headers['x-app'], s.headers['content-type'], s.body])).toEqual([
      ['POST', '/declined', 'a', 'application/json', '{"q":1}'],
    ])
  })

  test('never asks the router about a request its route does not claim', async () => {
    const asked: string[] = []
    intercept(
      Object.assign(async (req: Request) => (asked.push(new URL(req.url).pathname), new Response('from the router')), {
        claims: (_m: string, url: URL) => url.pathname !== '/unclaimed',
      }),
    )
    expect(await (await post('/claimed')).body.text()).toBe('from the router')
    expect(await (await post('/unclaimed')).body.text()).toBe('from the server')
    expect(asked).toEqual(['/claimed'])
    expect(seen.map((s) => [s.url, s.body])).toEqual([['/unclaimed', '{"q":1}']])
  })

  test("does not route fluxlab's own live requests back into the router", async () => {
    let asked = 0
    intercept(async (req) => {
      asked++
      return liveFetch(req)
    })
    const res = await post('/live')
    expect(await res.body.text()).toBe('from the server')
    expect(asked).toBe(1)
    expect(seen.map((s) => s.body)).toEqual(['{"q":1}'])
  })

  test('feeds a handler of the undici 7 API chunk by chunk, and waits while it is paused', async () => {
    intercept(async () => {
      const parts = ['data: 1\n\n', 'data: 2\n\n', 'data: 3\n\n']
      const body = new ReadableStream<Uint8Array>({
        pull(c) {
          const next = parts.shift()
          if (next) c.enqueue(new TextEncoder().encode(next))
          else c.close()
        },
      })
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
    })
    const events: string[] = []
    await new Promise<void>((resolve, reject) => {
      getGlobalDispatcher().dispatch(
        { origin: base, path: '/v1/chat/completions', method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
        {
          onRequestStart: () => void events.push('start'),
          onResponseStart: (_c, status, headers) => void events.push(`${status} ${headers['content-type']}`),
          onResponseData: (controller, chunk) => {
            events.push(chunk.toString())
            if (events.length === 3) {
              controller.pause()
              setTimeout(() => (events.push('resume'), controller.resume()), 30)
            }
          },
          onResponseEnd: () => (events.push('end'), resolve()),
          onResponseError: (_c, e) => reject(e),
        },
      )
    })
    expect(events).toEqual(['start', '200 text/event-stream', 'data: 1\n\n', 'resume', 'data: 2\n\n', 'data: 3\n\n', 'end'])
  })

  test('routes the dispatchers of an undici copy loaded after interception started, before they connect, once interception is acquired again', async () => {
    const router: Router = async () => new Response('from the router')
    intercept(router)
    // a second copy of the package (undici 6, as Node 20 bundles), loaded after interception started
    const late = createRequire(import.meta.url)(
      join(process.cwd(), 'node_modules/@ai-sdk/provider-utils/node_modules/undici/index.js'),
    ) as typeof import('undici')
    intercept(router)
    const agent = new late.Agent()
    try {
      expect(await (await late.request(`${base}/late`, { dispatcher: agent })).body.text()).toBe('from the router')
      expect(await (await late.request(`${base}/late`)).body.text()).toBe('from the router')
      expect([connections, seen]).toEqual([0, []])
    } finally {
      await agent.close()
    }
  })

  test('routes a copy loaded after files were removed from the module cache (the cache is read whole again then)', async () => {
    const router: Router = async () => new Response('from the router')
    intercept(router)
    const req = createRequire(import.meta.url)
    // @note issue 28: each acquire reads only the files added to the cache since the last one. Removing files before
    // that point (a module registry reset) shifts the rest, so reading on from the old count would skip as many of
    // the new ones: here the whole copy (its dispatcher-base.js is among its first files).
    const removed = Object.entries(req.cache).slice(0, 100)
    for (const [f] of removed) delete req.cache[f]
    try {
      const copy = join(process.cwd(), 'node_modules/@ai-sdk/google/node_modules/undici')
      const late = req(join(copy, 'index.js')) as typeof import('undici')
      const dispatcherBase = req(join(copy, 'lib/dispatcher/dispatcher-base.js')) as { prototype: { dispatch: unknown } }
      const original = dispatcherBase.prototype.dispatch
      intercept(router)
      // patched by the acquire itself, before any request (a request would also be caught on undici's channel)
      expect(dispatcherBase.prototype.dispatch).not.toBe(original)
      const agent = new late.Agent()
      try {
        expect(await (await late.request(`${base}/late`, { dispatcher: agent })).body.text()).toBe('from the router')
        expect([connections, seen]).toEqual([0, []])
      } finally {
        await agent.close()
      }
    } finally {
      for (const [f, m] of removed) req.cache[f] = m
    }
  })

  test('answers a Client composed before interception started when undici creates its request (its connection still opens)', async () => {
    const client = new Client(base)
    const composed = client.compose((dispatch) => (opts, handler) => dispatch(opts, handler))
    intercept(async () => new Response('from the router'))
    try {
      expect(await (await request(`${base}/composed`, { dispatcher: composed })).body.text()).toBe('from the router')
      expect(seen).toEqual([])
      expect(connections).toBe(1)
    } finally {
      await client.close()
    }
  })

  test('puts the original global dispatcher back when interception ends (a turn after the last release)', async () => {
    const before = g[GLOBAL]
    const release = acquireInterception(() => undefined)
    expect(g[GLOBAL]).not.toBe(before)
    release()
    await new Promise((r) => setImmediate(r))
    expect(g[GLOBAL]).toBe(before)
  })
})

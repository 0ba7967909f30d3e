/**
 * Issue 40 item 2: every request source is a `RequestSource` in `./registry.ts`, and each asks the layer above one
 * question, `admit(request, origin)`. One acquire enables them all; the last release disposes them in reverse.
 */
import { spawn } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { request } from 'undici'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { acquireInterception, liveFetch, type Admit, type Origin } from './index.js'
import { sources } from './registry.js'

let server: Server
let base: string
beforeAll(async () => {
  server = createServer((_req, res) => res.end('from the server'))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))

test('every source of the registry has a name of its own', () => {
  const names = sources(liveFetch).map((s) => s.name)
  expect(new Set(names).size).toBe(names.length)
  expect(names).toEqual(expect.arrayContaining(['interceptors', 'undici', 'websocket', 'child', 'worker']))
})

test('each source asks admit, with its origin: fetch, undici and a child process started while it is held', async () => {
  const asked: Array<{ url?: string } & Origin> = []
  const admit: Admit = (req, origin) => {
    asked.push({ ...origin, ...(req ? { url: new URL(req.url).pathname } : {}) })
    return req && { preempts: false, answer: async () => new Response(`answered ${origin.via}`) }
  }
  const release = acquireInterception(admit)
  try {
    expect(await (await fetch(`${base}/a`)).text()).toBe('answered fetch')
    expect(await (await request(`${base}/b`)).body.text()).toBe('answered undici')
    await new Promise((r) => spawn(process.execPath, ['-e', '0']).on('exit', r))
  } finally {
    release({ now: true })
  }
  expect(asked).toEqual([
    { via: 'fetch', url: '/a' },
    // undici asks with the head first (synchronously, before it reads the body), then with the whole request
    { via: 'undici', url: '/b' },
    { via: 'undici', url: '/b' },
    { via: 'child', process: `${process.execPath} -e 0` },
  ])
  // Released: every source is disposed, and a request reaches its server untouched.
  expect(await (await fetch(`${base}/c`)).text()).toBe('from the server')
})

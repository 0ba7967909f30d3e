/**
 * Issue 14: interception lingers for one turn of the event loop after its last holder lets go, so back-to-back
 * runs reuse the patches rather than undo and redo them per run. While it lingers nothing is routed, and after
 * that turn every patch is undone; `now` undoes them at once (a jest environment about to be torn down).
 */
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { acquireInterception, type Admit } from './index.js'

let server: Server
let base: string
let hits = 0
beforeAll(async () => {
  server = createServer((_req, res) => {
    hits++
    res.end('from the server')
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))))

const turn = () => new Promise<void>((r) => setImmediate(r))
const answered: Admit = (request) => request && { preempts: false, answer: async () => new Response('from the router') }
const pristine = { fetch: globalThis.fetch, request: httpRequest }
const httpGet = (url: string) =>
  new Promise<string>((resolve, reject) => {
    const req = httpRequest(url, (res) => {
      let text = ''
      res.on('data', (c: Buffer) => (text += c))
      res.on('end', () => resolve(text))
    })
    req.on('error', reject)
    req.end()
  })

test('released, the patches stay for the rest of the turn, routing nothing; then every one is undone', async () => {
  let routed = 0
  const release = acquireInterception((r, o) => (routed++, answered(r, o)))
  expect(await (await fetch(`${base}/a`)).text()).toBe('from the router')
  const patched = globalThis.fetch
  expect(patched).not.toBe(pristine.fetch)
  release()
  // Same turn: still patched, but a request passes untouched to the network.
  expect(globalThis.fetch).toBe(patched)
  const before = hits
  const text = await fetch(`${base}/b`).then((r) => r.text())
  expect([text, hits - before, routed]).toEqual(['from the server', 1, 1])
  await turn()
  await turn()
  expect(globalThis.fetch).toBe(pristine.fetch)
  expect(await httpGet(`${base}/c`)).toBe('from the server')
  expect(routed).toBe(1)
})

test('acquired again within the turn, the same patches serve the next holder', async () => {
  const first = acquireInterception(answered)
  const patched = globalThis.fetch
  first()
  const second = acquireInterception(answered)
  expect(globalThis.fetch).toBe(patched)
  await turn()
  await turn()
  // The second holder still has them (the pending undo was called off).
  expect(globalThis.fetch).toBe(patched)
  expect(await (await fetch(`${base}/d`)).text()).toBe('from the router')
  expect(await httpGet(`${base}/e`)).toBe('from the router')
  second({ now: true })
  expect(globalThis.fetch).toBe(pristine.fetch)
})

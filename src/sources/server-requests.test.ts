import { EventEmitter } from 'node:events'
import { describe, expect, test } from 'vitest'
import { attachServerRequests, encodeRunAddress, isForwardedRequest, requestRun, RUN_COOKIE, RUN_HEADER } from './server-requests.js'

const address = { path: '/tmp/fluxlab-tree-1.sock', token: '0123456789abcdef0123456789abcdef' }
const id = encodeRunAddress(address)

describe('attachServerRequests', () => {
  test("handles a request that carries a run's address (header or cookie) inside it, and any other outside every run", () => {
    class Server extends EventEmitter {}
    const undo = attachServerRequests([Server.prototype as never])
    const seen: unknown[] = []
    const server = new Server().on('request', () => seen.push(requestRun.getStore()))
    server.emit('request', { headers: { [RUN_HEADER]: id } })
    server.emit('request', { headers: { cookie: `theme=dark; ${RUN_COOKIE}=${id}` } })
    server.emit('request', { headers: {} })
    server.emit('request', { headers: { [RUN_HEADER]: 'not-an-address' } })
    undo()
    server.emit('request', { headers: { [RUN_HEADER]: id } })
    expect(seen).toEqual([address, address, undefined, undefined, undefined])
  })

  test("gives a request that carries no address the process's own, so a forward of it is recognised as one", () => {
    class Server extends EventEmitter {}
    const own = { path: '/tmp/fluxlab-tree-2.sock', token: 'fedcba9876543210fedcba9876543210' }
    const undo = attachServerRequests([Server.prototype as never], own)
    const health = { headers: {} as Record<string, string> }
    const tested = { headers: { [RUN_HEADER]: id } }
    new Server().emit('request', health)
    new Server().emit('request', tested)
    undo()
    expect(health.headers[RUN_HEADER]).toBe(encodeRunAddress(own))
    expect(tested.headers[RUN_HEADER]).toBe(id)
    expect(isForwardedRequest(new Request('http://127.0.0.1:4100/api/health', { headers: health.headers }))).toBe(true)
  })
})

test('says when a server starts listening, and only then (issue 39: serve checks `--ready` at once)', () => {
  class Server extends EventEmitter {}
  let heard = 0
  const undo = attachServerRequests([Server.prototype as never], undefined, () => heard++)
  const server = new Server()
  server.emit('request', { headers: {} })
  server.emit('close')
  expect(heard).toBe(0)
  server.emit('listening')
  undo()
  server.emit('listening')
  expect(heard).toBe(1)
})

describe('isForwardedRequest', () => {
  test("is true for a request to a loopback server that carries a run's address, as a router's forward to its worker does", () => {
    expect(isForwardedRequest(new Request('http://127.0.0.1:4100/api/chat?q=x', { headers: { [RUN_HEADER]: id } }))).toBe(true)
    expect(isForwardedRequest(new Request('http://localhost:4100/', { headers: { cookie: `${RUN_COOKIE}=${id}` } }))).toBe(true)
    expect(isForwardedRequest(new Request('http://[::1]:4100/', { headers: { [RUN_HEADER]: id } }))).toBe(true)
  })

  test('is false for another host whatever it carries, and for a loopback request without a valid address', () => {
    expect(isForwardedRequest(new Request('https://api.example.com/v1/search', { headers: { [RUN_HEADER]: id } }))).toBe(false)
    expect(isForwardedRequest(new Request('http://127.0.0.1:4010/geo/capital?country=UK'))).toBe(false)
    expect(isForwardedRequest(new Request('http://127.0.0.1:4010/', { headers: { [RUN_HEADER]: 'bm90IGFuIGFkZHJlc3M' } }))).toBe(false)
  })
})

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { forwardOverSocket, serveOverSocket, treeSocketPath } from './tree-wire.js'

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))

/** The parent's end of a tree socket, answering each request with `answer`; what it was sent is kept. */
function parent(answer: (request: Request) => Promise<Response | undefined>) {
  const dir = mkdtempSync(join(tmpdir(), 'flux-wire-'))
  dirs.push(dir)
  const path = treeSocketPath(dir, 'tree')
  const bodies: string[] = []
  const server = serveOverSocket(path, async (_head, request) => {
    bodies.push(await request.clone().text())
    return answer(request)
  })
  return { path, bodies, close: () => server.close() }
}

describe('forwardOverSocket', () => {
  test('on "pass" leaves the request whole, so the child can send it itself, body and all', async () => {
    const p = parent(async () => undefined)
    try {
      const request = new Request('http://127.0.0.1:8001/mcp', { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' })
      expect(await forwardOverSocket(p.path, 'token', request)).toBeUndefined()
      expect(p.bodies).toEqual(['{"jsonrpc":"2.0","id":1,"method":"tools/list"}'])
      // what the child sends now (an own server of the tree: not the tape's)
      expect(request.bodyUsed).toBe(false)
      expect(await request.text()).toBe('{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
    } finally {
      p.close()
    }
  })

  test("streams the parent's answer back", async () => {
    const p = parent(async (request) => new Response(`got ${await request.text()}`, { status: 201 }))
    try {
      const response = await forwardOverSocket(p.path, 'token', new Request('http://api.example.com/x', { method: 'POST', body: 'ping' }))
      expect(response?.status).toBe(201)
      expect(await response?.text()).toBe('got ping')
    } finally {
      p.close()
    }
  })
})

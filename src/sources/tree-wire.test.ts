import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { networkErrorOf } from './refused-network.js'
import type { LiveSender } from './tree-live.js'
import { forwardOverSocket, helloOverSocket, serveOverSocket, treeSocketPath } from './tree-wire.js'

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))

/** The parent's end of a tree socket, answering each request with `answer`; what it was sent is kept. */
function parent(answer: (request: Request, live: LiveSender) => Promise<Response | undefined>) {
  const dir = mkdtempSync(join(tmpdir(), 'flux-wire-'))
  dirs.push(dir)
  const path = treeSocketPath(dir, 'tree')
  const bodies: string[] = []
  const server = serveOverSocket(path, async (_head, request, live) => {
    bodies.push(await request.clone().text())
    return answer(request, live)
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

describe('forwardOverSocket, when the tape goes live (issue 39)', () => {
  test('the child sends the request itself, to where the tape says, and each chunk reaches its client as the child gets it', async () => {
    const sentBy: string[] = []
    const seen: string[] = []
    // The tape sends it live (to its upstream) and answers with what came back, chunk by chunk.
    const p = parent(async (request, live) => {
      const res = await live(new Request('http://upstream.test/v1/x', { method: 'POST', body: await request.text() }))
      return new Response(res.body, { status: res.status, headers: { 'x-tape': res.headers.get('x-child') ?? '' } })
    })
    let release!: () => void
    const second = new Promise<void>((resolve) => (release = resolve))
    try {
      const response = await forwardOverSocket(
        p.path,
        'token',
        new Request('http://api.example.com/x', { method: 'POST', body: 'ping' }),
        async (url, body) => {
          sentBy.push(`${url} ${Buffer.from(body ?? []).toString()}`)
          const stream = new ReadableStream<Uint8Array>({
            async start(c) {
              c.enqueue(new TextEncoder().encode('one '))
              await second
              c.enqueue(new TextEncoder().encode('two'))
              c.close()
            },
          })
          return new Response(stream, { status: 200, headers: { 'x-child': 'yes' } })
        },
      )
      expect(sentBy).toEqual(['http://upstream.test/v1/x ping'])
      expect(response?.headers.get('x-tape')).toBe('yes')
      const reader = response!.body!.getReader()
      // the first chunk arrives while the child's upstream still holds the second
      seen.push(new TextDecoder().decode((await reader.read()).value))
      release()
      for (let r = await reader.read(); !r.done; r = await reader.read()) seen.push(new TextDecoder().decode(r.value))
      expect(seen).toEqual(['one ', 'two'])
    } finally {
      release()
      p.close()
    }
  })

  test("a client that gives up mid-stream aborts the tape's request, and the tape's copy of the live body breaks rather than ends", async () => {
    let signal: AbortSignal | undefined
    let tapeRead: Promise<string> | undefined
    const p = parent(async (request, live) => {
      signal = request.signal
      const [mine, theirs] = (await live(request)).body!.tee()
      tapeRead = new Response(mine).text().then(
        (t) => `ended: ${t}`,
        (e: Error) => `broke: ${e.message}`,
      )
      return new Response(theirs)
    })
    try {
      const response = await forwardOverSocket(p.path, 'token', new Request('http://api.example.com/x'), async () => {
        // one chunk, then the upstream holds the rest
        const stream = new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new TextEncoder().encode('one ')) })
        return new Response(stream)
      })
      const reader = response!.body!.getReader()
      expect(new TextDecoder().decode((await reader.read()).value)).toBe('one ')
      await reader.cancel()
      expect(await tapeRead).toBe('broke: terminated')
      expect(signal?.aborted).toBe(true)
    } finally {
      p.close()
    }
  })

  test("a send that fails in the child fails the tape's live call with the child's system error, and the client with the very error", async () => {
    let tapeSaw: unknown
    const p = parent(async (request, live) => {
      try {
        await live(request)
      } catch (e) {
        tapeSaw = e
      }
      return Response.error()
    })
    const refused = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
    })
    try {
      const response = await forwardOverSocket(p.path, 'token', new Request('http://api.example.com/x'), () => Promise.reject(refused))
      expect(tapeSaw).toBeInstanceOf(TypeError)
      expect((tapeSaw as Error).message).toBe('fetch failed')
      expect((tapeSaw as Error).cause).toMatchObject({ message: 'connect ECONNREFUSED 127.0.0.1:9', code: 'ECONNREFUSED' })
      expect(response?.type).toBe('error')
      expect(networkErrorOf(response!)).toBe(refused)
      expect(networkErrorOf(response!, true)).toBe(refused.cause)
    } finally {
      p.close()
    }
  })
})

describe('helloOverSocket', () => {
  test('a hello that says a server started listening reaches `listening`; a plain one only `contact` (issue 39)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flux-wire-'))
    dirs.push(dir)
    const path = treeSocketPath(dir, 'tree')
    const heard: string[] = []
    const server = serveOverSocket(path, async () => undefined, { contact: (t) => heard.push(`contact ${t}`), listening: () => heard.push('listening') })
    try {
      await helloOverSocket(path, 'a')
      await helloOverSocket(path, 'b', { listening: true })
      for (let i = 0; i < 100 && heard.length < 3; i++) await new Promise((r) => setTimeout(r, 10))
      expect(heard.sort()).toEqual(['contact a', 'contact b', 'listening'])
    } finally {
      server.close()
    }
  })
})

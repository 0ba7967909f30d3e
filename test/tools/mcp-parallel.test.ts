/**
 * Issue 28 item 2: parallel MCP tool calls over streamable HTTP, with the official SDK's client and server on
 * 127.0.0.1. While recording, every message is forwarded at once: the server sees all siblings in flight together,
 * a call the server answers late holds no other one up, and a progress notification reaches the client while its
 * call is still open. On replay (the server stopped) the calls are matched by tool and arguments in whatever order
 * they arrive, and each is answered with its own recorded result under the JSON-RPC id the client sent today.
 */
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { scenario, type Outcome } from 'fluxlab'
import { matchers } from 'fluxlab/matchers'
import { expect, test } from 'vitest'
import { z } from 'zod'
import { tempDir, useEngineSandbox } from '../engine/helpers.js'

useEngineSandbox()
expect.extend(matchers)

/** How long the server takes to mark an item: the later an item is asked for, the sooner it is done; item 99 takes longest. */
const delayOf = (id: number, n: number) => (id === LATE ? 600 : (n + 1 - id) * 20)
const LATE = 99

interface ItemsServer {
  url: string
  close(): Promise<void>
}

/**
 * A real MCP server: `mark_item` reports progress when asked to, waits until all n + 1 calls of the first round have
 * arrived (so a recorder that held one call back until another was answered would hold them all up until the client's
 * timeout), then marks its item after a delay and answers with the item's id in its structured result too.
 * `wait_for_client` sends progress, then waits for `client_saw`.
 */
async function startItemsMcp(n: number, opts: { ignoreCancel?: boolean } = {}): Promise<ItemsServer> {
  const server: ItemsServer = { url: '', close: async () => {} }
  let arrived = 0
  let allThere!: () => void
  const together = new Promise<void>((r) => (allThere = r))
  const gates = new Map<string, () => void>()
  const mcp = new McpServer({ name: 'items', version: '1.0.0' })
  const item = { id: z.number(), marked: z.boolean() }
  mcp.registerTool('mark_item', { description: 'mark one item done', inputSchema: { id: z.number() }, outputSchema: item }, async ({ id }, extra) => {
    const progressToken = extra._meta?.progressToken
    if (progressToken !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: id, total: 100 } })
    if (++arrived === n + 1) allThere()
    await together
    await new Promise((r) => setTimeout(r, delayOf(id, n)))
    return { content: [{ type: 'text', text: `marked ${id}` }], structuredContent: { id, marked: true } }
  })
  mcp.registerTool(
    'wait_for_client',
    { description: 'reports progress, answers once the client saw it', inputSchema: { token: z.string() } },
    async ({ token }, extra) => {
      const seen = new Promise<void>((r) => gates.set(token, r))
      const progressToken = extra._meta?.progressToken
      if (progressToken !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: 1, total: 2 } })
      await seen
      return { content: [{ type: 'text', text: `seen ${token}` }] }
    },
  )
  mcp.registerTool('client_saw', { description: 'the client saw the progress of `token`', inputSchema: { token: z.string() } }, async ({ token }) => {
    gates.get(token)?.()
    return { content: [{ type: 'text', text: 'ok' }] }
  })
  const sessions = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() })
  await mcp.connect(sessions)
  const http = createServer(async (req, res) => {
    if (!opts.ignoreCancel || req.method !== 'POST') return void sessions.handleRequest(req, res)
    // A server that does not honour cancellation (as many do not): it answers a call the client gave up on all the same.
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { method?: string }
    if (body.method === 'notifications/cancelled') return void res.writeHead(202).end()
    void sessions.handleRequest(req, res, body)
  })
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()))
  server.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`
  server.close = async () => {
    await mcp.close()
    http.closeAllConnections()
    await new Promise<void>((r) => http.close(() => r()))
  }
  return server
}

const text = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as Array<{ text: string }>)[0].text

/**
 * The agent: connect, then mark every item at once (in the order given), each call with a short timeout as agent SDKs
 * set one, and (`progress`) a progress handler; keep what each call got and the order the answers came back in.
 */
async function markAll(url: string, ids: number[], progress: boolean) {
  const client = new Client({ name: 'agent', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  const answered: number[] = []
  const progressed: string[] = []
  try {
    const results = await Promise.all(
      ids.map(async (id) => {
        const onprogress = progress ? (p: { progress: number }) => void progressed.push(`${id}: ${p.progress}`) : undefined
        const r = await client.callTool({ name: 'mark_item', arguments: { id } }, undefined, { timeout: 5_000, onprogress })
        answered.push(id)
        return `${text(r)} ${JSON.stringify(r.structuredContent)}`
      }),
    )
    return { results, answered, progressed: progressed.sort() }
  } finally {
    await client.close()
  }
}

const expected = (ids: number[]) => ids.map((id) => `marked ${id} {"id":${id},"marked":true}`)
const toolLines = (dir: string, name: string) =>
  readFileSync(join(dir, name, 'tools.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { name: string; args: unknown; response?: { chunks: unknown[]; clientAbort?: unknown } })

function expectFaithful(out: Outcome<unknown>) {
  expect(out.divergences).toEqual([])
  expect(out).toReplayFaithfully()
  expect(out.hermetic).toBe(true)
}

for (const n of [3, 10])
  for (const progress of [false, true])
    test(`${n} parallel calls of one tool${progress ? ' with progress' : ''} and one the server answers late record at once and replay in any order`, async () => {
      const dir = tempDir()
      const name = `mcp-parallel-${n}${progress ? '-progress' : ''}`
      const server = await startItemsMcp(n)
      const ids = [...Array.from({ length: n }, (_, i) => i + 1), LATE]
      const rec = await (await scenario(name, { dir })).run(() => markAll(server.url, ids, progress))
      expect(rec.result?.results).toEqual(expected(ids))
      // nothing was held: the server had every call in flight at once (it answers none before), and the late one was answered last
      expect(rec.result?.answered.at(-1)).toBe(LATE)
      const cells = toolLines(dir, name)
      expect(cells.filter((c) => c.name === 'mcp mark_item')).toHaveLength(n + 1)
      expect(cells.map((c) => c.name)).not.toContain('mcp notifications/cancelled')
      const url = server.url
      await server.close()

      // Replay with the server gone and the calls made in another order, so their JSON-RPC ids (and progress tokens)
      // are not the recorded ones: item 1 was recorded as request 1, and is request n + 1 now.
      const other = url.replace(/:\d+\//, ':9/')
      const shuffled = [LATE, ...ids.slice(0, -1).reverse()]
      const out = await (await scenario(name, { dir })).run(() => markAll(other, shuffled, progress))
      expect(out.result?.results).toEqual(expected(shuffled))
      expect(out.result?.progressed).toEqual(rec.result?.progressed)
      expectFaithful(out)
      expect(out.calls.map((c) => (c.args as { id: number }).id).sort((a, b) => a - b)).toEqual(ids)
    }, 60_000)

test('a progress notification reaches the client while its call is still open, and replays before the result', async () => {
  const dir = tempDir()
  const server = await startItemsMcp(0)
  const agent = (url: string) => async () => {
    const client = new Client({ name: 'agent', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(url)))
    const seen: string[] = []
    let told: Promise<unknown> | undefined
    try {
      // The server answers `wait_for_client` only once the client has told it (another call) that it saw the progress:
      // a recorder that held the SSE stream of the first call until it ended would never let that happen.
      const answer = await client.callTool({ name: 'wait_for_client', arguments: { token: 't1' } }, undefined, {
        timeout: 5_000,
        onprogress: (p) => {
          seen.push(`progress ${p.progress}/${p.total}`)
          told = client.callTool({ name: 'client_saw', arguments: { token: 't1' } })
        },
      })
      seen.push(text(answer))
      await told
      return seen
    } finally {
      await client.close()
    }
  }
  const rec = await (await scenario('mcp-progress', { dir })).run(agent(server.url))
  expect(rec.result).toEqual(['progress 1/2', 'seen t1'])
  const url = server.url
  await server.close()

  const out = await (await scenario('mcp-progress', { dir })).run(agent(url.replace(/:\d+\//, ':9/')))
  expect(out.result).toEqual(['progress 1/2', 'seen t1'])
  expectFaithful(out)
}, 30_000)

test('a call the client gave up on (its timeout, then notifications/cancelled) replays as given up on, so the retry replays too', async () => {
  const dir = tempDir()
  const server = await startItemsMcp(3, { ignoreCancel: true })
  // The agent: item 99 with a timeout shorter than the server takes, retried once with a longer one, as agent SDKs do.
  const agent = (url: string) => async () => {
    const client = new Client({ name: 'agent', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(url)))
    const tries: string[] = []
    const mark = async (id: number, timeout: number): Promise<string> =>
      client.callTool({ name: 'mark_item', arguments: { id } }, undefined, { timeout }).then(text, (e: Error) => {
        tries.push(`${id}: ${e.message}`)
        return mark(id, 5_000)
      })
    try {
      const results = await Promise.all([1, 2, 3].map((id) => mark(id, 5_000)).concat(mark(LATE, 300)))
      return { results, tries }
    } finally {
      await client.close()
    }
  }
  const rec = await (await scenario('mcp-gave-up', { dir })).run(agent(server.url))
  expect(rec.result).toEqual({ results: ['marked 1', 'marked 2', 'marked 3', 'marked 99'], tries: ['99: MCP error -32001: Request timed out'] })
  const lines = toolLines(dir, 'mcp-gave-up')
  const cells = lines.map((c) => c.name)
  expect(cells.filter((c) => c === 'mcp mark_item')).toHaveLength(5)
  expect(cells).toContain('mcp notifications/cancelled')
  // the answer the server sent after the client gave up is not on the tape: the call is aborted by the client there
  const late = lines.filter((c) => c.name === 'mcp mark_item' && JSON.stringify(c.args).includes(`"id":${LATE}`))
  expect(late.map((c) => JSON.stringify(c.response?.chunks).includes('marked 99'))).toEqual([false, true])
  expect(late[0].response?.clientAbort).toEqual({ afterChunks: 0, t: expect.any(Number) })
  const url = server.url
  await server.close()

  const out = await (await scenario('mcp-gave-up', { dir })).run(agent(url.replace(/:\d+\//, ':9/')))
  expect(out.result).toEqual(rec.result)
  expectFaithful(out)
}, 30_000)

/**
 * Issue 38 item 2: a call is on the tape from the moment it is sent. A local server on 127.0.0.1 holds one request
 * (no response headers, ever) while it answers the others. While recording, the call it starved is stored as never
 * answered (the time the client aborted it, or of the `notifications/cancelled` that named it, else pending at the
 * end of the run) at its own seq, with a warning; on replay (the server gone) that call is never answered either, so
 * the client gives up when it did, and every later call gets its own cell.
 */
import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { scenario } from 'fluxlab'
import { matchers } from 'fluxlab/matchers'
import { expect, test } from 'vitest'
import { tempDir, track, useEngineSandbox } from '../engine/helpers.js'

useEngineSandbox()
expect.extend(matchers)

interface Line {
  seq: number
  step: string
  name: string
  args: unknown
  response?: { status: number; chunks: Array<{ text?: string }>; clientAbort?: { afterChunks: number; t: number }; open?: true }
}
const toolLines = (dir: string, name: string): Line[] =>
  readFileSync(join(dir, name, 'tools.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line)

const listen = async (handle: (req: IncomingMessage, res: ServerResponse) => void) => {
  const server = createServer(handle)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const close = async () => {
    server.closeAllConnections()
    await new Promise<void>((r) => server.close(() => r()))
  }
  track({ close })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close }
}

/** Answers `/item/<n>` at once; holds every request to `/hold` (no answer, not even headers) until `release()`. */
const holdingServer = async () => {
  const held: ServerResponse[] = []
  const server = await listen((req, res) => {
    if (req.url?.startsWith('/hold')) return void held.push(res)
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`item ${req.url?.split('/').pop()}`)
  })
  const release = () => held.splice(0).forEach((res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('late'))
  return { ...server, release }
}

/** The same URL with a port nothing listens on: a replay that reached the network would fail (an MCP call's key has no host). */
const gone = (url: string) => url.replace(/:\d+\//, ':9/')

test('a fetch the server never answers is stored at its seq as aborted by the client, and replays aborted when the client aborts, not before', async () => {
  const dir = tempDir()
  const server = await holdingServer()
  const agent = (base: string) => async () => {
    const first = await (await fetch(`${base}/item/1`)).text()
    const t0 = performance.now()
    const starved = await fetch(`${base}/hold`, { signal: AbortSignal.timeout(200) }).then(
      () => 'answered',
      (e: Error) => e.name,
    )
    const waited = performance.now() - t0
    const later = await Promise.all([2, 3].map(async (n) => (await fetch(`${base}/item/${n}`)).text()))
    return { first, starved, waited, later }
  }
  const rec = await (await scenario('starved-fetch', { dir })).run(agent(server.url))
  expect(rec.result).toMatchObject({ first: 'item 1', starved: 'TimeoutError', later: ['item 2', 'item 3'] })
  const lines = toolLines(dir, 'starved-fetch')
  expect(lines.map((l) => l.seq)).toEqual([1, 2, 3, 4])
  expect(lines[1]).toMatchObject({
    step: 'tool#2',
    name: expect.stringMatching(/^GET 127\.0\.0\.1:\d+\/hold$/),
    response: { status: 0, chunks: [], clientAbort: { afterChunks: 0, t: expect.any(Number) } },
  })
  // (at the client's 200 ms timeout, less what the request took to reach fluxlab)
  expect(lines[1].response?.clientAbort?.t).toBeGreaterThanOrEqual(100)
  expect(lines[1].response?.clientAbort?.t).toBeLessThan(1_000)
  expect(rec.warnings.map((w) => `${w.code} ${w.message}`)).toEqual([
    expect.stringMatching(/^unanswered_call tool#2 never got an answer \(the client aborted it after \d+ ms\); the replay waits as the client did$/),
  ])
  await server.close()

  // the server is closed: a request that reached the network would fail
  const out = await (await scenario('starved-fetch', { dir })).run(agent(server.url))
  expect(out.result).toMatchObject({ first: 'item 1', starved: 'TimeoutError', later: ['item 2', 'item 3'] })
  // the replay answered nothing until the client's own timeout
  expect(out.result?.waited).toBeGreaterThanOrEqual(190)
  expect(out.divergences).toEqual([])
  expect(out).toReplayFaithfully()
  expect(out.hermetic).toBe(true)
}, 30_000)

test('a call still waiting when the run ends is stored as pending at the end, and replays as never answered', async () => {
  const dir = tempDir()
  const server = await holdingServer()
  let ping: Promise<string> | undefined
  const agent = (base: string) => async () => {
    // the agent does not wait for it (a fire-and-forget ping), and never aborts it
    ping = fetch(`${base}/hold`).then(
      async (r) => `answered ${await r.text()}`,
      (e: Error) => e.name,
    )
    const raced = await Promise.race([ping, new Promise((r) => setTimeout(() => r('still waiting'), 100))])
    const after = await (await fetch(`${base}/item/7`)).text()
    return { raced, after }
  }
  const rec = await (await scenario('pending-at-end', { dir })).run(agent(server.url))
  expect(rec.result).toEqual({ raced: 'still waiting', after: 'item 7' })
  const lines = toolLines(dir, 'pending-at-end')
  expect(lines.map((l) => [l.seq, l.step])).toEqual([
    [1, 'tool#1'],
    [2, 'tool#2'],
  ])
  expect(lines[0].response).toEqual({ status: 0, headers: {}, chunks: [], open: true })
  expect(rec.warnings.map((w) => w.message)).toEqual([
    'tool#1 never got an answer (it was still waiting when the run ended); the replay waits as the client did',
  ])
  // an answer that comes after the run ended is the client's alone: it gets it, the fixture does not
  server.release()
  expect(await ping).toBe('answered late')
  expect(toolLines(dir, 'pending-at-end')).toEqual(lines)
  await server.close()

  const out = await (await scenario('pending-at-end', { dir })).run(agent(server.url))
  expect(out.result).toEqual(rec.result)
  expect(out.divergences).toEqual([])
  expect(out.hermetic).toBe(true)
}, 30_000)

interface RpcRequest {
  jsonrpc: '2.0'
  id?: number | string
  method: string
  params?: { arguments?: { id?: number } }
}

/**
 * An MCP server over streamable HTTP (JSON answers) that keeps one answer slot per session and JSON-RPC id, as the real
 * one did: a request with an id already in flight on the session (from another fresh client) takes the slot, and the
 * request it took it from never gets its response headers. Item 2 takes 450 ms to mark, the others 50 ms.
 */
async function mapsAnswersById() {
  const slots = new Map<string, RpcRequest>()
  const notified: string[] = []
  const server = await listen(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RpcRequest
    if (body.id === undefined) {
      notified.push(body.method)
      return void res.writeHead(202).end()
    }
    const slot = `${req.headers['mcp-session-id']} ${body.id}`
    slots.set(slot, body)
    const item = body.params?.arguments?.id
    setTimeout(
      () => {
        // the answer goes to the request holding its id's slot: one whose slot was taken is never answered
        if (slots.get(slot) !== body) return
        slots.delete(slot)
        const result = { content: [{ type: 'text', text: `marked ${item}` }] }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result }))
      },
      item === 2 ? 450 : 50,
    )
  })
  return { url: `${server.url}/mcp`, close: server.close, notified }
}

/**
 * The agent: two fresh MCP clients on one session id (each numbers its requests from 0) mark items 1 and 2 in parallel
 * (1 first); item 1 has a 300 ms timeout, and a call that times out is retried once by its client. Then the client of
 * item 2 marks item 3. The client whose call timed out is left open, as the real suite left it.
 */
const markInParallel = (url: string) => async () => {
  const fresh = async () => {
    const client = new Client({ name: 'agent', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { sessionId: 'shared-session' }))
    return client
  }
  const text = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as Array<{ text: string }>)[0].text
  const tries: string[] = []
  const mark = async (client: Client, id: number, timeout: number): Promise<string> => {
    const t0 = performance.now()
    return client.callTool({ name: 'mark_item', arguments: { id } }, undefined, { timeout }).then(text, async (e: Error) => {
      tries.push(`${id}: ${e.message} after ${performance.now() - t0 >= 290 ? '≥' : '<'} 290 ms`)
      return mark(client, id, 2_000)
    })
  }
  const [a, b] = [await fresh(), await fresh()]
  const first = mark(a, 1, 300)
  await new Promise((r) => setTimeout(r, 10))
  const results = await Promise.all([first, mark(b, 2, 2_000)])
  results.push(await mark(b, 3, 2_000))
  await b.close()
  return { results, tries }
}

const PARALLEL = 'parallel MCP calls from fresh clients on one session with the same JSON-RPC id'
test(`${PARALLEL}: the starved one is on the tape, its cancel matches it alone, and the replay keeps every later cell`, async () => {
  const dir = tempDir()
  const server = await mapsAnswersById()
  const rec = await (await scenario('mcp-starved', { dir })).run(markInParallel(server.url))
  expect(rec.result).toEqual({ results: ['marked 1', 'marked 2', 'marked 3'], tries: ['1: MCP error -32001: Request timed out after ≥ 290 ms'] })
  expect(server.notified).toEqual(['notifications/cancelled'])

  const lines = toolLines(dir, 'mcp-starved')
  expect(lines.map((l) => `${l.seq} ${l.step} ${l.name} ${JSON.stringify(l.args).match(/"id":(\d)/)?.[1] ?? ''}`)).toEqual([
    '1 tool#1 mcp mark_item 1',
    '2 tool#2 mcp mark_item 2',
    '3 tool#3 mcp notifications/cancelled ',
    '4 tool#4 mcp mark_item 1',
    '5 tool#5 mcp mark_item 3',
  ])
  // the starved call: never answered, given up on at the cancel (its client was never closed)
  expect(lines[0].response).toMatchObject({ status: 0, chunks: [], clientAbort: { afterChunks: 0, t: expect.any(Number) } })
  // (at the cancel, ~300 ms after the client sent it, less what the send took to reach fluxlab; the run ends after 760 ms)
  expect(lines[0].response?.clientAbort?.t).toBeGreaterThanOrEqual(100)
  expect(lines[0].response?.clientAbort?.t).toBeLessThan(700)
  // the cancel named JSON-RPC id 0, which item 2's call (another client, still waiting then) has too: that call is whole
  expect(lines[1].response?.clientAbort).toBeUndefined()
  expect(lines[1].response?.chunks.map((c) => c.text).join('')).toContain('marked 2')
  expect(rec.warnings.map((w) => `${w.code} ${w.step}: ${w.message}`)).toEqual([
    expect.stringMatching(
      /^unanswered_call tool#1 mcp mark_item: tool#1 never got an answer \(the client cancelled it \(notifications\/cancelled\) after \d+ ms\); the replay waits/,
    ),
  ])
  await server.close()

  const out = await (await scenario('mcp-starved', { dir })).run(markInParallel(gone(server.url)))
  expect(out.result).toEqual(rec.result)
  expect(out.divergences).toEqual([])
  expect(out).toReplayFaithfully()
  expect(out.hermetic).toBe(true)
}, 30_000)

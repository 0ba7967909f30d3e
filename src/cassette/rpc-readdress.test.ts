import { describe, expect, test } from 'vitest'
import { createRedactor } from './redact.js'
import { httpToolCall } from './canonical.js'
import type { Chunk, RecordedResponse } from './cell.js'
import { bodyText } from './chunks.js'
import { readdressed } from './rpc-readdress.js'
import { ToolTape } from '../scenario/pipeline/tape.js'

const sse = (...texts: string[]): RecordedResponse => ({
  status: 200,
  headers: { 'content-type': 'text/event-stream' },
  chunks: texts.map((text, t): Chunk => ({ t, text })),
})
const body = (m: unknown) => new Uint8Array(Buffer.from(JSON.stringify(m)))
const result = (id: number, structured: unknown) => JSON.stringify({ result: { content: [], structuredContent: structured }, jsonrpc: '2.0', id })
const call = (id: number, progressToken?: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'mark_item', arguments: { id: 1 }, ...(progressToken !== undefined ? { _meta: { progressToken } } : {}) },
})

describe('readdressed', () => {
  test('moves the answer to the id sent today and leaves an "id" inside the result as it was', () => {
    const rec = sse(`event: message\ndata: ${result(3, { id: 3, items: [{ id: 3 }] })}\n\n`)
    const out = readdressed(rec, 3, { rpcId: 8, body: body(call(8)) })
    const sent = JSON.parse(bodyText(out.chunks).split('data: ')[1]) as { id: number; result: { structuredContent: unknown } }
    expect(sent.id).toBe(8)
    expect(sent.result.structuredContent).toEqual({ id: 3, items: [{ id: 3 }] })
  })

  test('re-addresses a message split across chunks whole, keeping the other boundaries', () => {
    const line = `data: ${result(12, { ok: true })}\n\n`
    const rec = sse(': keepalive\n\n', line.slice(0, 20), line.slice(20), 'event: x\n')
    const out = readdressed(rec, 12, { rpcId: 4, body: body(call(4)) })
    expect(out.chunks.map((c) => c.t)).toEqual([0, 2, 3])
    expect(bodyText(out.chunks)).toBe(`: keepalive\n\ndata: ${result(4, { ok: true })}\n\nevent: x\n`)
  })

  test('gives progress notifications the progress token sent today', () => {
    const progress = JSON.stringify({ method: 'notifications/progress', params: { progressToken: 2, progress: 1 }, jsonrpc: '2.0' })
    const rec = sse(`data: ${progress}\n\n`, `data: ${result(2, {})}\n\n`)
    const out = readdressed(rec, 2, { rpcId: 5, body: body(call(5, 5)) })
    expect(bodyText(out.chunks)).toBe(`data: ${progress.replace('"progressToken":2', '"progressToken":5')}\n\ndata: ${result(5, {})}\n\n`)
  })

  test('re-addresses a JSON body laid out over several lines, and a batch; the same id serves as recorded', () => {
    const pretty = JSON.stringify([{ jsonrpc: '2.0', id: 1, result: { id: 1 } }], null, 2)
    const rec: RecordedResponse = {
      status: 200,
      headers: { 'content-type': 'application/json' },
      chunks: [
        { t: 0, text: pretty.slice(0, 10) },
        { t: 5, text: pretty.slice(10) },
      ],
    }
    const out = readdressed(rec, 1, { rpcId: 'a', body: body(call(0)) })
    expect(JSON.parse(bodyText(out.chunks))).toEqual([{ jsonrpc: '2.0', id: 'a', result: { id: 1 } }])
    expect(out.chunks).toEqual([{ t: 5, text: expect.any(String) }])
    expect(readdressed(rec, 1, { rpcId: 1, body: body(call(1)) })).toBe(rec)
  })
})

describe('an MCP progress token in the key', () => {
  const redactor = createRedactor()
  const url = new URL('http://127.0.0.1:9/mcp')
  test('is positional: two calls with other ids and tokens have one key', () => {
    const a = httpToolCall('POST', url, JSON.stringify(call(1, 1)), { redactor })
    const b = httpToolCall('POST', url, JSON.stringify(call(7, 7)), { redactor })
    expect(a.key).toBe(b.key)
    expect((a.args.body as { params: { _meta: unknown } }).params._meta).toEqual({ progressToken: '<progress-token>' })
    expect(a.legacyKey).not.toBe(a.key)
  })

  test('a fixture recorded before it was (keyed by the token itself) still replays the same call', () => {
    const today = httpToolCall('POST', url, JSON.stringify(call(4, 4)), { redactor })
    const tape = new ToolTape([
      { seq: 1, step: 'tool#1', kind: 'http', name: today.name, key: today.legacyKey ?? '', args: {}, durationMs: 0, truncated: false },
    ])
    expect(tape.take({ kind: 'http', ...today })).toMatchObject({ kind: 'hit', cell: { seq: 1 } })
  })
})

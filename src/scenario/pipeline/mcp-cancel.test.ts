import { describe, expect, test } from 'vitest'
import type { HttpToolRequest } from './call.js'
import { RunLog } from './log.js'
import { awaitingAnswer, cutAtCancel, noteCancel } from './mcp-cancel.js'
import { mcpPost } from './test-mcp-post.js'

/** An MCP POST as the pipeline identifies it: `seq`, its JSON-RPC id (`rpcId`), on the session `session`. */
function post(seq: number, body: object, session = 'shared'): Readonly<HttpToolRequest> {
  const method = (body as { method: string }).method
  const name = method === 'tools/call' ? 'mcp mark_item' : `mcp ${method}`
  return mcpPost(seq, body, { session, name, headers: { 'content-type': 'application/json' } })
}
const call = (seq: number, session?: string) => post(seq, { id: 0, method: 'tools/call', params: { name: 'mark_item', arguments: { id: seq } } }, session)
const cancel = (seq: number, requestId: number, session?: string) =>
  post(seq, { method: 'notifications/cancelled', params: { requestId, reason: 'timed out' } }, session)
const answer = { status: 200, headers: {}, chunks: [{ t: 5, text: '{"result":{}}' }] }

describe('MCP cancels', () => {
  test('a cancel is bound to the one request with its id still waiting for an answer, the longest waiting first', () => {
    const log = new RunLog('s', (e) => e)
    const [a, b] = [call(1), call(2)]
    awaitingAnswer(log, a)
    awaitingAnswer(log, b)
    noteCancel(log, cancel(3, 0))
    expect([...log.cancelled.keys()]).toEqual([1])
    expect(cutAtCancel(log, b, 0, answer)).toBe(answer)
    expect(cutAtCancel(log, a, performance.now() - 300, answer).clientAbort).toEqual({ afterChunks: 1, t: expect.any(Number) })
    // a second cancel of the same id is the other client's
    noteCancel(log, cancel(4, 0))
    expect([...log.cancelled.keys()]).toEqual([1, 2])
  })

  test('a request answered before the cancel, on another client with the same id, is left whole', () => {
    const log = new RunLog('s', (e) => e)
    const [a, b] = [call(1), call(2)]
    awaitingAnswer(log, a)
    const answered = awaitingAnswer(log, b)
    answered()
    noteCancel(log, cancel(3, 0))
    expect([...log.cancelled.keys()]).toEqual([1])
    expect(log.awaiting.size).toBe(1)
  })

  test('a cancel on another session, or naming another id, binds nothing', () => {
    const log = new RunLog('s', (e) => e)
    awaitingAnswer(log, call(1))
    noteCancel(log, cancel(2, 0, 'other-session'))
    noteCancel(log, cancel(3, 7))
    expect(log.cancelled.size).toBe(0)
  })
})

import { describe, expect, test } from 'vitest'
import type { RecordedResponse } from '../../cassette/cell.js'
import type { HttpToolRequest } from './call.js'
import { RunLog } from './log.js'
import { awaitingAnswer, noteCancel } from './mcp-cancel.js'
import { mcpPost } from './test-mcp-post.js'
import { awaitHeaders } from './unanswered.js'

const post = (seq: number, body: object, signal?: AbortSignal): Readonly<HttpToolRequest> => mcpPost(seq, body, { signal })

describe('a call whose response headers never came', () => {
  test('is stored when the run ends: pending at the end, with a warning', async () => {
    const log = new RunLog('s', (e) => e)
    const stored: RecordedResponse[] = []
    awaitHeaders(log, post(1, { id: 1, method: 'ping' }), performance.now(), (rec) => stored.push(rec))
    await log.closeStreams(10)
    expect(stored).toEqual([{ status: 0, headers: {}, chunks: [], open: true }])
    expect(log.divergences.map((d) => [d.code, d.severity, d.message])).toEqual([
      ['unanswered_call', 'warning', 'tool#1 never got an answer (it was still waiting when the run ended); the replay waits as the client did'],
    ])
  })

  test('is stored as aborted at the time the client aborted it, or cancelled it', async () => {
    const log = new RunLog('s', (e) => e)
    const stored: RecordedResponse[] = []
    const controller = new AbortController()
    awaitHeaders(log, post(1, { id: 1, method: 'ping' }, controller.signal), performance.now() - 1_000, (rec) => stored.push(rec))
    controller.abort()
    const cancelled = post(2, { id: 0, method: 'tools/call' })
    awaitingAnswer(log, cancelled)
    awaitHeaders(log, cancelled, performance.now() - 2_000, (rec) => stored.push(rec))
    noteCancel(log, post(3, { method: 'notifications/cancelled', params: { requestId: 0 } }))
    await log.closeStreams(10)
    expect(stored.map((r) => [r.status, r.open, r.clientAbort && Math.round(r.clientAbort.t / 1_000)])).toEqual([
      [0, undefined, 1],
      [0, undefined, 2],
    ])
    expect(log.divergences.map((d) => d.message.replace(/\d+ ms/, 'N ms'))).toEqual([
      'tool#1 never got an answer (the client aborted it after N ms); the replay waits as the client did',
      'tool#2 never got an answer (the client cancelled it (notifications/cancelled) after N ms); the replay waits as the client did',
    ])
  })

  test('is not stored when its headers came (settle); one sent as the run closes is stored too', async () => {
    const log = new RunLog('s', (e) => e)
    const stored: RecordedResponse[] = []
    const answered = awaitHeaders(log, post(1, { id: 1, method: 'ping' }), performance.now(), (rec) => stored.push(rec))
    expect(answered.settle()).toBe(true)
    const closing = log.closeStreams(10)
    awaitHeaders(log, post(2, { id: 2, method: 'ping' }), performance.now(), (rec) => stored.push(rec))
    await closing
    expect(stored).toHaveLength(1)
    expect(log.divergences.map((d) => d.step)).toEqual(['tool#2 mcp ping'])
  })
})

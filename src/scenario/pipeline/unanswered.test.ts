// A live call whose response headers never came (./unanswered.ts), through a recording run's live stage (./live.ts): the
// call is in flight on the run's log from its send, and the end of the run stores it.
import { describe, expect, test } from 'vitest'
import type { RecordedResponse } from '../../cassette/cell.js'
import { Run, runSettings } from '../run.js'

const MCP_URL = 'http://127.0.0.1:4010/mcp'

/** An MCP POST on session s1. */
const post = (body: object, signal?: AbortSignal) =>
  new Request(MCP_URL, { method: 'POST', headers: { 'mcp-session-id': 's1' }, body: JSON.stringify({ jsonrpc: '2.0', ...body }), signal })

/** A recording run whose live sends are answered by `answer`, or never (`undefined`). */
function recording(answer: (request: Request) => Response | undefined = () => undefined) {
  const sent: Request[] = []
  const live = async (request: Request) => {
    sent.push(request)
    return answer(request) ?? new Promise<Response>(() => {})
  }
  const run = new Run({ name: 's', dir: '/nonexistent/s', mode: 'record', settings: runSettings({}, false), live })
  /** Hand `request` to the run, and resolve once it went live. */
  const send = async (request: Request) => {
    const before = sent.length
    void run.handle(request)
    while (sent.length === before) await new Promise((r) => setImmediate(r))
  }
  const stored = () => run.log.ordered().map((s) => (s.cell as { response?: RecordedResponse }).response)
  return { run, send, stored }
}

describe('a call whose response headers never came', () => {
  test('is stored when the run ends: pending at the end, with a warning', async () => {
    const { run, send, stored } = recording()
    await send(post({ id: 1, method: 'ping' }))
    await run.log.closeStreams(10)
    expect(stored()).toEqual([{ status: 0, headers: {}, chunks: [], open: true }])
    expect(run.log.inFlight.size).toBe(0)
    expect(run.log.divergences.map((d) => [d.code, d.severity, d.message])).toEqual([
      ['unanswered_call', 'warning', 'tool#1 never got an answer (it was still waiting when the run ended); the replay waits as the client did'],
    ])
  })

  test('is stored as aborted at the time the client aborted it, or cancelled it', async () => {
    const accepted = () => new Response(null, { status: 202 })
    const { run, send, stored } = recording((request) => (request.url === MCP_URL && request.headers.get('x-cancel') ? accepted() : undefined))
    const controller = new AbortController()
    await send(post({ id: 1, method: 'ping' }, controller.signal))
    controller.abort()
    await send(post({ id: 0, method: 'tools/call' }))
    const cancel = post({ method: 'notifications/cancelled', params: { requestId: 0 } })
    cancel.headers.set('x-cancel', '1')
    await send(cancel)
    await run.log.closeStreams(10)
    const [aborted, cancelled] = stored()
    expect([aborted?.status, aborted?.open, aborted?.clientAbort?.afterChunks]).toEqual([0, undefined, 0])
    expect([cancelled?.status, cancelled?.open, cancelled?.clientAbort?.afterChunks]).toEqual([0, undefined, 0])
    expect(run.log.divergences.map((d) => d.message.replace(/\d+ ms/, 'N ms'))).toEqual([
      'tool#1 never got an answer (the client aborted it after N ms); the replay waits as the client did',
      'tool#2 never got an answer (the client cancelled it (notifications/cancelled) after N ms); the replay waits as the client did',
    ])
  })

  test('is not stored as unanswered when its headers came; one sent as the run closes is stored too', async () => {
    // the first call's headers come, and its body stays open: the end of the run waits for it, then stops its capture
    const streaming = () => new Response(new ReadableStream({ start: () => {} }))
    const { run, send, stored } = recording((request) => (request.headers.get('x-answer') ? streaming() : undefined))
    const answered = post({ id: 1, method: 'ping' })
    answered.headers.set('x-answer', '1')
    await send(answered)
    const closing = run.log.closeStreams(10)
    await send(post({ id: 2, method: 'ping' }))
    await closing
    expect(stored().map((r) => [r?.status, r?.open])).toEqual([
      [200, true],
      [0, true],
    ])
    expect(run.log.divergences.map((d) => d.step)).toEqual(['tool#2 mcp ping'])
  })
})

/**
 * SPEC §3: a call is on the tape from the moment it is sent. A live call whose answer (its response headers) never
 * came still gets its cell: when the client aborted it, when a `notifications/cancelled` named it, or, when neither
 * happened, as still waiting at the end of the run. A replay serves that cell as never answered, so the client waits
 * (and times out, cancels, retries) as it did, and every later call keeps its own cell (issue 38: a starved MCP call
 * with no cell took its retry's cell on replay, and every later model turn was one cell behind).
 */
import type { RecordedResponse } from '../../cassette/cell.js'
import type { HttpToolRequest, ModelRequest } from './call.js'
import { cutAtCancel } from './mcp-cancel.js'
import type { RunLog } from './log.js'

/**
 * What is kept of a live call (sent at `start`, `performance.now()`) still waiting for its headers when the run ended:
 * no answer, aborted by the client when it was (`abortedAt`) or cancelled, else still open; with its warning. The live
 * stage tracks the call from its send (`inFlight`, ./live.ts) and stores this as its cell.
 * @example
 * keep(unansweredAtEnd(log, call, start, abortedAt))
 */
export function unansweredAtEnd(log: RunLog, call: Readonly<ModelRequest | HttpToolRequest>, start: number, abortedAt?: number): RecordedResponse {
  const none: RecordedResponse = { status: 0, headers: {}, chunks: [] }
  let rec: RecordedResponse = abortedAt === undefined ? none : { ...none, clientAbort: { afterChunks: 0, t: Math.round(abortedAt - start) } }
  if (call.channel === 'tool') rec = cutAtCancel(log, call, start, rec)
  if (!rec.clientAbort) rec = { ...rec, open: true }
  warnUnanswered(log, call, rec)
  return rec
}

/**
 * The warning on a recording's outcome for a call stored as never answered: the replay waits as the client did.
 * @example
 * warnUnanswered(log, call, { status: 0, headers: {}, chunks: [], clientAbort: { afterChunks: 0, t: 200 } })
 */
export function warnUnanswered(log: RunLog, call: Readonly<ModelRequest | HttpToolRequest>, rec: RecordedResponse): void {
  const id = call.channel === 'tool' ? call.id : call.step
  const how = rec.clientAbort
    ? log.cancelled.has(call.seq)
      ? `the client cancelled it (notifications/cancelled) after ${rec.clientAbort.t} ms`
      : `the client aborted it after ${rec.clientAbort.t} ms`
    : 'it was still waiting when the run ended'
  log.diverge('unanswered_call', call.step, `${id} never got an answer (${how}); the replay waits as the client did`)
}

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

/** A live call waiting for its response headers. */
export interface Waiting {
  /**
   * The headers came, or the send failed: `true` when the caller stores the call itself, `false` when the end of the
   * run stored it as unanswered already (what comes now is not on the tape).
   */
  settle(): boolean
}

/**
 * Track `call` from its send (`start`, `performance.now()`) until {@link Waiting.settle}: a call still waiting when the
 * run ends is stored by `store` as unanswered, and warned about.
 * @example
 * const waiting = awaitHeaders(log, call, start, (rec) => pushCell(rec))
 * const res = await send(…); if (!waiting.settle()) return { response: res }
 */
export function awaitHeaders(log: RunLog, call: Readonly<ModelRequest | HttpToolRequest>, start: number, store: (rec: RecordedResponse) => void): Waiting {
  const signal = call.request.signal
  let abortedAt: number | undefined
  const onAbort = () => (abortedAt = performance.now())
  signal.addEventListener('abort', onAbort, { once: true })
  let release!: () => void
  const headers = new Promise<void>((r) => (release = r))
  let settled = false
  const settle = () => {
    if (settled) return false
    settled = true
    signal.removeEventListener('abort', onAbort)
    release()
    return true
  }
  log.track(headers, call.step, () => {
    if (!settle()) return
    const none: RecordedResponse = { status: 0, headers: {}, chunks: [] }
    let rec: RecordedResponse = abortedAt === undefined ? none : { ...none, clientAbort: { afterChunks: 0, t: Math.round(abortedAt - start) } }
    if (call.channel === 'tool') rec = cutAtCancel(log, call, start, rec)
    if (!rec.clientAbort) rec = { ...rec, open: true }
    try {
      warnUnanswered(log, call, rec)
      store(rec)
    } catch (e) {
      log.fail(e, call.step)
    }
  })
  return { settle }
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

import type { RecordedResponse } from '../../cassette/cell.js'
import type { HttpToolRequest } from './call.js'
import type { RunLog } from './log.js'

/**
 * MCP's own client abort. A client that gives up on a request (its timeout ran out) sends `notifications/cancelled`
 * naming the request's JSON-RPC id, and drops whatever answer comes after. While recording, the cancel is noted with
 * its time; the cancelled call's cell then keeps only the chunks that came before it and is stored as aborted by the
 * client there (SPEC §3: what the client saw is what is replayed). A replay serves those chunks and leaves the call
 * unanswered, so the client times out again and retries as it did, instead of getting at once the answer it never
 * used (a timeline that depended on the recording's timing: issue 28).
 * @example
 * noteCancel(log, call) // on every live HTTP tool call
 */
export function noteCancel(log: RunLog, call: Readonly<HttpToolRequest>): void {
  if (call.name !== 'mcp notifications/cancelled') return
  let requestId: unknown
  try {
    requestId = (JSON.parse(call.bytes.toString('utf8')) as { params?: { requestId?: unknown } }).params?.requestId
  } catch {
    return
  }
  if (typeof requestId === 'string' || typeof requestId === 'number') log.cancels.set(scoped(call, requestId), performance.now())
}

/**
 * The recorded response of `call` (started at `start`, `performance.now()`), cut where the client cancelled it, if it did.
 * @example
 * const rec = cutAtCancel(log, call, start, stored.rec)
 */
export function cutAtCancel(log: RunLog, call: Readonly<HttpToolRequest>, start: number, rec: RecordedResponse): RecordedResponse {
  const at = call.rpcId === undefined ? undefined : log.cancels.get(scoped(call, call.rpcId))
  if (at === undefined || at < start) return rec
  const t = Math.round(at - start)
  const chunks = rec.chunks.filter((c) => c.t <= t)
  const { open: _open, ...rest } = rec
  return { ...rest, chunks, clientAbort: { afterChunks: chunks.length, t } }
}

/** A JSON-RPC id is unique within one MCP session: the server's endpoint and the session id the client sent. */
const scoped = (call: Readonly<HttpToolRequest>, id: string | number) => `${call.url.host}${call.url.pathname} ${call.request.headers.get('mcp-session-id') ?? ''} ${JSON.stringify(id)}`

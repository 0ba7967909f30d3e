import type { RecordedResponse } from '../../cassette/cell.js'
import type { HttpToolRequest } from './call.js'
import type { RunLog } from './log.js'

/**
 * MCP's own client abort. A client that gives up on a request (its timeout ran out) sends `notifications/cancelled`
 * naming the request's JSON-RPC id, and drops whatever answer comes after. While recording, the cancel is bound to the
 * one request it gave up on, with its time; that call's cell then keeps only the chunks that came before it and is
 * stored as aborted by the client there (SPEC §3: what the client saw is what is replayed). A replay serves those
 * chunks and leaves the call unanswered, so the client times out again and retries as it did, instead of getting at
 * once the answer it never used (a timeline that depended on the recording's timing: issue 28).
 *
 * @note issue 38: a JSON-RPC id is not unique within an MCP session: several fresh clients (or transports) on one
 * session id each number from 1, and fetch tells us nothing of the connection a request came on. A client only cancels
 * a request it is still waiting for, so the cancel is bound to the request of its client's connection by that: the
 * one with that id in that session that was sent before the cancel and still had no answer (the longest waiting,
 * when several do), never to every request that shares the id. A request answered before the cancel is left whole.
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
  if (typeof requestId !== 'string' && typeof requestId !== 'number') return
  const seq = log.awaiting.get(scoped(call, requestId))?.find((s) => !log.cancelled.has(s))
  if (seq !== undefined) log.cancelled.set(seq, performance.now())
}

/**
 * Note that `call` (an MCP request sent live) waits for its answer; the function returned says it has it (its body
 * ended) or never will (the send failed, the run ended).
 * @example
 * const answered = awaitingAnswer(log, call) // … answered() once the body ended
 */
export function awaitingAnswer(log: RunLog, call: Readonly<HttpToolRequest>): () => void {
  if (call.rpcId === undefined) return () => {}
  const scope = scoped(call, call.rpcId)
  const list = log.awaiting.get(scope) ?? []
  log.awaiting.set(scope, [...list, call.seq])
  return () => {
    const rest = (log.awaiting.get(scope) ?? []).filter((s) => s !== call.seq)
    if (rest.length) log.awaiting.set(scope, rest)
    else log.awaiting.delete(scope)
  }
}

/**
 * The recorded response of `call` (started at `start`, `performance.now()`), cut where the client cancelled it, if it did.
 * @example
 * const rec = cutAtCancel(log, call, start, stored.rec)
 */
export function cutAtCancel(log: RunLog, call: Readonly<HttpToolRequest>, start: number, rec: RecordedResponse): RecordedResponse {
  const at = log.cancelled.get(call.seq)
  if (at === undefined || at < start) return rec
  const t = Math.round(at - start)
  const chunks = rec.chunks.filter((c) => c.t <= t)
  const { open: _open, ...rest } = rec
  return { ...rest, chunks, clientAbort: { afterChunks: chunks.length, t } }
}

/** Where a JSON-RPC id is looked up: the server's endpoint and the session id the client sent. */
const scoped = (call: Readonly<HttpToolRequest>, id: string | number) =>
  `${call.url.host}${call.url.pathname} ${call.request.headers.get('mcp-session-id') ?? ''} ${JSON.stringify(id)}`

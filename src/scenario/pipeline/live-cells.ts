/**
 * The cells the live stage (live.ts) keeps of what came back, once the client has its answer: a model call's, with what
 * its codec reads of the answer, a failed one's, and an HTTP tool call's; each redacted, capped, on the run's log and in
 * the journal, with the key variables its request carried.
 */
import type { Chunk, ModelCell, RecordedResponse, ToolCell, TransportError } from '../../cassette/cell.js'
import { bodyBuffer, bodyText, capChunks } from '../../cassette/chunks.js'
import { carriedKeyVars } from '../../context/replay-keys.js'
import { socketModel } from '../../sources/realtime-socket.js'
import { emptyUsage } from '../../providers/types.js'
import { modelIdBody, type HttpToolRequest, type ModelRequest } from './call.js'
import { redactChunks, stripUndefined } from './cell-values.js'
import type { RunConfig } from './config.js'
import { keptHeaders } from './http.js'
import type { RunLog, RunStep } from './log.js'
import { cutAtCancel } from './mcp-cancel.js'
import { warnUnanswered } from './unanswered.js'

type LiveCall = Readonly<ModelRequest | HttpToolRequest>

/** What the capture of a live body kept (`forwardCapturing`, ./live.ts): its chunks, and how it ended when not cleanly. */
export interface Captured {
  chunks: Chunk[]
  transportError?: TransportError
  /** The run ended (or the client aborted) with the stream still open: the capture stopped there. */
  open?: true
}

/** When a live call went out: `start` (`performance.now()`), `t0` (`Date.now()`); `late`: its headers came after the run ended. */
export interface Sent {
  start: number
  t0: number
  late?: boolean
}

/** A live answer as kept: the recorded response, and whether its body was cut at the cap. */
interface Stored {
  rec: RecordedResponse
  truncated: boolean
  originalBytes: number
}

/** What every model cell of `call` says about the request. */
function modelCellBase(config: RunConfig, call: ModelRequest): Pick<ModelCell, 'seq' | 'step' | 'key' | 'family' | 'url' | 'request' | 'model'> {
  const { codec, url, canonical } = call
  return {
    seq: call.seq,
    step: call.step,
    key: call.key,
    family: codec.family,
    url: config.redactor.url(url.href),
    request: canonical,
    model: codec.parseRequest(modelIdBody(call, config), url).model ?? socketModel(call.request),
  }
}

function modelCell(
  config: RunConfig,
  call: ModelRequest,
  res: Response,
  stored: Stored,
  transportError: TransportError | undefined,
  durationMs: number,
): ModelCell {
  const base = modelCellBase(config, call)
  const parsed = call.codec.parseResponse(
    bodyText(stored.rec.chunks),
    res.headers.get('content-type') ?? undefined,
    res.status,
    call.url,
    call.codec.binaryBody ? bodyBuffer(stored.rec.chunks) : undefined,
  )
  return {
    ...base,
    response: stored.rec,
    model: parsed.model ?? base.model,
    usage: parsed.usage,
    finishReason: parsed.finishReason,
    text: parsed.text,
    toolCalls: parsed.toolCalls,
    providerError: parsed.error,
    transportError,
    durationMs,
    truncated: stored.truncated,
    ...(stored.truncated ? { originalBytes: stored.originalBytes } : {}),
  }
}

/** A model call that never got a response. */
function failedModelCell(config: RunConfig, call: ModelRequest, stored: Stored, transportError: TransportError | undefined, durationMs: number): ModelCell {
  return { ...modelCellBase(config, call), response: stored.rec, usage: emptyUsage(), text: '', toolCalls: [], transportError, durationMs, truncated: false }
}

/** What a failed fetch says: its class, message and system error code (`ENOTFOUND`, `ECONNREFUSED`), redacted. */
function transportErrorOf(e: unknown, config: RunConfig): TransportError {
  const err = e as Error & { code?: string; cause?: { code?: string; message?: string; name?: string } }
  const cause = err?.cause
  return {
    name: cause?.name && cause.name !== 'Error' ? cause.name : (err?.name ?? 'Error'),
    message: config.redactor.text(cause?.message ?? err?.message ?? String(e)),
    ...((cause?.code ?? err?.code) ? { code: cause?.code ?? err?.code } : {}),
  }
}

function httpCell(config: RunConfig, call: HttpToolRequest, stored: Stored, transportError: TransportError | undefined, durationMs: number): ToolCell {
  return {
    seq: call.seq,
    step: call.id,
    kind: 'http',
    name: call.name,
    key: call.key,
    args: call.args,
    ...(call.rpcId !== undefined ? { rpcId: call.rpcId } : {}),
    response: stored.rec,
    url: config.redactor.url(call.url.href),
    transportError,
    durationMs,
    truncated: stored.truncated,
    ...(stored.truncated ? { originalBytes: stored.originalBytes } : {}),
  }
}

/**
 * Keep a live call's cell once its body ended (or the end of the run stopped its capture): redacted, capped, with how it
 * ended. `answered`: an MCP request's wait for its answer (./mcp-cancel.ts) is over.
 * @example
 * captured.then((c) => keepCaptured(config, log, call, res, c, { start, t0, late }, answered))
 */
export function keepCaptured(config: RunConfig, log: RunLog, call: LiveCall, res: Response, captured: Captured, sent: Sent, answered?: () => void): void {
  const { chunks, transportError: failed, open } = captured
  const stored = store(config, res, chunks, call.channel === 'model' ? call.codec : undefined)
  if (open) stored.rec.open = true
  if (sent.late) stored.rec.afterEnd = true
  // @note SPEC §3: the client's own abort is an event on the tape, not a transport error (however our capture saw it end).
  const aborted = (failed !== undefined || open === true) && call.request.signal.aborted
  if (aborted) delete stored.rec.open
  if (aborted) stored.rec.clientAbort = { afterChunks: chunks.length, t: Math.round(performance.now() - sent.start) }
  // @note issue 28: an MCP request the client cancelled (its timeout) is aborted by the client at the cancel.
  if (call.channel === 'tool') stored.rec = cutAtCancel(log, call, sent.start, stored.rec)
  answered?.()
  const transportError = aborted || stored.rec.clientAbort ? undefined : failed
  const ms = Date.now() - sent.t0
  const cell = call.channel === 'model' ? modelCell(config, call, res, stored, transportError, ms) : httpCell(config, call, stored, transportError, ms)
  keepCell(config, log, call, stripUndefined(cell))
}

/**
 * Keep the cell of a live call whose send failed before a response (DNS, refused, reset, TLS), or that the client aborted
 * before its headers came.
 * @note SPEC §3: a failed send is a cell, replayed as the same network error the client sees now. A client abort is not a
 * failure: the call was never answered (./unanswered.ts).
 */
export function keepFailedSend(config: RunConfig, log: RunLog, call: LiveCall, e: unknown, sent: Sent, answered?: () => void): void {
  const aborted = call.request.signal.aborted
  const clientAbort = aborted ? { afterChunks: 0, t: Math.round(performance.now() - sent.start) } : undefined
  let rec: RecordedResponse = { status: 0, headers: {}, chunks: [], ...(clientAbort ? { clientAbort } : {}) }
  if (aborted && call.channel === 'tool') rec = cutAtCancel(log, call, sent.start, rec)
  if (aborted) warnUnanswered(log, call, rec)
  // @note issue 39: a call that went live and failed (refused, reset) is a live call: the summary never says 0 for it.
  else if (call.channel === 'model') log.modelLive++
  keepUnanswered(config, log, call, rec, aborted ? undefined : transportErrorOf(e, config), sent, answered)
}

/**
 * Keep the cell of a live call that got no response: `rec` says how (a failed send, a client abort, the end of the run).
 * @example
 * keepUnanswered(config, log, call, unansweredAtEnd(log, call, start, abortedAt), undefined, sent, answered)
 */
export function keepUnanswered(
  config: RunConfig,
  log: RunLog,
  call: LiveCall,
  rec: RecordedResponse,
  transportError: TransportError | undefined,
  sent: Sent,
  answered?: () => void,
): void {
  answered?.()
  const none: Stored = { rec, truncated: false, originalBytes: 0 }
  const ms = Date.now() - sent.t0
  const cell = stripUndefined(
    call.channel === 'model' ? failedModelCell(config, call, none, transportError, ms) : httpCell(config, call, none, transportError, ms),
  )
  if (call.channel === 'tool' && transportError) delete (cell as ToolCell).response
  keepCell(config, log, call, cell)
}

/** A live call's cell, kept: the key variables its request carried (recording), the run's log, the journal. */
function keepCell(config: RunConfig, log: RunLog, call: LiveCall, cell: ModelCell | ToolCell): void {
  // SPEC §2: the names (never the values) of the key variables the request carries go into the manifest.
  if (config.mode === 'record') for (const name of carriedKeyVars(call.request)) log.keyVars.add(name)
  log.entries.push({ seq: call.seq, channel: call.channel, cell, live: true } as RunStep)
  journalCell(config, log, call.channel, cell)
}

/**
 * Journal a live result under `durable()`, before the agent sees it.
 * @note issue 13: a result the journal refused (FLUX_CREDENTIAL_FOUND) fails the run at its step, even when the agent
 * catches what its tool threw; the journal keeps every line before it.
 * @example
 * journalCell(config, log, 'tool', cell)
 */
export function journalCell(config: RunConfig, log: RunLog, channel: 'model' | 'tool', cell: ModelCell | ToolCell): void {
  const journal = config.journal
  if (!journal) return
  log.journalLive++
  try {
    journal.cell(channel === 'model' ? { kind: 'cell', channel, cell: cell as ModelCell } : { kind: 'cell', channel, cell: cell as ToolCell })
  } catch (e) {
    throw log.fail(e, cell.step)
  }
}

/** What is stored of a live response: its kept headers and its chunks, redacted and capped. */
function store(config: RunConfig, res: Response, chunks: Chunk[], codec?: ModelRequest['codec']): Stored {
  const { redactor, maxBytes } = config
  const binary = codec?.binaryBody?.matches(res.headers.get('content-type') ?? undefined) ? codec.binaryBody : undefined
  const capped = capChunks(redactChunks(chunks, redactor, binary), maxBytes)
  return {
    rec: { status: res.status, headers: redactor.headers(keptHeaders(res.headers)), chunks: capped.chunks },
    truncated: capped.truncated,
    originalBytes: capped.originalBytes,
  }
}

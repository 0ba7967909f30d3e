import type { Chunk, ModelCell, RecordedResponse, ToolCell, TransportError } from '../../cassette/cell.js'
import { capChunks } from '../../cassette/chunks.js'
import { FluxError, isFluxError } from '../../errors.js'
import type { Answer, FnToolCall, HttpToolRequest, ModelRequest, Stage } from './call.js'
import { redactChunks, serializeError, stripUndefined, toJsonValue } from './cell-values.js'
import { decodedHeaders, forwardCapturing, keptHeaders } from './http.js'
import { awaitingAnswer, cutAtCancel, noteCancel } from './mcp-cancel.js'
import { awaitHeaders, warnUnanswered } from './unanswered.js'
import { ownSender, redirectModeOf, upstreamed } from '../../sources/live.js'
import { carriedKeyVars, placeholderIn } from '../../context/replay-keys.js'
import { state, type RequestRoute } from '../../context/state.js'
import type { RunConfig } from './config.js'
import type { RunLog, RunStep } from './log.js'
import { failedModelCell, httpCell, modelCell, transportErrorOf, type Stored } from './live-cells.js'

/**
 * The bottom of the pipeline: send the call for real and keep what came back (record mode,
 * a check's model miss, a what-if bridged live). Under `durable()` each result is journaled
 * before the agent sees it.
 * @example
 * const stages = [journalStage(config, log, hooks), liveStage(config, log)]
 */
export function liveStage(config: RunConfig, log: RunLog): Stage {
  return async (call): Promise<Answer> => {
    if (call.channel === 'model')
      return captureLive(config, log, call, (res, stored, transportError, durationMs) => modelCell(config, call, res, stored, transportError, durationMs))
    if (call.kind === 'http') {
      noteCancel(log, call)
      return captureLive(config, log, call, (_res, stored, transportError, durationMs) => httpCell(config, call, stored, transportError, durationMs))
    }
    return runTool(config, log, call)
  }
}

/**
 * One live HTTP exchange, for both channels: the caller streams its branch of the body while the
 * other branch is captured with per-chunk timestamps, redacted, capped and kept as a cell.
 */
async function captureLive(
  config: RunConfig,
  log: RunLog,
  call: ModelRequest | HttpToolRequest,
  toCell: (res: Response, stored: Stored, transportError: TransportError | undefined, durationMs: number) => ModelCell | ToolCell,
): Promise<Answer> {
  const start = performance.now()
  const t0 = Date.now()
  const journal = config.journal
  journal?.intent({ kind: 'intent', seq: call.seq, step: call.step, key: call.key })
  // @note issue 38: the call is on the tape from its send: one whose headers never come is stored when the run ends.
  const answered = call.channel === 'tool' ? awaitingAnswer(log, call) : () => {}
  const unanswered = (rec: RecordedResponse, transportError?: TransportError) => {
    answered()
    const none: Stored = { rec, truncated: false, originalBytes: 0 }
    const ms = Date.now() - t0
    const cell = stripUndefined(
      call.channel === 'model' ? failedModelCell(config, call, none, transportError, ms) : httpCell(config, call, none, transportError, ms),
    )
    if (call.channel === 'tool' && transportError) delete (cell as ToolCell).response
    log.entries.push({ seq: call.seq, channel: call.channel, cell, live: true } as RunStep)
    journalCell(config, log, call.channel, cell)
  }
  const waiting = awaitHeaders(log, call, start, (rec) => unanswered(rec))
  let res: Response
  try {
    res = await send(config, log, call.request, call.bytes, call.step)
  } catch (e) {
    if (!waiting.settle()) return { response: Response.error() }
    if (isFluxError(e)) {
      answered()
      throw e
    }
    // @note SPEC §3: the real request failed before a response (DNS, refused, reset, TLS): a cell, replayed as the same
    // network error the client sees now. A client abort is not a failure: the call was never answered (./unanswered.ts).
    const aborted = call.request.signal.aborted
    const clientAbort = aborted ? { afterChunks: 0, t: Math.round(performance.now() - start) } : undefined
    let rec: RecordedResponse = { status: 0, headers: {}, chunks: [], ...(clientAbort ? { clientAbort } : {}) }
    if (aborted && call.channel === 'tool') rec = cutAtCancel(log, call, start, rec)
    if (aborted) warnUnanswered(log, call, rec)
    // @note issue 39: a call that went live and failed (refused, reset) is a live call: the summary never says 0 for it.
    else if (call.channel === 'model') log.modelLive++
    unanswered(rec, aborted ? undefined : transportErrorOf(e, config))
    return { response: Response.error() }
  }
  // the run ended before its headers came: it is on the tape as unanswered, and what comes now is the client's alone
  const passOn = (body: ReadableStream<Uint8Array> | null) =>
    new Response(body, { status: res.status, statusText: res.statusText, headers: decodedHeaders(res.headers) })
  if (!waiting.settle()) return { response: passOn(res.body) }
  if (call.channel === 'model') log.modelLive++
  const late = log.hasEnded
  const stop = new AbortController()
  // The client aborting stops our capture too: whether the live request sees the abort depends on the client.
  call.request.signal.addEventListener('abort', () => stop.abort(), { once: true })
  // @note issue 14: the caller's copy of the body is handed over as the upstream yields it; redaction, the cap,
  // the cell (its canonical request and key) and the journal wait for the end of the body, beside the caller.
  const { body, captured } = forwardCapturing(res.body, start, stop.signal, call.request.signal)
  const done = captured.then(({ chunks, transportError: failed, open }) => {
    const stored = store(config, res, chunks, call.channel === 'model' ? call.codec : undefined)
    if (open) stored.rec.open = true
    if (late) stored.rec.afterEnd = true
    // @note SPEC §3: the client's own abort is an event on the tape, not a transport error (however our capture saw it end).
    const aborted = (failed !== undefined || open === true) && call.request.signal.aborted
    if (aborted) delete stored.rec.open
    if (aborted) stored.rec.clientAbort = { afterChunks: chunks.length, t: Math.round(performance.now() - start) }
    // @note issue 28: an MCP request the client cancelled (its timeout) is aborted by the client at the cancel.
    if (call.channel === 'tool') stored.rec = cutAtCancel(log, call, start, stored.rec)
    answered()
    const transportError = aborted || stored.rec.clientAbort ? undefined : failed
    const cell = stripUndefined(toCell(res, stored, transportError, Date.now() - t0))
    log.entries.push({ seq: call.seq, channel: call.channel, cell, live: true } as RunStep)
    journalCell(config, log, call.channel, cell)
  })
  log.track(done, call.step, () => stop.abort())
  // @note durable(): the result is on disk before the agent sees a byte of it (the body waits in its queue meanwhile).
  if (journal) await done
  return { response: passOn(body) }
}

/** What a request made by a running tool body meets: it passes untouched (even past a whole-suite attachment). */
const INSIDE_TOOL: RequestRoute = { handle: async () => undefined }

/** Run an in-process tool for real and keep its output or thrown error. */
async function runTool(config: RunConfig, log: RunLog, call: FnToolCall): Promise<Answer> {
  const t0 = performance.now()
  const cell: ToolCell = {
    seq: call.seq,
    step: call.id,
    kind: 'fn',
    name: call.name,
    ...(call.callId ? { callId: call.callId } : {}),
    key: call.key,
    args: call.args,
    durationMs: 0,
    truncated: false,
  }
  config.journal?.intent({ kind: 'intent', seq: call.seq, step: call.step, key: call.key })
  try {
    // @note SPEC §3: traffic made inside a wrapped tool belongs to that tool's cell: it goes out as it would
    // without fluxlab and is not recorded, since a replay never runs the body that made it.
    const output = await state.runs.run(INSIDE_TOOL, () => call.run())
    const stored = config.redactor.json(toJsonValue(output))
    // SPEC §3: the cap applies to every cell. An output over it is not stored, and its replay is refused.
    const bytes = Buffer.byteLength(JSON.stringify(stored) ?? '')
    if (bytes > config.maxBytes) Object.assign(cell, { truncated: true, originalBytes: bytes })
    else cell.output = stored
    return { output }
  } catch (e) {
    cell.error = serializeError(e, config.redactor)
    return { error: e }
  } finally {
    cell.durationMs = Math.round(performance.now() - t0)
    log.entries.push({ seq: call.seq, channel: 'tool', cell: stripUndefined(cell), live: true })
    journalCell(config, log, 'tool', cell)
  }
}

function journalCell(config: RunConfig, log: RunLog, channel: 'model' | 'tool', cell: ModelCell | ToolCell): void {
  const journal = config.journal
  if (!journal) return
  log.journalLive++
  try {
    journal.cell(channel === 'model' ? { kind: 'cell', channel, cell: cell as ModelCell } : { kind: 'cell', channel, cell: cell as ToolCell })
  } catch (e) {
    // @note issue 13: a result the journal refused (FLUX_CREDENTIAL_FOUND) fails the run at its step, even when the
    // agent catches what its tool threw; the journal keeps every line before it.
    throw log.fail(e, cell.step)
  }
}

async function send(config: RunConfig, log: RunLog, request: Request, bytes: Buffer, step: string): Promise<Response> {
  const url = new URL(request.url)
  const recording = config.mode === 'record'
  const failed = recording ? `record ${step} of scenario "${config.name}"` : `send ${step} of scenario "${config.name}" live`
  const placeholder = [...request.headers.values(), request.url].map(placeholderIn).find((v) => v !== undefined)
  if (placeholder !== undefined) {
    const name = placeholder || 'its key variable'
    throw new FluxError('FLUX_NO_KEY', {
      failed,
      reason:
        `the request to ${url.host} carries fluxlab's placeholder for ${name}: this test file replays fixtures that use ${name}, so fluxlab filled it ` +
        `while it is unset, but this ${recording ? 'scenario has no fixture and records' : 'run goes live'}, which needs the real key`,
      fix: `Set ${name} and run it again: ${config.command(`${placeholder || 'THE_KEY'}=<your key>`)}`,
    })
  }
  if (config.offline)
    throw new FluxError('FLUX_OFFLINE', {
      failed,
      reason: `FLUX_OFFLINE=1 forbids live requests (${request.method} ${url.host})`,
      fix: 'Unset FLUX_OFFLINE to record, or commit a recorded fixture for this scenario.',
    })
  // SPEC §2: the names (never the values) of the key variables the request carries go into the manifest.
  if (recording) for (const name of carriedKeyVars(request)) log.keyVars.add(name)
  // @note a message that is not HTTP on the wire (MCP over stdio, src/sources/mcp-transport.ts) goes out the way its maker said.
  const own = ownSender(request)
  if (own) return own(config.upstream)
  return config.live(liveRequest(request, bytes, config.upstream))
}

/**
 * The request as it goes out: its body as `classifyRequest` buffered it (a `node:http` request written
 * in chunks has no length, and a streamed body cannot be sent again through fetch), to its host's
 * upstream when one is set (`upstream` / `FLUX_UPSTREAM`): the same method, headers and body.
 */
function liveRequest(request: Request, bytes: Buffer, upstream: Record<string, URL>): Request {
  const routed = upstreamed(new URL(request.url), upstream)
  const bodyless = request.method === 'GET' || request.method === 'HEAD' || request.body === null
  // @note the live copy keeps the client's redirect mode (node:http: manual), or the pre-interception fetch would
  // follow a redirect the client meant to see.
  const redirect = redirectModeOf(request)
  if (!routed && bodyless && redirect === request.redirect) return request
  const target = routed ?? new URL(request.url)
  const headers = new Headers(request.headers)
  for (const h of ['host', 'content-length', 'transfer-encoding']) headers.delete(h)
  const body = bodyless ? undefined : (bytes as Uint8Array<ArrayBuffer>)
  return new Request(target, { method: request.method, headers, body, signal: request.signal, redirect })
}

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

/**
 * The live stage, the bottom of the pipeline (record mode, a check's model miss, a what-if bridged live): a call goes out
 * for real and is answered the moment its headers come. Its body is handed to the caller as the upstream yields it while
 * a timestamped copy is captured beside the caller; the cell (the canonical request and its key, redaction, the cap, the
 * key variables, the journal) is kept after the end of the body (./live-cells.ts). From its send until its cell is kept
 * the call is in flight on the run's log, so the end of the run waits for it, or stores it as never answered. Under
 * `durable()` the cell is journaled before the agent sees a byte.
 * @note issue 40 item 6: what needs nothing from the provider's answer waits until the client has it.
 */
import type { RecordedResponse } from '../../cassette/cell.js'
import { encodeChunk } from '../../cassette/chunks.js'
import { REPLAY_KEY, placeholderIn } from '../../context/replay-keys.js'
import { FluxError, isFluxError } from '../../errors.js'
import { sendLive } from '../../sources/live.js'
import type { Answer, HttpToolRequest, ModelRequest, Stage } from './call.js'
import type { RunConfig } from './config.js'
import { keepCaptured, keepFailedSend, keepUnanswered, type Captured, type Sent } from './live-cells.js'
import { runTool } from './live-tool.js'
import type { InFlight, RunLog } from './log.js'
import { awaitingAnswer, noteCancel } from './mcp-cancel.js'
import { unansweredAtEnd } from './unanswered.js'

type LiveCall = Readonly<ModelRequest | HttpToolRequest>

/**
 * The bottom of the pipeline: send the call for real and keep what came back.
 * @example
 * const stages = [journalStage(config, log, hooks), liveStage(config, log)]
 */
export function liveStage(config: RunConfig, log: RunLog): Stage {
  return async (call): Promise<Answer> => {
    if (call.channel === 'tool' && call.kind === 'fn') return runTool(config, log, call)
    if (call.channel === 'tool') noteCancel(log, call)
    return captureLive(config, log, call)
  }
}

/** One live HTTP exchange, for both channels: sent, answered at its headers, its body forwarded and captured. */
async function captureLive(config: RunConfig, log: RunLog, call: LiveCall): Promise<Answer> {
  const sent: Sent = { start: performance.now(), t0: Date.now() }
  const journal = config.journal
  journal?.intent({ kind: 'intent', seq: call.seq, step: call.step, key: call.key })
  refuseUnsendable(config, call)
  // @note issue 28: an MCP request waits for its answer, which a cancel naming its JSON-RPC id cuts (./mcp-cancel.ts).
  const answered = call.channel === 'tool' ? awaitingAnswer(log, call) : undefined
  // @note issue 38: the call is on the tape from its send: one whose headers never come is stored when the run ends.
  const flight = inFlight(log, call, sent.start, (rec) => keepUnanswered(config, log, call, rec, undefined, sent, answered))
  let res: Response
  try {
    res = await sendLive(call.request, call.bytes, config.upstream, config.live)
  } catch (e) {
    if (!flight.headers()) return { response: Response.error() }
    try {
      if (isFluxError(e)) answered?.()
      else keepFailedSend(config, log, call, e, sent, answered)
    } finally {
      flight.end()
    }
    if (isFluxError(e)) throw e
    return { response: Response.error() }
  }
  const passOn = (body: ReadableStream<Uint8Array> | null) => {
    const headers = new Headers(res.headers)
    // the body is handed over decoded: its encoding and length go
    for (const h of ['content-encoding', 'content-length', 'transfer-encoding']) headers.delete(h)
    return new Response(body, { status: res.status, statusText: res.statusText, headers })
  }
  // the run ended before its headers came: it is on the tape as unanswered, and what comes now is the client's alone
  if (!flight.headers()) return { response: passOn(res.body) }
  if (call.channel === 'model') log.modelLive++
  sent.late = log.hasEnded
  const stop = new AbortController()
  // The client aborting stops our capture too: whether the live request sees the abort depends on the client.
  call.request.signal.addEventListener('abort', () => stop.abort(), { once: true })
  // @note issue 14: the caller's copy of the body is handed over as the upstream yields it; redaction, the cap,
  // the cell (its canonical request and key) and the journal wait for the end of the body, beside the caller.
  const { body, captured } = forwardCapturing(res.body, sent.start, stop.signal, call.request.signal)
  const done = captured.then((c) => keepCaptured(config, log, call, res, c, sent, answered))
  flight.body(done, () => stop.abort())
  // @note durable(): the result is on disk before the agent sees a byte of it (the body waits in its queue meanwhile).
  if (journal) await done
  return { response: passOn(body) }
}

/**
 * A request that must not go live: one carrying a replay's placeholder key, and any under `FLUX_OFFLINE`.
 * @note the placeholder is found by its marker; the variable it stands for is read only for the message.
 */
function refuseUnsendable(config: RunConfig, { request, url, step }: LiveCall): void {
  const recording = config.mode === 'record'
  const failed = recording ? `record ${step} of scenario "${config.name}"` : `send ${step} of scenario "${config.name}" live`
  let marked = request.url.includes(REPLAY_KEY)
  for (const value of request.headers.values()) marked ||= value.includes(REPLAY_KEY)
  if (marked) {
    const placeholder = [...request.headers.values(), request.url].map(placeholderIn).find((v) => v !== undefined) ?? ''
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
}

/**
 * `call` in flight on the run's log (`log.inFlight`) from its send until its cell is kept. When the run ends first, a
 * call whose headers never came is stored by `unanswered` (./unanswered.ts says how), and a body still being read stops
 * being captured (kept as open).
 */
function inFlight(log: RunLog, call: LiveCall, start: number, unanswered: (rec: RecordedResponse) => void) {
  const signal = call.request.signal
  let abortedAt: number | undefined
  const onAbort = () => (abortedAt = performance.now())
  signal.addEventListener('abort', onAbort, { once: true })
  let waiting = true
  let stopBody: (() => void) | undefined
  let settle!: () => void
  const flight: InFlight = {
    done: new Promise<void>((r) => (settle = r)),
    stop: () => {
      if (stopBody) return stopBody()
      if (!headers()) return
      try {
        unanswered(unansweredAtEnd(log, call, start, abortedAt))
      } catch (e) {
        log.fail(e, call.step)
      }
      end()
    },
  }
  /** The headers came, or the send failed: `true` when the caller keeps the call, `false` when the end of the run did. */
  const headers = () => {
    if (!waiting) return false
    waiting = false
    signal.removeEventListener('abort', onAbort)
    return true
  }
  const end = () => {
    log.inFlight.delete(flight)
    settle()
  }
  log.inFlight.add(flight)
  return {
    headers,
    end,
    /**
     * Its body is being captured: `kept` settles when the cell is kept, `stop` ends the capture.
     * @note issue 13: a cell that fails (a secret the journal refused) fails the run at its step, never as an unhandled rejection.
     */
    body(kept: Promise<void>, stop: () => void) {
      stopBody = stop
      kept.then(end, (e: unknown) => void (log.fail(e, call.step), end()))
    },
  }
}

/**
 * The caller's copy of a live body, and the capture of it beside the caller. Each chunk is handed on
 * the moment the upstream yields it (one reader on the upstream, no second branch to pull), then kept
 * with its time in ms since `start`. Encoding the kept chunks waits for the end of the body.
 * A failure mid-stream reaches the caller as it came, and is kept as the transport error with the
 * chunks before it. `stop` ends the capture (the stream is kept as open) and never the caller's copy; `client`, the
 * client's own signal, errors the caller's copy when it aborts.
 * @note issue 14: a recording holds no chunk: no tee, no per-chunk work before the caller's enqueue.
 * @example
 * const { body, captured } = forwardCapturing(res.body, performance.now(), stop.signal, request.signal)
 */
function forwardCapturing(
  upstream: ReadableStream<Uint8Array> | null,
  start: number,
  stop?: AbortSignal,
  client?: AbortSignal,
): { body: ReadableStream<Uint8Array> | null; captured: Promise<Captured> } {
  if (!upstream) return { body: null, captured: Promise.resolve({ chunks: [] }) }
  const reader = upstream.getReader()
  const kept: Array<{ bytes: Uint8Array; t: number }> = []
  let capturing = true
  let callerGone = false
  let settle!: (c: Captured) => void
  const captured = new Promise<Captured>((resolve) => (settle = resolve))
  const finish = (end: Omit<Captured, 'chunks'>) => {
    if (!capturing) return
    capturing = false
    stop?.removeEventListener('abort', onStop)
    settle({ chunks: kept.map((c) => encodeChunk(c.bytes, c.t)), ...end })
  }
  // @note SPEC §3: the run ended with this stream still open: stop keeping it (the client reads on, ours alone).
  const onStop = () => {
    finish({ open: true })
    if (callerGone) void reader.cancel().catch(() => {})
  }
  let caller!: ReadableByteStreamController
  // A byte stream, as the fetch body it stands for (a BYOB reader works on it). Its enqueue transfers the chunk's
  // buffer, so the caller gets the copy and the capture keeps the upstream's own chunk.
  const body = new ReadableStream(
    {
      type: 'bytes',
      start: (c) => void (caller = c),
      // The client cancelling its copy leaves the capture reading to the end (as a tee's branch would).
      cancel: (reason) => {
        callerGone = true
        if (!capturing) return reader.cancel(reason).catch(() => {})
      },
    },
    { highWaterMark: 0 },
  )
  const hand = (f: () => void) => {
    if (callerGone) return
    try {
      f()
    } catch {
      callerGone = true
    }
  }
  const pump = async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        if (!value?.byteLength) continue
        const t = performance.now()
        hand(() => caller.enqueue(value.slice()))
        if (capturing) kept.push({ bytes: value, t: Math.round(t - start) })
      }
      hand(() => {
        caller.close()
        // a BYOB read waiting at the end is answered with its empty view (a byte stream's close leaves it pending)
        caller.byobRequest?.respond(0)
      })
      finish({})
    } catch (e) {
      hand(() => caller.error(e))
      const err = e as Error & { code?: string; cause?: { code?: string } }
      finish({ transportError: { name: err.name, message: err.message, code: err.code ?? err.cause?.code } })
    }
  }
  if (stop?.aborted) onStop()
  else stop?.addEventListener('abort', onStop, { once: true })
  // The client's own abort errors its copy at once, as fetch's body does: it does not wait for the upstream to see the
  // abort (under load the openai SDK read on to the end of the stream, past its own abort: a CI flake of abort.test).
  const onClientAbort = () => {
    if (callerGone) return
    callerGone = true
    try {
      caller.error(client!.reason ?? new DOMException('This operation was aborted', 'AbortError'))
    } catch {
      // already closed or errored
    }
  }
  if (client?.aborted) onClientAbort()
  else client?.addEventListener('abort', onClientAbort, { once: true })
  void pump()
  return { body, captured }
}

import type { Fixture, RecordedResponse, TransportError } from '../../cassette/cell.js'
import { decodeChunk } from '../../cassette/chunks.js'
import { renderDiff, type JsonDiffRow } from '../../cassette/json-diff.js'
import { absorbHint } from '../../cassette/normalize.js'
import { readdressed } from '../../cassette/rpc-readdress.js'
import { ModelTape, ToolTape } from '../../cassette/tape.js'
import type { Intervention } from '../intervention.js'
import type { Answer, Call, Next, Stage } from './call.js'
import { restoreError } from './cell-values.js'
import type { RunConfig } from './config.js'
import type { RunLog } from './log.js'

/** The tape stage and what the end of the run asks of it. */
export interface TapeStage extends Stage {
  /** Recorded cells never served, model channel first. */
  unused(): { model: ReturnType<ModelTape['unused']>; tools: ReturnType<ToolTape['unused']> }
  /** The cells served so far, by `seq` on each channel (a process that takes over the run serves the others). */
  used(): UsedCells
  /** Mark cells another process served from the same fixture. */
  markUsed(used: UsedCells): void
}

/** Cells of a fixture served, by `seq` on each channel. */
export interface UsedCells {
  model: number[]
  tools: number[]
}

const NULL_BODY = new Set([101, 204, 205, 304])

/**
 * A Response that replays recorded chunks with their exact byte boundaries,
 * optionally paced by recorded gaps, and fails mid-stream like the original when it did.
 * Built where the cell is served (the journal stage replays with it too).
 * @example
 * replayResponse(cell.response, { timing: 'recorded' })
 */
export function replayResponse(rec: RecordedResponse, opts: { timing?: 'recorded' | number; transportError?: TransportError; signal?: AbortSignal } = {}): Response {
  // @note status 0 is a call that never got a response (a fault a what-if injected: reset, timeout).
  if (rec.status === 0) return Response.error()
  const headers = new Headers(rec.headers)
  if (NULL_BODY.has(rec.status)) return new Response(null, { status: rec.status, headers })
  const scale = opts.timing === 'recorded' ? 1 : typeof opts.timing === 'number' ? opts.timing : 0
  let i = 0
  let last = 0
  // @note issue 25: no chunk is read ahead (highWaterMark 0): each is decoded when the client reads, as a live body arrives.
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (i >= rec.chunks.length) {
          // @note a stream open at the end of the recording, or one the client aborted, stays open until the client
          // closes (or aborts) it: the client sees its own abort, never a network error it did not get.
          // (the abort is wired here: a mocked body does not see the request's signal by itself)
          if (rec.open || rec.clientAbort)
            return new Promise<void>((resolve) => {
              const abort = () => {
                controller.error(new DOMException('This operation was aborted', 'AbortError'))
                resolve()
              }
              if (opts.signal?.aborted) abort()
              else opts.signal?.addEventListener('abort', abort, { once: true })
            })
          if (opts.transportError) controller.error(Object.assign(new TypeError('terminated'), { cause: opts.transportError }))
          else controller.close()
          return
        }
        const chunk = rec.chunks[i++]
        const gap = (chunk.t - last) * scale
        last = chunk.t
        if (gap > 0) await new Promise((r) => setTimeout(r, gap))
        controller.enqueue(decodeChunk(chunk))
      },
    },
    { highWaterMark: 0 },
  )
  return new Response(body, { status: rec.status, headers })
}

/** A request the client aborted before any response: the replay answers nothing until the client aborts again. */
function untilAbort(signal: AbortSignal): Promise<Response> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(Response.error())
    signal.addEventListener('abort', () => resolve(Response.error()), { once: true })
  })
}

/**
 * Serve a call from the fixture: the first unused cell with its key (model requests fall back
 * to the next cell in order, as drift, unless the intervention asks for exact keys). A call the
 * tape cannot answer is passed on to the off-tape stage with its miss.
 * @example
 * const tape = tapeStage(config, log, fixture, iv)
 */
export function tapeStage(config: RunConfig, log: RunLog, fixture: Fixture, iv: Intervention | undefined): TapeStage {
  // @note a fork stores the faults it injected as cells (so its trace shows them); they are the change, not the
  // world, so a counterfactual never serves them from the tape (it injects them again).
  const world = <T extends object>(cells: readonly T[]) => (iv ? cells.filter((c) => !('injected' in c)) : cells)
  const model = new ModelTape(world(fixture.model))
  const tools = new ToolTape(world(fixture.tools))
  const timing = config.timing
  const closest = (step: string | undefined, diff: JsonDiffRow[] | undefined) => (diff?.length ? `; closest recorded ${step}: ${renderDiff(diff).join('; ')}` : '')

  const stage = async (call: Call, next: Next): Promise<Answer> => {
    if (call.channel === 'model') {
      const take = model.take(call.canonical, call.key, { exactOnly: iv?.exactOnly() })
      if (take.kind === 'miss') {
        const why =
          take.reason === 'overflow'
            ? `the run made more model calls than the ${model.cells.length} recorded`
            : take.reason === 'endpoint'
              ? `no recorded call is left at ${call.canonical.method} ${call.canonical.path.split('?')[0]} (${call.codec.family}); the next unused recorded call is ${take.closest?.step} at ${take.closest?.request.method} ${take.closest?.request.path.split('?')[0]} (${take.closest?.family})`
              : take.reason === 'event'
                ? `it is a realtime ${call.codec.socket?.event(call.canonical.body)} event where the recording has ${call.codec.socket?.event(take.closest?.request.body)}`
                : 'no recorded call matches this request exactly'
        return next(call, { why, details: closest(take.closest?.step, take.diff) + absorbHint(take.diff), closest: take.closest?.step, diff: take.diff })
      }
      const cell = take.cell
      if (take.kind === 'drift')
        log.diverge('model_request_drift', cell.step, `request differs from the recording, served by position: ${renderDiff(take.diff).join('; ')}${absorbHint(take.diff)}`, {
          diff: take.diff,
          closest: cell.step,
        })
      if (cell.truncated) return { response: log.refuseTruncated(cell) }
      log.entries.push({ seq: call.seq, channel: 'model', cell })
      if (cell.response.status === 0 && cell.response.clientAbort) return { response: await untilAbort(call.request.signal) }
      return { response: replayResponse(cell.response, { timing, transportError: cell.transportError, signal: call.request.signal }) }
    }
    const take = tools.take(call)
    if (take.kind === 'miss') {
      const why = take.idMismatch
        ? `call id ${call.callId} was recorded for ${take.closest?.name} with other arguments`
        : `no recorded call of ${call.name} with these arguments`
      return next(call, { why, details: closest(take.closest?.step, take.diff), closest: take.closest?.step, diff: take.diff })
    }
    const cell = take.cell
    if (call.kind === 'fn') {
      if (cell.truncated) return { error: log.truncatedError(cell) }
      log.entries.push({ seq: call.seq, channel: 'tool', cell })
      // @note the fixture is shared and frozen (issue 14): the agent gets its own copy of what it may change.
      return cell.error ? { error: restoreError(structuredClone(cell.error)) } : { output: structuredClone(cell.output) }
    }
    if (cell.truncated) return { response: log.refuseTruncated(cell) }
    log.entries.push({ seq: call.seq, channel: 'tool', cell })
    // @note a cell with a transport error and no response never got one (a fault a what-if injected): a network error again
    if (!cell.response && cell.transportError) return { response: Response.error() }
    if (cell.response?.status === 0 && cell.response.clientAbort) return { response: await untilAbort(call.request.signal) }
    const rec = cell.response ?? { status: 200, headers: {}, chunks: [] }
    // @note a JSON-RPC answer goes to today's id and progress token: a client shared across tests numbers on, and parallel calls number in arrival order.
    const served = call.rpcId === undefined ? rec : readdressed(rec, cell.rpcId, { rpcId: call.rpcId, body: call.bytes })
    return { response: replayResponse(served, { timing, transportError: cell.transportError, signal: call.request.signal }) }
  }
  return Object.assign(stage, {
    unused: () => ({ model: model.unused(), tools: tools.unused() }),
    used: () => ({ model: model.usedSeqs(), tools: tools.usedSeqs() }),
    markUsed(used: UsedCells) {
      model.markUsed(used.model)
      tools.markUsed(used.tools)
    },
  })
}

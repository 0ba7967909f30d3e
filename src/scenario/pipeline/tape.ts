/**
 * The tape stage: a replay serves each call from the fixture, through the tapes of its two channels (below), and hands
 * what the tape cannot answer on to the off-tape stage as its miss.
 */
import type { CanonicalRequest, Fixture, ModelCell, RecordedResponse, ToolCell, TransportError } from '../../cassette/cell.js'
import { decodeChunk } from '../../cassette/chunks.js'
import { NULL_BODY } from '../../cassette/cell-fields.js'
import { diffJson, renderDiff, type JsonDiffRow } from '../../cassette/json-diff.js'
import { rawCells } from '../../cassette/handout.js'
import { isMcpHandshake } from '../../cassette/canonical.js'
import { codecFor } from '../../providers/registry.js'
import { absorbHint } from '../../cassette/normalize.js'
import { readdressed } from '../../cassette/rpc-readdress.js'
import type { Intervention } from '../intervention.js'
import type { Answer, Call, Next, Stage } from './call.js'
import { restoreError } from './cell-values.js'
import { untilAbort } from './until-abort.js'
import type { RunConfig } from './config.js'
import type { RunLog } from './log.js'
import { modelMissWhy, type ModelTake, type ToolTake, type UsedCells } from './takes.js'

/** The tape stage and what the end of the run asks of it. */
export interface TapeStage extends Stage {
  /** Recorded cells never served, model channel first. */
  unused(): { model: ReturnType<ModelTape['unused']>; tools: ReturnType<ToolTape['unused']> }
  /** The cells served so far, by `seq` on each channel (a process that takes over the run serves the others). */
  used(): UsedCells
  /** Mark cells another process served from the same fixture. */
  markUsed(used: UsedCells): void
}

/**
 * A Response that replays recorded chunks with their exact byte boundaries, optionally paced by recorded gaps, and
 * fails mid-stream like the original when it did. Built where the cell is served (the journal stage replays with it too).
 * @example
 * replayResponse(cell.response, { timing: 'recorded' })
 */
export function replayResponse(
  rec: RecordedResponse,
  opts: { timing?: 'recorded' | number; transportError?: TransportError; signal?: AbortSignal } = {},
): Response {
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

/**
 * A call that never got an answer while recording (no response headers): the client aborted it, cancelled it
 * (`notifications/cancelled`), or it was still waiting when the run ended. Its replay answers nothing until the client aborts.
 */
const neverAnswered = (rec: RecordedResponse | undefined) => rec?.status === 0 && (rec.clientAbort !== undefined || rec.open === true)

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
  const closest = (step: string | undefined, diff: JsonDiffRow[] | undefined) =>
    diff?.length ? `; closest recorded ${step}: ${renderDiff(diff).join('; ')}` : ''

  const stage = async (call: Call, next: Next): Promise<Answer> => {
    if (call.channel === 'model') {
      const take = model.take(call.canonical, call.key, { exactOnly: iv?.exactOnly() })
      if (take.kind === 'miss') {
        const why = modelMissWhy(take, call, model.cells.length)
        return next(call, { why, details: closest(take.closest?.step, take.diff) + absorbHint(take.diff), closest: take.closest?.step, diff: take.diff })
      }
      const cell = take.cell
      if (take.kind === 'drift')
        log.diverge(
          'model_request_drift',
          cell.step,
          `request differs from the recording, served by position: ${renderDiff(take.diff).join('; ')}${absorbHint(take.diff)}`,
          { diff: take.diff, closest: cell.step },
        )
      if (cell.truncated) return { response: log.refuseTruncated(cell) }
      log.entries.push({ seq: call.seq, channel: 'model', cell })
      if (neverAnswered(cell.response)) return { response: await untilAbort(call.request) }
      if (cell.response.afterEnd) await log.ended // answered after its test was over: not before this one is
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
    if (neverAnswered(cell.response)) return { response: await untilAbort(call.request) }
    const rec = cell.response ?? { status: 200, headers: {}, chunks: [] }
    if (rec.afterEnd) await log.ended
    // @note a JSON-RPC answer goes to today's id and progress token: a client shared across tests numbers on, and parallel calls number in arrival order.
    const served = call.rpcId === undefined ? rec : readdressed(rec, cell.rpcId, { rpcId: call.rpcId, body: call.bytes })
    return { response: replayResponse(served, { timing, transportError: cell.transportError, signal: call.request.signal }) }
  }
  return Object.assign(stage, {
    unused: () => ({ model: model.unused(), tools: tools.unused() }),
    used: () => ({ model: model.usedSeqs(), tools: tools.usedSeqs() }),
    markUsed: (used: UsedCells) => (model.markUsed(used.model), tools.markUsed(used.tools)),
  })
}

/**
 * One channel of a fixture during replay: each recorded cell is served at most once. Matching reads the cells as the
 * read checked them (key, seq, request); only the cell served or named is handed out. The fixture's hand-out
 * (src/cassette/handout.ts) checked and froze every cell already, so a cell is read as it is, without a call into the
 * view; one that failed its check is handed out through the view, which throws its error: it stays unused.
 * @note issue 40 item 3: no check runs on a request's path.
 */
class Tape<T extends { seq: number }> {
  protected readonly used = new Set<number>()
  protected readonly raw: readonly T[]
  readonly #view: ReturnType<typeof rawCells<T>>
  constructor(readonly cells: readonly T[]) {
    this.#view = rawCells(cells)
    this.raw = this.#view?.raw ?? cells
  }

  /** Cell i, handed out. */
  protected at(i: number): T {
    const view = this.#view
    return !view || view.ready[i] === 1 ? this.raw[i] : view.at(i)
  }

  /** The `seq` of every cell served so far; `markUsed` marks them so on another tape of the same fixture. */
  usedSeqs(): number[] {
    return [...this.used]
  }

  markUsed(seqs: readonly number[]): void {
    for (const seq of seqs) this.used.add(seq)
  }
}

/**
 * The model channel: a request takes the first unused cell with its key; failing that, the next unused cell in
 * recorded order for the same method and path is served as drift.
 * @example
 * const take = new ModelTape(fixture.model).take(call.canonical, call.key)
 */
export class ModelTape extends Tape<ModelCell> {
  take(req: CanonicalRequest, key: string, opts: { exactOnly?: boolean } = {}): ModelTake {
    const exact = this.find((c) => c.key === key)
    if (exact >= 0) return this.serve(exact, (cell) => ({ kind: 'hit', cell }))
    const i = this.find((c) => c.request.method === req.method && samePath(c.request.path, req.path))
    const raw = i >= 0 ? this.raw[i] : undefined
    // @note a realtime frame is served by position only as the same event type: another type is another conversation.
    const socket = raw ? codecFor(raw.family).socket : undefined
    if (raw && socket && !opts.exactOnly && socket.event(raw.request.body) !== socket.event(req.body)) {
      const next = this.at(i)
      return { kind: 'miss', closest: next, diff: diffJson(next.request.body, req.body), reason: 'event' }
    }
    if (raw && !opts.exactOnly) return this.serve(i, (cell) => ({ kind: 'drift', cell, diff: diffJson(cell.request.body, req.body) }))
    // @note calls remain, at other endpoints (an embeddings request where a chat call was recorded): say that.
    const other = raw ? -1 : this.find(() => true)
    if (other >= 0) return { kind: 'miss', closest: this.at(other), reason: 'endpoint' }
    const closest = raw ? this.at(i) : this.closest(req)
    return { kind: 'miss', closest, diff: closest ? diffJson(closest.request.body, req.body) : undefined, reason: raw ? 'exact-only' : 'overflow' }
  }

  /** Cells never served, in recorded order. */
  unused(): ModelCell[] {
    return this.raw.flatMap((c, i) => (this.used.has(c.seq) ? [] : [this.at(i)]))
  }

  /** The index of the first unused cell `test` accepts, or -1. */
  private find(test: (c: ModelCell) => boolean): number {
    for (let i = 0; i < this.raw.length; i++) if (!this.used.has(this.raw[i].seq) && test(this.raw[i])) return i
    return -1
  }

  /** Hand out cell i (a cell that fails its check is refused, and stays unused) and mark it used. */
  private serve(i: number, take: (cell: ModelCell) => ModelTake): ModelTake {
    const cell = this.at(i)
    this.used.add(cell.seq)
    return take(cell)
  }

  private closest(req: CanonicalRequest): ModelCell | undefined {
    for (let i = this.raw.length - 1; i >= 0; i--) if (samePath(this.raw[i].request.path, req.path)) return this.at(i)
    return this.raw.length ? this.at(this.raw.length - 1) : undefined
  }
}

/** Query strings may differ (e.g. `?beta=true`); the path decides the endpoint. */
const samePath = (a: string, b: string) => a.split('?')[0] === b.split('?')[0]

/**
 * The tool channel. A call matches by call id when it has one, else by name + canonical args key, counting repeats;
 * so parallel calls replay in whatever order they complete. A call whose id matches but whose name or args differ is
 * a miss: the tape explains the id, not the call.
 * @example
 * const take = new ToolTape(fixture.tools).take({ name: 'read', key, callId: 'call_1', args })
 */
export class ToolTape extends Tape<ToolCell> {
  /** `legacyKey`: the call's key as a fixture recorded before issue 28 keyed it (an MCP progress token kept as sent). */
  take(call: { kind: 'http' | 'fn'; name: string; key: string; legacyKey?: string; callId?: string; args: unknown }): ToolTake {
    const free = this.raw.filter((c) => !this.used.has(c.seq) && c.kind === call.kind)
    if (call.callId) {
      const byId = free.find((c) => c.callId === call.callId)
      if (byId) {
        if (byId.name === call.name && byId.key === call.key) return this.hit(byId)
        return { kind: 'miss', closest: this.out(byId), diff: diffJson(byId.args, call.args), idMismatch: true }
      }
    }
    const byKey = free.find((c) => c.name === call.name && (c.key === call.key || c.key === call.legacyKey))
    if (byKey) return this.hit(byKey)
    // SPEC §3 / issue 12: the MCP handshake need not repeat exactly (another client version or capabilities, a client
    // that connects twice): the next recorded message of the same method answers it, else the last one used.
    if (isMcpHandshake(call.name)) {
      const same = free.find((c) => c.name === call.name) ?? [...this.raw].reverse().find((c) => c.name === call.name && this.used.has(c.seq))
      if (same) return this.hit(same)
    }
    // @note the closest call for the message: the same tool, else (HTTP) the same method and path on another host:port.
    const endpoint = (name: string) => name.replace(/^(\S+) [^/]*/, '$1 ')
    const sameName =
      free.find((c) => c.name === call.name) ??
      this.raw.find((c) => c.name === call.name) ??
      (call.kind === 'http' ? free.find((c) => c.kind === 'http' && endpoint(c.name) === endpoint(call.name)) : undefined)
    return { kind: 'miss', closest: sameName && this.out(sameName), diff: sameName ? diffJson(sameName.args, call.args) : undefined, idMismatch: false }
  }

  /** Recorded calls never made, but for the MCP handshake, which a client shared across tests need not repeat. */
  unused(): ToolCell[] {
    return this.raw.filter((c) => !this.used.has(c.seq) && !isMcpHandshake(c.name)).map((c) => this.out(c))
  }

  private hit(cell: ToolCell): ToolTake {
    const served = this.out(cell)
    this.used.add(cell.seq)
    return { kind: 'hit', cell: served }
  }

  /** A cell matched on its raw fields, handed out. */
  private out(cell: ToolCell): ToolCell {
    return this.at(this.raw.indexOf(cell))
  }
}

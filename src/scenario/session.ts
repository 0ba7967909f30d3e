import { createHash } from 'node:crypto'
import stableStringify from 'fast-json-stable-stringify'
import { canonicalBody, canonicalRequest, requestKey } from '../cassette/canonical.js'
import type { CanonicalRequest, Chunk, Fixture, ModelCell, RecordedResponse, ToolCell, TransportError } from '../cassette/cell.js'
import { bodyText, capChunks } from '../cassette/chunks.js'
import { severityOf, type Divergence, type DivergenceCode } from '../cassette/divergence.js'
import { renderDiff, type JsonDiffRow } from '../cassette/json-diff.js'
import type { Redactor } from '../cassette/redact.js'
import { ModelTape, ToolTape } from '../cassette/tape.js'
import { FluxError, isFluxError } from '../errors.js'
import type { Mode } from '../golden/update-mode.js'
import type { TraceStep } from '../golden/trace.js'
import { detectModelCall } from '../providers/registry.js'
import type { ModelCallCodec, ProviderFamily } from '../providers/types.js'
import { redactChunks, restoreError, serializeError, stripUndefined, toJsonValue } from './cell-values.js'
import { captureChunks, decodedHeaders, keptHeaders, offTapeResponse, replayResponse } from './http.js'
import { injectModelFault, interveneTool, type ToolAnswer, type ToolDispatch } from './intervene.js'
import type { Intervention } from './intervention.js'

export interface SessionConfig {
  name: string
  dir: string
  mode: Mode
  fixture?: Fixture
  redactor: Redactor
  ignore: readonly string[]
  hosts: Record<string, ProviderFamily>
  maxBytes: number
  timing?: 'recorded' | number
  offline: boolean
  /** Performs a live request outside interception (msw `bypass`). */
  live: (request: Request) => Promise<Response>
  /** A counterfactual's changes, or `check`'s rules; absent for a plain record or replay. */
  intervention?: Intervention
  /** `durable()`: serve an earlier run's journaled results first, and journal every live result before the agent sees it. */
  journal?: JournalHooks
}

/**
 * What `durable()` plugs into a recording session (SPEC §9). `intent` is called before a live
 * operation starts and `cell` after it finished, before its result is handed to the agent; both
 * write and flush to disk before returning.
 */
export interface JournalHooks {
  prefix: { model: readonly ModelCell[]; tools: readonly ToolCell[] }
  intent(entry: { kind: 'intent'; seq: number; step: string; key: string }): void
  cell(entry: { kind: 'cell'; channel: 'model'; cell: ModelCell } | { kind: 'cell'; channel: 'tool'; cell: ToolCell }): void
}

/** One step as the run made it; `live` when it went to the real provider or tool. */
export type SessionStep = { seq: number; live?: boolean } & TraceStep

/** A model request the tape could not explain that `check` sent live. */
export interface LiveMiss {
  step: string
  closest?: string
  diff?: JsonDiffRow[]
}

/**
 * One run of a scenario: decides, for every request the agent makes, whether
 * it is served from tape, recorded live, or refused; and keeps what happened.
 */
export class Session {
  readonly divergences: Divergence[] = []
  /** Set when a matcher or a thrown error has shown the divergences to the user. */
  acknowledged = false
  modelLive = 0
  /** Steps as the run made them (recorded cells in record mode, served cells in replay). */
  readonly steps: SessionStep[] = []
  /** Model requests `check` sent live because the tape could not explain them. */
  readonly misses: LiveMiss[] = []
  private seq = 0
  private modelCount = 0
  private toolCount = 0
  private readonly pending = new Set<Promise<void>>()
  private readonly modelTape?: ModelTape
  private readonly toolTape?: ToolTape
  private readonly journalModel?: ModelTape
  private readonly journalTools?: ToolTape
  /** `durable()`: operations answered from the journal, and run live, by this run. */
  journalServed = 0
  journalLive = 0

  constructor(readonly config: SessionConfig) {
    if (config.journal) {
      this.journalModel = new ModelTape(config.journal.prefix.model)
      this.journalTools = new ToolTape(config.journal.prefix.tools)
    }
    if (config.mode === 'replay') {
      if (!config.fixture) throw new Error('replay needs a fixture')
      // @note a fork stores the faults it injected as cells (so its trace shows them); they are the change, not the
      // world, so a counterfactual never serves them from the tape (it injects them again).
      const world = <T extends object>(cells: readonly T[]) => (config.intervention ? cells.filter((c) => !('injected' in c)) : cells)
      this.modelTape = new ModelTape(world(config.fixture.model))
      this.toolTape = new ToolTape(world(config.fixture.tools))
    }
  }

  get name(): string {
    return this.config.name
  }

  get mode(): Mode {
    return this.config.mode
  }

  /** The first fluxlab error raised while serving a request (e.g. `FLUX_OFFLINE`); `Scenario.run` throws it. */
  fatal?: Error

  /**
   * Route one intercepted request. Never throws: msw would turn a throw into a
   * 500 that SDKs retry. A fluxlab error is kept in `fatal` and answered off-tape;
   * a network failure of a live request reaches the client as a network error.
   */
  async handle(request: Request): Promise<Response> {
    try {
      return await this.route(request)
    } catch (e) {
      if (isFluxError(e)) {
        this.fatal ??= e
        return offTapeResponse(e.message)
      }
      return Response.error()
    }
  }

  private async route(request: Request): Promise<Response> {
    const url = new URL(request.url)
    const codec = detectModelCall(request.method, url, this.config.hosts)
    const body = new Uint8Array(await request.clone().arrayBuffer())
    const text = Buffer.from(body).toString('utf8')
    const seq = ++this.seq
    if (codec) return this.handleModel(request, url, text, codec, seq)
    return this.handleToolHttp(request, url, text, seq)
  }

  /** Wait for recordings still reading their bodies. */
  async settled(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending])
  }

  /** At the end of a replay: recorded calls never made are failures. */
  closeReplay(): void {
    if (this.config.mode !== 'replay') return
    const iv = this.config.intervention
    iv?.releaseHangs()
    this.warnUnwrappedTools()
    if (iv && !iv.reportUnused()) return
    for (const c of this.modelTape?.unused() ?? [])
      this.diverge('unused_interaction', c.step, `recorded ${c.step} (${c.model ?? c.family}) was never requested`)
    for (const c of this.toolTape?.unused() ?? [])
      this.diverge('unused_interaction', c.step, `recorded ${c.step} ${c.name} was never called`)
  }

  /**
   * SPEC §5: a replayed model turn asked for a tool and nothing on the tool channel answered it
   * (no wrapped call with its id, no tool call of any kind before the next model turn): the tool ran live.
   */
  private warnUnwrappedTools(): void {
    const steps = this.orderedSteps()
    const taped = new Set(steps.flatMap((s) => (s.channel === 'tool' && s.cell.callId ? [s.cell.callId] : [])))
    steps.forEach((s, i) => {
      if (s.channel !== 'model' || s.cell.toolCalls.length === 0) return
      const next = steps.slice(i + 1)
      const nextModel = next.findIndex((x) => x.channel === 'model')
      const between = nextModel < 0 ? next : next.slice(0, nextModel)
      if (between.some((x) => x.channel === 'tool')) return
      for (const call of s.cell.toolCalls)
        if (!taped.has(call.id))
          this.diverge(
            'unwrapped_tool',
            s.cell.step,
            `the model asked for tool "${call.name}" and no tool call on the tape answered it, so it ran live; wrap it with lab.tools({ ${call.name} }) or lab.tool('${call.name}', fn) so replay never re-fires its side effects`,
          )
    })
  }

  diverge(code: DivergenceCode, step: string, message: string, extra: { diff?: JsonDiffRow[]; closest?: string } = {}): void {
    if (this.divergences.some((d) => d.code === code && d.step === step && d.message === message)) return
    this.divergences.push({ code, severity: severityOf(code), step, message, ...extra })
  }

  /** Recorded cells in order, for the fixture. */
  recordedCells(): { model: ModelCell[]; tools: ToolCell[] } {
    const sorted = [...this.steps].sort((a, b) => a.seq - b.seq)
    return {
      model: sorted.flatMap((s) => (s.channel === 'model' ? [s.cell] : [])),
      tools: sorted.flatMap((s) => (s.channel === 'tool' ? [s.cell] : [])),
    }
  }

  orderedSteps(): TraceStep[] {
    return [...this.steps].sort((a, b) => a.seq - b.seq).map(({ channel, cell }) => ({ channel, cell }) as TraceStep)
  }

  /** Steps in run order, with their `live` flag (for forks and spend). */
  orderedEntries(): SessionStep[] {
    return [...this.steps].sort((a, b) => a.seq - b.seq)
  }

  private async handleModel(request: Request, url: URL, text: string, codec: ModelCallCodec, seq: number): Promise<Response> {
    const iv = this.config.intervention
    const n = ++this.modelCount
    const step = `model#${n}`
    if (iv && this.config.mode === 'replay') {
      if (iv.halted) return offTapeResponse(this.offTapeText(step, `the ${iv.check ? 'check' : 'what-if'} halted at ${iv.halted.step} (${iv.halted.reason})`))
      const rw = iv.rewriteModel(codec.family, url, text, n)
      if (rw) {
        request = rewrittenRequest(request, rw.url, rw.text)
        url = rw.url
        text = rw.text
        iv.markChanged(step, rw.description)
      }
    }
    const canonical = canonicalRequest(request.method, url, text, this.config)
    const key = requestKey(canonical)
    if (this.config.mode === 'record') {
      const journaled = this.fromJournalModel(canonical, key, step, seq)
      if (journaled) return journaled
      return this.recordModel(request, url, canonical, key, codec, seq, n)
    }
    const fault = iv?.modelFault(key)
    if (iv && fault) {
      const call = { family: codec.family, url: this.config.redactor.url(url.href), request: canonical, model: codec.parseRequest(canonical.body, url).model }
      return injectModelFault(iv, fault, { seq, step, key, call, signal: request.signal }, (s) => this.steps.push(s))
    }
    const take = this.modelTape!.take(canonical, key, { exactOnly: iv?.exactOnly() })
    if (take.kind === 'miss') {
      const why =
        take.reason === 'overflow'
          ? `the run made more model calls than the ${this.modelTape!.cells.length} recorded`
          : 'no recorded call matches this request exactly'
      const details = take.diff?.length ? `; closest recorded ${take.closest?.step}: ${renderDiff(take.diff).join('; ')}` : ''
      if (iv) return this.modelMiss(iv, { request, url, canonical, key, codec, seq, n }, { why, details, closest: take.closest?.step, diff: take.diff })
      this.diverge('model_index_overflow', step, `${why}${details}`, { diff: take.diff, closest: take.closest?.step })
      return offTapeResponse(this.offTapeText(step, `${why}. Re-record with FLUX_GOLDEN=update if the change is intended.`))
    }
    const cell = take.cell
    if (take.kind === 'drift')
      this.diverge('model_request_drift', cell.step, `request differs from the recording, served by position: ${renderDiff(take.diff).join('; ')}`, {
        diff: take.diff,
        closest: cell.step,
      })
    if (cell.truncated) {
      return this.refuseTruncated(cell)
    }
    this.steps.push({ seq, channel: 'model', cell })
    return replayResponse(cell.response, { timing: this.config.timing, transportError: cell.transportError })
  }

  /**
   * A model request the tape cannot explain, in a counterfactual or `check`: it goes live
   * (`offTape('live')`, a check miss) or halts the run (`offTape('halt')`, and any live under FLUX_OFFLINE).
   */
  private modelMiss(
    iv: Intervention,
    req: { request: Request; url: URL; canonical: CanonicalRequest; key: string; codec: ModelCallCodec; seq: number; n: number },
    miss: { why: string; details: string; closest?: string; diff?: JsonDiffRow[] },
  ): Promise<Response> | Response {
    const step = `model#${req.n}`
    if (iv.missAction('model') === 'live') {
      if (!this.config.offline) {
        this.misses.push({ step, closest: miss.closest, diff: miss.diff })
        return this.recordModel(req.request, req.url, req.canonical, req.key, req.codec, req.seq, req.n)
      }
      if (iv.check)
        throw new FluxError('FLUX_OFFLINE', {
          failed: `check ${step} of scenario "${this.name}"`,
          reason: `${miss.why}, and FLUX_OFFLINE=1 forbids sending it to the provider`,
          fix: 'Unset FLUX_OFFLINE to let check send it live (it is counted in modelLive), or re-record with FLUX_GOLDEN=update if the change is intended.',
          details: miss.diff?.length ? [`closest recorded ${miss.closest}:`, ...renderDiff(miss.diff)] : undefined,
        })
    }
    const offline = iv.missAction('model') === 'live'
    const how = offline ? 'FLUX_OFFLINE=1 forbids going live, so the what-if halts here' : "the what-if halts here (offTape: 'halt')"
    this.diverge('model_index_overflow', step, `${miss.why}${miss.details}; ${how}`, { diff: miss.diff, closest: miss.closest })
    iv.halt({ step, reason: miss.why, kind: offline ? 'offline' : 'off-tape', closest: miss.closest, diff: miss.diff })
    return offTapeResponse(
      this.offTapeText(step, `${miss.why}. The what-if halts here: record its fork with FLUX_GOLDEN=update, or bridge to the provider with .offTape('live').`),
    )
  }

  private async recordModel(request: Request, url: URL, canonical: CanonicalRequest, key: string, codec: ModelCallCodec, seq: number, n: number): Promise<Response> {
    const step = `model#${n}`
    const start = performance.now()
    const t0 = Date.now()
    this.config.journal?.intent({ kind: 'intent', seq, step, key })
    const res = await this.live(request, step)
    this.modelLive++
    const [mine, theirs] = res.body ? res.body.tee() : [null, null]
    const done = captureChunks(mine, start).then(({ chunks, transportError }) => {
      const response = this.storeResponse(res, chunks)
      const parsed = codec.parseResponse(bodyText(response.rec.chunks), res.headers.get('content-type') ?? undefined, res.status, url)
      const cell: ModelCell = {
        seq,
        step,
        key,
        family: codec.family,
        url: this.config.redactor.url(url.href),
        request: canonical,
        response: response.rec,
        model: parsed.model ?? codec.parseRequest(canonical.body, url).model,
        usage: parsed.usage,
        finishReason: parsed.finishReason,
        text: parsed.text,
        toolCalls: parsed.toolCalls,
        providerError: parsed.error,
        transportError,
        durationMs: Date.now() - t0,
        truncated: response.truncated,
        ...(response.truncated ? { originalBytes: response.originalBytes } : {}),
      }
      this.steps.push({ seq, channel: 'model', cell: stripUndefined(cell), live: true })
      this.journalCell({ kind: 'cell', channel: 'model', cell })
    })
    this.track(done)
    // @note durable(): the result is on disk before the agent sees a byte of it (the body waits in the tee meanwhile).
    if (this.config.journal) await done
    return new Response(theirs, { status: res.status, statusText: res.statusText, headers: decodedHeaders(res.headers) })
  }

  /**
   * One in-process tool call (`lab.tools`): in record mode `run` executes and its
   * output or thrown error is kept; in replay the recorded result is returned
   * (or the recorded error thrown) and `run` is never called.
   */
  async callTool(call: { name: string; args: unknown; callId?: string }, run: () => unknown): Promise<unknown> {
    const seq = ++this.seq
    const n = ++this.toolCount
    const args = this.config.redactor.json(toJsonValue(call.args))
    const key = `sha256:${createHash('sha256').update(stableStringify({ name: call.name, args })).digest('hex')}`
    if (this.config.mode === 'record') {
      const journaled = this.fromJournalTool({ kind: 'fn', name: call.name, key, callId: call.callId, args }, `tool#${n} ${call.name}`, seq)
      if (journaled) {
        if (journaled.error) throw restoreError(journaled.error)
        return journaled.output
      }
      return this.recordToolFn(call, run, { seq, n, key, args })
    }
    const iv = this.config.intervention
    const step = `tool#${n} ${call.name}`
    if (iv) {
      const answer = this.interveneTool(iv, { kind: 'fn', name: call.name, callId: call.callId, key, args, seq, n })
      if (answer && 'error' in answer) throw answer.error
      if (answer && 'output' in answer) return answer.output
    }
    const take = this.toolTape!.take({ kind: 'fn', name: call.name, key, callId: call.callId, args })
    if (take.kind === 'miss') {
      const details = take.diff?.length ? `; closest recorded ${take.closest?.step}: ${renderDiff(take.diff).join('; ')}` : ''
      const why = take.idMismatch
        ? `call id ${call.callId} was recorded for ${take.closest?.name} with other arguments`
        : `no recorded call of ${call.name} with these arguments`
      if (iv && iv.missAction('tool') === 'live' && !this.config.offline) return this.recordToolFn(call, run, { seq, n, key, args })
      const halts = iv ? `; the ${iv.check ? 'check' : 'what-if'} halts here${iv.check ? ' (the tool channel stays pinned to the tape)' : ''}` : ''
      this.diverge('tool_call_unrecorded', step, `${why}${details}${halts}`, { diff: take.diff, closest: take.closest?.step })
      iv?.halt({ step, reason: why, kind: iv.missAction('tool') === 'live' ? 'offline' : 'off-tape', closest: take.closest?.step, diff: take.diff })
      throw new FluxError('FLUX_DIVERGED', {
        failed: `replay ${step} of scenario "${this.name}"`,
        reason: `${why} (tool_call_unrecorded); the tool was not run`,
        fix: 'Re-record with FLUX_GOLDEN=update if the change is intended.',
        details: take.diff?.length ? renderDiff(take.diff) : undefined,
      })
    }
    const cell = take.cell
    this.steps.push({ seq, channel: 'tool', cell })
    if (cell.error) throw restoreError(cell.error)
    return cell.output
  }

  /** Run an in-process tool for real and keep its output or thrown error (record mode, or a what-if bridged live). */
  private async recordToolFn(call: { name: string; callId?: string }, run: () => unknown, at: { seq: number; n: number; key: string; args: unknown }): Promise<unknown> {
    const { seq, n, key, args } = at
    const t0 = performance.now()
    const cell: ToolCell = { seq, step: `tool#${n}`, kind: 'fn', name: call.name, ...(call.callId ? { callId: call.callId } : {}), key, args, durationMs: 0, truncated: false }
    this.config.journal?.intent({ kind: 'intent', seq, step: `tool#${n} ${call.name}`, key })
    try {
      const output = await run()
      cell.output = this.config.redactor.json(toJsonValue(output))
      return output
    } catch (e) {
      cell.error = serializeError(e, this.config.redactor)
      throw e
    } finally {
      cell.durationMs = Math.round(performance.now() - t0)
      this.steps.push({ seq, channel: 'tool', cell: stripUndefined(cell), live: true })
      this.journalCell({ kind: 'cell', channel: 'tool', cell })
    }
  }

  /** A counterfactual's say on one tool dispatch, before the tape (see `interveneTool`). */
  private interveneTool(iv: Intervention, call: ToolDispatch): ToolAnswer | undefined {
    return interveneTool(iv, call, {
      scenario: this.name,
      modelTurn: this.modelCount,
      push: (s) => this.steps.push(s),
      diverge: (code, step, message) => this.diverge(code, step, message),
    })
  }

  private async handleToolHttp(request: Request, url: URL, text: string, seq: number): Promise<Response> {
    const name = `${request.method} ${url.host}${url.pathname}`
    const query = [...new URL(this.config.redactor.url(url.href)).searchParams.entries()].sort(([a], [b]) => (a < b ? -1 : 1))
    const args: Record<string, unknown> = {}
    if (query.length) args.query = Object.fromEntries(query)
    const body = canonicalBody(text, this.config)
    if (body !== null) args.body = body
    const key = `sha256:${createHash('sha256').update(stableStringify({ name, args })).digest('hex')}`
    const n = ++this.toolCount
    if (this.config.mode === 'record') {
      const journaled = this.fromJournalTool({ kind: 'http', name, key, args }, `tool#${n} ${name}`, seq)
      if (journaled) return journaled.response ? replayResponse(journaled.response, { transportError: journaled.transportError }) : Response.error()
      return this.recordToolHttp(request, url, { name, args, key, seq, n })
    }
    const iv = this.config.intervention
    const step = `tool#${n} ${name}`
    if (iv) {
      const answer = this.interveneTool(iv, { kind: 'http', name, key, args, seq, n, url: this.config.redactor.url(url.href), signal: request.signal })
      if (answer && 'response' in answer) return answer.response
    }
    const take = this.toolTape!.take({ kind: 'http', name, key, args })
    if (take.kind === 'miss') {
      const details = take.diff?.length ? `; closest recorded ${take.closest?.step}: ${renderDiff(take.diff).join('; ')}` : ''
      if (iv && iv.missAction('tool') === 'live' && !this.config.offline) return this.recordToolHttp(request, url, { name, args, key, seq, n })
      const halts = iv ? `; the ${iv.check ? 'check' : 'what-if'} halts here` : ''
      this.diverge('tool_call_unrecorded', step, `no recorded call of ${name} with these arguments${details}${halts}`, { diff: take.diff, closest: take.closest?.step })
      iv?.halt({ step, reason: `no recorded call of ${name} with these arguments`, kind: iv.missAction('tool') === 'live' ? 'offline' : 'off-tape', closest: take.closest?.step, diff: take.diff })
      return offTapeResponse(this.offTapeText(step, `no recorded call of ${name} with these arguments. Re-record with FLUX_GOLDEN=update if the change is intended.`))
    }
    const cell = take.cell
    if (cell.truncated) {
      return this.refuseTruncated(cell)
    }
    this.steps.push({ seq, channel: 'tool', cell })
    // @note a cell with a transport error and no response never got one (a fault a what-if injected): a network error again
    if (!cell.response && cell.transportError) return Response.error()
    return replayResponse(cell.response ?? { status: 200, headers: {}, chunks: [] }, { timing: this.config.timing, transportError: cell.transportError })
  }

  /** Send an HTTP tool request for real and keep the response (record mode, or a what-if bridged live). */
  private async recordToolHttp(request: Request, url: URL, at: { name: string; args: unknown; key: string; seq: number; n: number }): Promise<Response> {
    const { name, args, key, seq, n } = at
    const step = `tool#${n}`
    const start = performance.now()
    const t0 = Date.now()
    this.config.journal?.intent({ kind: 'intent', seq, step: `${step} ${name}`, key })
    const res = await this.live(request, `${step} ${name}`)
    const [mine, theirs] = res.body ? res.body.tee() : [null, null]
    const done = (
      captureChunks(mine, start).then(({ chunks, transportError }) => {
        const response = this.storeResponse(res, chunks)
        const cell: ToolCell = {
          seq, step, kind: 'http', name, key, args,
          response: response.rec,
          url: this.config.redactor.url(url.href),
          transportError,
          durationMs: Date.now() - t0,
          truncated: response.truncated,
          ...(response.truncated ? { originalBytes: response.originalBytes } : {}),
        }
        this.steps.push({ seq, channel: 'tool', cell: stripUndefined(cell), live: true })
        this.journalCell({ kind: 'cell', channel: 'tool', cell })
      })
    )
    this.track(done)
    if (this.config.journal) await done
    return new Response(theirs, { status: res.status, statusText: res.statusText, headers: decodedHeaders(res.headers) })
  }

  /**
   * durable(): answer a model request from the earlier run's journal. Exact key only; a request that
   * differs while journaled results remain is a loud divergence (the code changed between crash and resume).
   */
  private fromJournalModel(req: CanonicalRequest, key: string, step: string, seq: number): Response | undefined {
    const tape = this.journalModel
    if (!tape || tape.unused().length === 0) return undefined
    const take = tape.take(req, key, { exactOnly: true })
    if (take.kind !== 'hit') throw this.journalDivergence(step, take.kind === 'miss' ? take.closest?.step : undefined, take.diff)
    this.journalServed++
    this.steps.push({ seq, channel: 'model', cell: take.cell })
    return replayResponse(take.cell.response, { transportError: take.cell.transportError })
  }

  private fromJournalTool(call: { kind: 'http' | 'fn'; name: string; key: string; callId?: string; args: unknown }, step: string, seq: number): ToolCell | undefined {
    const tape = this.journalTools
    if (!tape || tape.unused().length === 0) return undefined
    const take = tape.take(call)
    if (take.kind !== 'hit') {
      // @note a call the journal never saw (new call id, or a tool with no journaled result) is the crash tail: it runs
      // live. One the journal explains differently (same id, or same tool without ids, other arguments) is a divergence.
      const known = tape.unused().some((c) => c.kind === call.kind && (call.callId ? c.callId === call.callId : c.name === call.name))
      if (!known) return undefined
      throw this.journalDivergence(step, take.closest?.step, take.diff)
    }
    this.journalServed++
    this.steps.push({ seq, channel: 'tool', cell: take.cell })
    return take.cell
  }

  private journalDivergence(step: string, closest: string | undefined, diff: JsonDiffRow[] | undefined): FluxError {
    return new FluxError('FLUX_DIVERGED', {
      failed: `resume durable run "${this.name}" at ${step}`,
      reason: `the agent now sends a request the journal did not record${closest ? ` (journaled ${closest} differs)` : ''}: the code changed between the crash and the resume, and resuming will not improvise`,
      fix: `Resume with the code that started the run, or discard the run by deleting ${this.config.dir}.`,
      details: diff?.length ? renderDiff(diff) : undefined,
    })
  }

  private journalCell(entry: Parameters<JournalHooks['cell']>[0]): void {
    if (!this.config.journal) return
    this.journalLive++
    this.config.journal.cell(entry)
  }

  /** durable(): journaled results the resumed run never asked for. */
  journalUnused(): string[] {
    return [...(this.journalModel?.unused() ?? []), ...(this.journalTools?.unused() ?? [])].sort((a, b) => a.seq - b.seq).map((c) => c.step)
  }

  private async live(request: Request, step: string): Promise<Response> {
    if (this.config.offline)
      throw new FluxError('FLUX_OFFLINE', {
        failed: `record ${step} of scenario "${this.name}"`,
        reason: `FLUX_OFFLINE=1 forbids live requests (${request.method} ${new URL(request.url).host})`,
        fix: 'Unset FLUX_OFFLINE to record, or commit a recorded fixture for this scenario.',
      })
    return this.config.live(request)
  }

  private storeResponse(res: Response, chunks: Chunk[]): { rec: RecordedResponse; truncated: boolean; originalBytes: number } {
    const redacted = redactChunks(chunks, this.config.redactor)
    const capped = capChunks(redacted, this.config.maxBytes)
    return {
      rec: { status: res.status, headers: this.config.redactor.headers(keptHeaders(res.headers)), chunks: capped.chunks },
      truncated: capped.truncated,
      originalBytes: capped.originalBytes,
    }
  }

  /** SPEC §3 `truncated_cell`: a cell stored cut over the cap is never served as whole. */
  private refuseTruncated(cell: { step: string; originalBytes?: number }): Response {
    const rerecord = `FLUX_CASSETTE_MAX_BYTES=${(cell.originalBytes ?? 0) * 2} FLUX_GOLDEN=update`
    this.diverge('truncated_cell', cell.step, `the recorded response was ${cell.originalBytes} bytes, over the cap, and was stored cut; re-record with a larger cap: ${rerecord}`)
    return offTapeResponse(this.offTapeText(cell.step, `the recorded response is truncated (${cell.originalBytes} bytes). Re-record with a larger cap: ${rerecord}`))
  }

  private offTapeText(step: string, why: string): string {
    return `[fluxlab] ${step} of scenario "${this.name}" is off tape: ${why}`
  }

  private track(p: Promise<void>): void {
    const q = p.finally(() => this.pending.delete(q))
    this.pending.add(q)
  }
}

/** The same request with another URL and body (a what-if's `model`/`instructions`); the stale content-length goes. */
function rewrittenRequest(request: Request, url: URL, text: string): Request {
  const headers = new Headers(request.headers)
  headers.delete('content-length')
  return new Request(url, { method: request.method, headers, body: text, signal: request.signal })
}

import { createHash } from 'node:crypto'
import stableStringify from 'fast-json-stable-stringify'
import { canonicalBody, canonicalRequest, requestKey } from '../cassette/canonical.js'
import type { CanonicalRequest, Chunk, Fixture, ModelCell, RecordedResponse, ToolCell, TransportError } from '../cassette/cell.js'
import { bodyText, capChunks, encodeChunk } from '../cassette/chunks.js'
import { severityOf, type Divergence, type DivergenceCode } from '../cassette/divergence.js'
import { renderDiff, type JsonDiffRow } from '../cassette/json-diff.js'
import type { Redactor } from '../cassette/redact.js'
import { ModelTape, ToolTape } from '../cassette/tape.js'
import { FluxError, isFluxError } from '../errors.js'
import type { Mode } from '../golden/update-mode.js'
import type { TraceStep } from '../golden/trace.js'
import { detectModelCall } from '../providers/registry.js'
import type { ModelCallCodec, ProviderFamily } from '../providers/types.js'
import { captureChunks, decodedHeaders, keptHeaders, offTapeResponse, replayResponse } from './http.js'

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
  readonly steps: Array<{ seq: number } & TraceStep> = []
  private seq = 0
  private modelCount = 0
  private toolCount = 0
  private readonly pending = new Set<Promise<void>>()
  private readonly modelTape?: ModelTape
  private readonly toolTape?: ToolTape

  constructor(readonly config: SessionConfig) {
    if (config.mode === 'replay') {
      if (!config.fixture) throw new Error('replay needs a fixture')
      this.modelTape = new ModelTape(config.fixture.model)
      this.toolTape = new ToolTape(config.fixture.tools)
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
    this.warnUnwrappedTools()
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

  private async handleModel(request: Request, url: URL, text: string, codec: ModelCallCodec, seq: number): Promise<Response> {
    const canonical = canonicalRequest(request.method, url, text, this.config)
    const key = requestKey(canonical)
    const n = ++this.modelCount
    if (this.config.mode === 'record') return this.recordModel(request, url, canonical, key, codec, seq, n)
    const take = this.modelTape!.take(canonical, key)
    if (take.kind === 'miss') {
      const step = `model#${n}`
      const why =
        take.reason === 'overflow'
          ? `the run made more model calls than the ${this.modelTape!.cells.length} recorded`
          : 'no recorded call matches this request exactly'
      const details = take.diff?.length ? `; closest recorded ${take.closest?.step}: ${renderDiff(take.diff).join('; ')}` : ''
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
      this.diverge('truncated_cell', cell.step, `the recorded response was ${cell.originalBytes} bytes, over the cap, and was stored cut; re-record with a larger cap: FLUX_CASSETTE_MAX_BYTES=${(cell.originalBytes ?? 0) * 2} FLUX_GOLDEN=update`)
      return offTapeResponse(
        this.offTapeText(cell.step, `the recorded response is truncated (${cell.originalBytes} bytes). Re-record with a larger cap: FLUX_CASSETTE_MAX_BYTES=${(cell.originalBytes ?? 0) * 2} FLUX_GOLDEN=update`),
      )
    }
    this.steps.push({ seq, channel: 'model', cell })
    return replayResponse(cell.response, { timing: this.config.timing, transportError: cell.transportError })
  }

  private async recordModel(request: Request, url: URL, canonical: CanonicalRequest, key: string, codec: ModelCallCodec, seq: number, n: number): Promise<Response> {
    const step = `model#${n}`
    const start = performance.now()
    const t0 = Date.now()
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
      this.steps.push({ seq, channel: 'model', cell: stripUndefined(cell) })
    })
    this.track(done)
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
      const step = `tool#${n}`
      const t0 = performance.now()
      const cell: ToolCell = { seq, step, kind: 'fn', name: call.name, ...(call.callId ? { callId: call.callId } : {}), key, args, durationMs: 0, truncated: false }
      try {
        const output = await run()
        cell.output = this.config.redactor.json(toJsonValue(output))
        return output
      } catch (e) {
        cell.error = serializeError(e, this.config.redactor)
        throw e
      } finally {
        cell.durationMs = Math.round(performance.now() - t0)
        this.steps.push({ seq, channel: 'tool', cell: stripUndefined(cell) })
      }
    }
    const take = this.toolTape!.take({ kind: 'fn', name: call.name, key, callId: call.callId, args })
    if (take.kind === 'miss') {
      const step = `tool#${n} ${call.name}`
      const details = take.diff?.length ? `; closest recorded ${take.closest?.step}: ${renderDiff(take.diff).join('; ')}` : ''
      const why = take.idMismatch
        ? `call id ${call.callId} was recorded for ${take.closest?.name} with other arguments`
        : `no recorded call of ${call.name} with these arguments`
      this.diverge('tool_call_unrecorded', step, `${why}${details}`, { diff: take.diff, closest: take.closest?.step })
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
      const step = `tool#${n}`
      const start = performance.now()
      const t0 = Date.now()
      const res = await this.live(request, `${step} ${name}`)
      const [mine, theirs] = res.body ? res.body.tee() : [null, null]
      this.track(
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
          this.steps.push({ seq, channel: 'tool', cell: stripUndefined(cell) })
        }),
      )
      return new Response(theirs, { status: res.status, statusText: res.statusText, headers: decodedHeaders(res.headers) })
    }
    const take = this.toolTape!.take({ kind: 'http', name, key, args })
    if (take.kind === 'miss') {
      const step = `tool#${n} ${name}`
      const details = take.diff?.length ? `; closest recorded ${take.closest?.step}: ${renderDiff(take.diff).join('; ')}` : ''
      this.diverge('tool_call_unrecorded', step, `no recorded call of ${name} with these arguments${details}`, { diff: take.diff, closest: take.closest?.step })
      return offTapeResponse(this.offTapeText(step, `no recorded call of ${name} with these arguments. Re-record with FLUX_GOLDEN=update if the change is intended.`))
    }
    const cell = take.cell
    if (cell.truncated) {
      this.diverge('truncated_cell', cell.step, `the recorded response was ${cell.originalBytes} bytes, over the cap, and was stored cut; re-record with a larger cap: FLUX_CASSETTE_MAX_BYTES=${(cell.originalBytes ?? 0) * 2} FLUX_GOLDEN=update`)
      return offTapeResponse(this.offTapeText(cell.step, `the recorded response is truncated. Re-record with a larger cap: FLUX_CASSETTE_MAX_BYTES=${(cell.originalBytes ?? 0) * 2} FLUX_GOLDEN=update`))
    }
    this.steps.push({ seq, channel: 'tool', cell })
    return replayResponse(cell.response ?? { status: 200, headers: {}, chunks: [] }, { timing: this.config.timing, transportError: cell.transportError })
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

  private offTapeText(step: string, why: string): string {
    return `[fluxlab] ${step} of scenario "${this.name}" is off tape: ${why}`
  }

  private track(p: Promise<void>): void {
    const q = p.finally(() => this.pending.delete(q))
    this.pending.add(q)
  }
}

/** Redact secrets in recorded chunks, across chunk boundaries when every chunk is text. */
function redactChunks(chunks: Chunk[], redactor: Redactor): Chunk[] {
  if (chunks.every((c) => c.text !== undefined)) {
    const texts = redactor.chunks(chunks.map((c) => c.text as string))
    return chunks.map((c, i) => ({ t: c.t, text: texts[i] }))
  }
  // @note a chunk that is not UTF-8 alone (split character) cannot be redacted in place: redact the
  // whole body and keep it as one chunk only when it actually held a secret.
  const whole = bodyText(chunks)
  const redacted = redactor.text(whole)
  if (redacted === whole) return chunks
  return [encodeChunk(new TextEncoder().encode(redacted), chunks[chunks.length - 1]?.t ?? 0)]
}

function stripUndefined<T extends object>(o: T): T {
  for (const k of Object.keys(o) as Array<keyof T>) if (o[k] === undefined) delete o[k]
  return o
}

/** A JSON-safe copy (what a fixture can hold): `undefined` stays `undefined`, class instances become plain data. */
function toJsonValue(v: unknown): unknown {
  if (v === undefined) return undefined
  try {
    return JSON.parse(JSON.stringify(v))
  } catch {
    return String(v)
  }
}

function serializeError(e: unknown, redactor: Redactor): { name: string; message: string; data?: unknown } {
  if (!(e instanceof Error)) return { name: 'NonError', message: redactor.text(String(e)), data: redactor.json(toJsonValue(e)) }
  const own: Record<string, unknown> = {}
  for (const k of Object.keys(e)) own[k] = (e as unknown as Record<string, unknown>)[k]
  const data = Object.keys(own).length ? redactor.json(toJsonValue(own)) : undefined
  return { name: e.name, message: redactor.text(e.message), ...(data !== undefined ? { data } : {}) }
}

/** The recorded throw, rebuilt: same class name, message and own properties. */
function restoreError(rec: { name: string; message: string; data?: unknown }): unknown {
  if (rec.name === 'NonError') return rec.data ?? rec.message
  const err = new Error(rec.message)
  err.name = rec.name
  if (rec.data && typeof rec.data === 'object') Object.assign(err, rec.data)
  return err
}

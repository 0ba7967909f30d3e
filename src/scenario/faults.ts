import type { CanonicalRequest, ModelCell, RecordedResponse, ToolCell } from '../cassette/cell.js'
import { decodeChunk } from '../cassette/chunks.js'
import { FluxError } from '../errors.js'
import { codecFor } from '../providers/registry.js'
import { emptyUsage, type ModelCallCodec, type ParsedModelResponse, type ProviderFamily } from '../providers/types.js'

/** How many times a fault fires (default 1): a retry after the last one is served from the tape. */
interface Repeat {
  times?: number
}

/** An HTTP answer: a status with headers and a body (an object is sent as JSON). */
export interface HttpFault extends Repeat {
  status: number
  headers?: Record<string, string>
  body?: unknown
}

/**
 * A fault on the model channel. It answers the request instead of the tape and
 * does not use up the recorded call, so the SDK's own retry is served from tape.
 * - `{ status, headers?, body? }`: an HTTP error (429 + `retry-after`, 500, 503, 529), in the family's own error body (its SDKs parse it)
 * - `{ reset: true }`: the connection drops before any response (the client's fetch rejects)
 * - `{ timeout: true }`: no response until the client aborts (its timeout or `AbortSignal`)
 * - `{ cutAfter: n }`: the recorded response, cut after `n` chunks by a network error
 */
export type ModelFault = HttpFault | ({ reset: true } & Repeat) | ({ timeout: true } & Repeat) | ({ cutAfter: number } & Repeat)

/**
 * A fault on the tool channel.
 * - `{ error }`: the tool throws (an in-process tool) or the connection drops (an HTTP tool)
 * - `{ output }`: the tool returns this instead of the recorded output (an HTTP tool answers it as 200 JSON)
 * - HTTP tools also take the model faults' `{ status }`, `{ reset }`, `{ timeout }`
 */
export type ToolFault =
  | ({ error: string | { name?: string; message: string; [key: string]: unknown } } & Repeat)
  | ({ output: unknown } & Repeat)
  | HttpFault
  | ({ reset: true } & Repeat)
  | ({ timeout: true } & Repeat)

/** What `injectAt` takes: a model-channel or tool-channel fault. */
export type Fault = ModelFault | ToolFault

export type FaultKind = 'status' | 'reset' | 'timeout' | 'cut' | 'error' | 'output'

/**
 * The kind of a fault, checked; a value that is not a fault throws, listing the kinds.
 * @example
 * faultKind({ status: 429 }) // 'status'
 */
export function faultKind(fault: unknown, where: string): FaultKind {
  const f = (fault ?? {}) as Record<string, unknown>
  const kinds: FaultKind[] = []
  if (typeof f.status === 'number' && Number.isInteger(f.status) && f.status >= 200 && f.status <= 599) kinds.push('status')
  if (f.reset === true) kinds.push('reset')
  if (f.timeout === true) kinds.push('timeout')
  if (typeof f.cutAfter === 'number' && Number.isInteger(f.cutAfter) && f.cutAfter >= 0) kinds.push('cut')
  if (typeof f.error === 'string' || (typeof f.error === 'object' && f.error !== null && typeof (f.error as { message?: unknown }).message === 'string')) kinds.push('error')
  if ('output' in f) kinds.push('output')
  if (f.times !== undefined && !(typeof f.times === 'number' && Number.isInteger(f.times) && f.times >= 1)) kinds.length = 0
  if (kinds.length === 1) return kinds[0]
  throw new FluxError('FLUX_BAD_CONFIG', {
    failed: `inject a fault at ${where}`,
    reason: `${JSON.stringify(fault)} is not one fault (${kinds.length > 1 ? `it sets ${kinds.join(' and ')}` : 'no fault kind recognised'})`,
    fix: "Pass one of { status: 429, headers: { 'retry-after': '0' } }, { reset: true }, { timeout: true }, { cutAfter: 2 }, { error: 'disk full' }, { output: … } (each optionally with times: n).",
  })
}

/** Where a fault kind applies. */
export function checkFaultTarget(kind: FaultKind, target: { channel: 'model' | 'tool'; kind?: 'http' | 'fn' }, where: string): void {
  const ok =
    target.channel === 'model'
      ? kind === 'status' || kind === 'reset' || kind === 'timeout' || kind === 'cut'
      : target.kind === 'http'
        ? kind !== 'cut'
        : kind === 'error' || kind === 'output'
  if (ok) return
  const valid =
    target.channel === 'model'
      ? '{ status }, { reset: true }, { timeout: true } or { cutAfter: n }'
      : target.kind === 'http'
        ? "{ status }, { reset: true }, { timeout: true }, { error } or { output }"
        : '{ error } or { output }'
  throw new FluxError('FLUX_BAD_CONFIG', {
    failed: `inject a fault at ${where}`,
    reason: `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} fault does not apply to ${target.channel === 'model' ? 'a model call' : target.kind === 'http' ? 'an HTTP tool call' : 'an in-process tool call'}`,
    fix: `Use ${valid} there.`,
  })
}

/** An HTTP answer, before it becomes a Response: built once, so the fixture keeps exactly what the client got. */
export interface HttpAnswer {
  status: number
  headers: Record<string, string>
  body: string
}

/**
 * The answer an HTTP fault (or substitute) gives: its body, or else on the model
 * channel the family's own error body (its codec's `errorBody`, which its SDKs parse),
 * on the tool channel `{ error: message }`.
 * @example
 * httpAnswer({ status: 429, headers: { 'retry-after': '0' } }, codecFor('anthropic'), 'injectAt model#2')
 */
export function httpAnswer(f: HttpFault, channel: ModelCallCodec | 'tool', why: string): HttpAnswer {
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(f.headers ?? {})) headers[k.toLowerCase()] = String(v)
  let body: string
  if (f.body === undefined) {
    const message = `${f.status === 429 ? 'Rate limit exceeded' : `HTTP ${f.status}`} (injected by fluxlab: ${why})`
    body = JSON.stringify(channel === 'tool' ? { error: message } : channel.errorBody(f.status, message))
    headers['content-type'] = 'application/json'
  } else if (typeof f.body === 'string') {
    body = f.body
    headers['content-type'] ??= 'text/plain; charset=utf-8'
  } else {
    body = JSON.stringify(f.body)
    headers['content-type'] ??= 'application/json'
  }
  return { status: f.status, headers, body }
}

/**
 * The Response of an answer.
 * @note never `clone()` a fault response to store it: a tee'd body whose other branch
 * nobody reads keeps the SDK's `body.cancel()` (before a retry) pending forever.
 */
export const answerResponse = (a: HttpAnswer): Response => new Response(a.body, { status: a.status, headers: a.headers })

/** The answer as a fixture stores it (one chunk). */
const answerRecord = (a: HttpAnswer): RecordedResponse => ({ status: a.status, headers: a.headers, chunks: a.body ? [{ t: 0, text: a.body }] : [] })

/** A Response that never arrives until the request's signal aborts (then the client sees its own abort). */
export function hangingResponse(signal: AbortSignal | undefined, register: (release: () => void) => void): Promise<Response> {
  return new Promise<Response>((resolve) => {
    const release = () => resolve(Response.error())
    if (signal?.aborted) return release()
    signal?.addEventListener('abort', release, { once: true })
    register(release)
  })
}

/** The recorded response's first `n` chunks, then a network error (`TypeError: terminated`, like undici's). */
export function cutResponse(rec: RecordedResponse, n: number): Response {
  let i = 0
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < Math.min(n, rec.chunks.length)) controller.enqueue(decodeChunk(rec.chunks[i++]))
      else controller.error(Object.assign(new TypeError('terminated'), { cause: { code: 'ECONNRESET', message: 'stream cut by fluxlab' } }))
    },
  })
  return new Response(body, { status: rec.status, headers: new Headers(rec.headers) })
}

export interface InjectedCellBase {
  seq: number
  step: string
  key: string
  /** What injected it, e.g. `injectAt("model#2", {"status":429})`: stored on the cell so a fork's replay never serves it as the world's answer. */
  injected: string
}

/** A model cell that records an injected fault (what the agent saw), for the trace and the fork. */
export type InjectedModelCell = ModelCell & { injected: string }
export type InjectedToolCell = ToolCell & { injected: string }

/**
 * The trace cell of a model-channel fault.
 * @example
 * injectedModelCell({ seq, step: 'model#2', key, injected }, 'status', { family, url, request, model }, answer)
 */
export function injectedModelCell(
  base: InjectedCellBase,
  kind: FaultKind,
  call: { family: ProviderFamily; url: string; request: CanonicalRequest; model?: string },
  answer: HttpAnswer | undefined,
  cut?: { rec: RecordedResponse; n: number },
  /** The answer as the family's codec reads it (a substituted 200 carries text and tool calls). */
  parsed?: ParsedModelResponse,
): InjectedModelCell {
  const cell: InjectedModelCell = {
    ...base,
    ...call,
    response: { status: 0, headers: {}, chunks: [] },
    usage: emptyUsage(),
    text: '',
    toolCalls: [],
    durationMs: 0,
    truncated: false,
  }
  if (kind === 'status' && answer) {
    cell.response = answerRecord(answer)
    if (parsed) {
      Object.assign(cell, { text: parsed.text, toolCalls: parsed.toolCalls, usage: parsed.usage })
      if (parsed.model) cell.model = parsed.model
      if (parsed.finishReason) cell.finishReason = parsed.finishReason
    }
    if (answer.status >= 400) cell.providerError = { type: codecFor(call.family).errorType(answer.status), message: errorMessage(answer.body) }
  } else if (kind === 'reset') cell.transportError = { name: 'ConnectionReset', message: 'the connection dropped before a response (injected by fluxlab)', code: 'ECONNRESET' }
  else if (kind === 'timeout') cell.transportError = { name: 'Timeout', message: 'no response until the client aborted (injected by fluxlab)', code: 'ETIMEDOUT' }
  else if (kind === 'cut' && cut) {
    cell.response = { status: cut.rec.status, headers: cut.rec.headers, chunks: cut.rec.chunks.slice(0, cut.n) }
    cell.transportError = { name: 'TypeError', message: `terminated: stream cut after ${cut.n} chunk${cut.n === 1 ? '' : 's'} (injected by fluxlab)`, code: 'ECONNRESET' }
  }
  return cell
}

/**
 * The trace cell of a tool-channel fault or substitute.
 * @example
 * injectedToolCell({ seq, step, key, injected }, 'error', { kind: 'fn', name, args }, { error: 'disk full' })
 */
export function injectedToolCell(
  base: InjectedCellBase,
  kind: FaultKind,
  call: { kind: 'http' | 'fn'; name: string; callId?: string; args: unknown; url?: string },
  fault: Fault,
  answer?: HttpAnswer,
): InjectedToolCell {
  const cell: InjectedToolCell = { ...base, ...stripUndef(call), durationMs: 0, truncated: false }
  if (call.kind === 'fn') {
    if (kind === 'error') cell.error = thrownShape((fault as { error: string | { name?: string; message: string } }).error)
    else cell.output = (fault as { output: unknown }).output
    return cell
  }
  if (answer && (kind === 'status' || kind === 'output')) cell.response = answerRecord(answer)
  else {
    // @note no `response`: none arrived (the trace shows the transport error's name, a replay answers a network error)
    cell.transportError =
      kind === 'timeout'
        ? { name: 'Timeout', message: 'no response until the client aborted (injected by fluxlab)', code: 'ETIMEDOUT' }
        : { name: 'ConnectionReset', message: `the connection dropped (injected by fluxlab)${kind === 'error' ? `: ${errorText(fault)}` : ''}`, code: 'ECONNRESET' }
  }
  return cell
}

/** The stored form of an `{ error }` fault: name, message and extra own properties. */
function thrownShape(e: string | { name?: string; message: string; [k: string]: unknown }): { name: string; message: string; data?: unknown } {
  if (typeof e === 'string') return { name: 'Error', message: e }
  const { name, message, ...data } = e
  return { name: name ?? 'Error', message, ...(Object.keys(data).length ? { data } : {}) }
}

/** The error an `{ error }` fault throws into the agent. */
export function thrownError(e: string | { name?: string; message: string; [k: string]: unknown }): Error {
  const shape = thrownShape(e)
  const err = new Error(shape.message)
  err.name = shape.name
  if (shape.data) Object.assign(err, shape.data)
  return err
}

/** An `{ output }` fault on an HTTP tool: 200 with the output as JSON (a string as text). */
export const outputAnswer = (output: unknown): HttpAnswer => httpAnswer({ status: 200, body: output }, 'tool', '')

const errorText = (f: Fault): string => {
  const e = (f as { error?: string | { message: string } }).error
  return typeof e === 'string' ? e : (e?.message ?? '')
}

function errorMessage(text: string): string {
  try {
    const j = JSON.parse(text) as { error?: { message?: string } | string; message?: string }
    return (typeof j.error === 'string' ? j.error : j.error?.message) ?? j.message ?? text
  } catch {
    return text
  }
}

function stripUndef<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T
}

/**
 * A short description of a fault for messages and cells.
 * @example
 * describeFault({ status: 429, headers: { 'retry-after': '0' } }) // 'HTTP 429 (retry-after: 0)'
 */
export function describeFault(f: Fault): string {
  const times = f.times && f.times > 1 ? ` ×${f.times}` : ''
  const kind = faultKind(f, 'a step')
  switch (kind) {
    case 'status': {
      const h = (f as HttpFault).headers ?? {}
      const shown = Object.entries(h).filter(([k]) => k.toLowerCase().startsWith('retry-after'))
      return `HTTP ${(f as HttpFault).status}${shown.length ? ` (${shown.map(([k, v]) => `${k}: ${v}`).join(', ')})` : ''}${times}`
    }
    case 'reset':
      return `connection reset${times}`
    case 'timeout':
      return `timeout${times}`
    case 'cut':
      return `stream cut after ${(f as { cutAfter: number }).cutAfter} chunk${(f as { cutAfter: number }).cutAfter === 1 ? '' : 's'}${times}`
    case 'error':
      return `error ${JSON.stringify(errorText(f))}${times}`
    case 'output':
      return `output ${clip(JSON.stringify((f as { output: unknown }).output) ?? 'undefined')}${times}`
  }
}

const clip = (s: string, n = 60) => (s.length > n ? `${s.slice(0, n - 1)}…` : s)

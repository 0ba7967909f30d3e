/**
 * The faults `injectAt` takes, checked: what each kind is, where it applies, and how messages name it. What a fault
 * answers the agent is ./fault-answers.ts; the trace cell it leaves, ./injected-cells.ts.
 */
import { FluxError } from '../errors.js'

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
  if (typeof f.error === 'string' || (typeof f.error === 'object' && f.error !== null && typeof (f.error as { message?: unknown }).message === 'string'))
    kinds.push('error')
  if ('output' in f) kinds.push('output')
  if (f.times !== undefined && !(typeof f.times === 'number' && Number.isInteger(f.times) && f.times >= 1)) kinds.length = 0
  if (kinds.length === 1) return kinds[0]
  throw new FluxError('FLUX_BAD_CONFIG', {
    failed: `inject a fault at ${where}`,
    reason: `${JSON.stringify(fault)} is not one fault (${kinds.length > 1 ? `it sets ${kinds.join(' and ')}` : 'no fault kind recognised'})`,
    fix:
      "Pass one of { status: 429, headers: { 'retry-after': '0' } }, { reset: true }, { timeout: true }, { cutAfter: 2 }, { error: 'disk full' }, { " +
      'output: … } (each optionally with times: n).',
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
        ? '{ status }, { reset: true }, { timeout: true }, { error } or { output }'
        : '{ error } or { output }'
  throw new FluxError('FLUX_BAD_CONFIG', {
    failed: `inject a fault at ${where}`,
    reason:
      `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} fault does not apply to ` +
      `${target.channel === 'model' ? 'a model call' : target.kind === 'http' ? 'an HTTP tool call' : 'an in-process tool call'}`,
    fix: `Use ${valid} there.`,
  })
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

/** The message of an `{ error }` fault. */
export const errorText = (f: Fault): string => {
  const e = (f as { error?: string | { message: string } }).error
  return typeof e === 'string' ? e : (e?.message ?? '')
}

const clip = (s: string, n = 60) => (s.length > n ? `${s.slice(0, n - 1)}…` : s)

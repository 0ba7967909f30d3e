/**
 * Rebuilding a recorded model request for `fluxlab drift`: where it goes (the recorded vendor URL, or
 * its upstream), which key it needs, and its body with the recording's positional id placeholders
 * turned back into ids a provider accepts. The fixture stores no headers, so the provider's auth
 * headers are rebuilt from the key variable; nothing of the key is kept or printed.
 */
import type { ModelCell } from '../../cassette/cell.js'
import { codecFor, judgeProvider, judgeWire } from '../../providers/registry.js'
import type { JudgeWire } from '../../providers/types.js'
import { PLACEHOLDER_PATTERN } from '../../secrets/redact.js'

/** One recorded model call, planned for re-sending (or not, with the reason). */
export interface PlannedRequest {
  step: string
  cell: ModelCell
  /** The host the recording called (`api.openai.com`). */
  host: string
  /** Where it is sent: the recorded URL, or its host's upstream. */
  target: URL
  /** Set when the target is an upstream of `host`. */
  upstream: boolean
  /** The env vars the key is read from, first set wins; empty when the target needs none (a loopback server). */
  keyVars: string[]
  /** Why the call is not re-sent (its recording is no whole provider answer to compare with). */
  skip?: string
  /** Things the rebuilt request cannot carry as the agent sent it. */
  notes: string[]
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]'])
const ID_PLACEHOLDER = /^([A-Za-z_]+)_<(\d+)>$/

/**
 * The wire whose requests carry this family's auth headers: its judge wire, else the fallback
 * (OpenAI-compatible) wire, which is also what Responses and embeddings speak (`authorization: Bearer`).
 * @note the judge wires are the one place that already builds each family's authenticated request.
 */
function authWire(cell: ModelCell): JudgeWire {
  return codecFor(cell.family).judge ?? judgeWire(judgeProvider('').api)
}

/**
 * Plan one recorded call: its target after the upstream map, the key it needs, or why it is skipped.
 * @example
 * planRequest(cell, { 'api.openai.com': new URL('http://127.0.0.1:4000') }).target.href // 'http://127.0.0.1:4000/v1/chat/completions'
 */
export function planRequest(cell: ModelCell, upstream: Record<string, URL>): PlannedRequest {
  const recorded = new URL(cell.url)
  for (const [k, v] of [...recorded.searchParams]) if (PLACEHOLDER_PATTERN.test(v)) recorded.searchParams.delete(k)
  const base = upstream[recorded.host.toLowerCase()] ?? upstream[recorded.hostname.toLowerCase()]
  const target = new URL(recorded.href)
  if (base) {
    target.protocol = base.protocol
    target.host = base.host
    target.pathname = `${base.pathname.replace(/\/+$/, '')}${recorded.pathname}`
  }
  const wire = authWire(cell)
  const defaults = Object.values(wire.providers)
  const own = defaults.find((d) => new URL(d.baseURL).host === recorded.host) ?? defaults[0]
  const keyVars = LOOPBACK.has(recorded.hostname) ? [] : [...(own?.keyVars ?? [])]
  const notes: string[] = []
  const bodyText = JSON.stringify(cell.request.body ?? null)
  const redacted = bodyText.match(new RegExp(PLACEHOLDER_PATTERN.source, 'g'))?.length ?? 0
  if (redacted) notes.push(`its body holds ${redacted} redacted value${redacted > 1 ? 's' : ''}, sent as the placeholder${redacted > 1 ? 's' : ''}`)
  return {
    step: cell.step,
    cell,
    host: recorded.host,
    target,
    upstream: base !== undefined,
    keyVars,
    notes,
    ...(skipReason(cell) ? { skip: skipReason(cell) } : {}),
  }
}

function skipReason(cell: ModelCell): string | undefined {
  const r = cell.response
  const codec = codecFor(cell.family)
  if (codec.signedRequests) return codec.signedRequests
  if (codec.socket)
    return (
      'it is one frame of a realtime WebSocket session, which fluxlab drift does not open (a frame alone is no request); re-record it with ' +
      'FLUX_GOLDEN=update to compare'
    )
  if (cell.transportError) return `the recording is a transport failure (${cell.transportError.code ?? cell.transportError.name}), not a response`
  if ((cell as { injected?: string }).injected !== undefined) return 'it is an injected fault, not a provider answer'
  if (r.clientAbort)
    return `the client aborted it after ${r.clientAbort.afterChunks} chunk${r.clientAbort.afterChunks === 1 ? '' : 's'}, so the recording is partial`
  if (r.open) return 'its stream was still open when the run ended, so the recording is partial'
  if (cell.truncated) return 'its response was cut at the cassette cap (FLUX_CASSETTE_MAX_BYTES), so the recording is partial'
  const body = cell.request.body as { previous_response_id?: unknown } | null
  if (typeof body?.previous_response_id === 'string')
    return 'it continues a stored response (previous_response_id) that only the recording run had; the provider cannot find it again'
  return undefined
}

/**
 * The request to send, with the key in the provider's own header. `key` is undefined for a target that needs none.
 * @example
 * const { url, init } = buildRequest(plan, process.env.OPENAI_API_KEY)
 * await fetch(url, init)
 */
export function buildRequest(plan: PlannedRequest, key: string | undefined): { url: URL; init: RequestInit } {
  const auth = authWire(plan.cell).request({ model: 'drift', baseURL: plan.target.origin, key, system: '', user: '', schema: {} }).headers
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  for (const [k, v] of Object.entries(auth)) if (v !== undefined) headers[k] = v
  const body = plan.cell.request.body
  return {
    url: plan.target,
    init: { method: plan.cell.request.method, headers, ...(body === null || body === undefined ? {} : { body: JSON.stringify(restoreIds(body)) }) },
  }
}

/**
 * The recording's positional id placeholders (`call_<1>`, `toolu_<2>`) as ids a provider accepts
 * (`call_fluxdrift0001`): the same placeholder becomes the same id, so a tool result still answers its call.
 */
function restoreIds(value: unknown): unknown {
  if (typeof value === 'string') {
    const m = ID_PLACEHOLDER.exec(value)
    return m ? `${m[1]}_fluxdrift${m[2].padStart(4, '0')}` : value
  }
  if (Array.isArray(value)) return value.map(restoreIds)
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, restoreIds(v)]))
  return value
}

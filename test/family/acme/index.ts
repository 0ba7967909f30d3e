/**
 * A throwaway provider family, defined in test code only (issue 40): the "acme" API, JSON over
 * `POST …/v1/generate` with `{ model, system, prompt, tools?, results? }`, answering
 * `{ id, model, text, call?, usage }`. It imports nothing of fluxlab but its public types, as a
 * family of a user's own would; test/family/acme.test.ts registers it with `registerFamily`.
 */
import type { ModelCallCodec, ParsedModelRequest, ParsedModelResponse } from 'fluxlab'

const PATH = /\/v1\/generate\/?$/

const rec = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {})
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0)
const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.map(rec) : [])

function parseRequest(body: unknown): ParsedModelRequest {
  const b = rec(body)
  return {
    model: str(b.model),
    stream: false,
    system: str(b.system),
    tools: list(b.tools).flatMap((t) => str(t.name) ?? []),
    toolResults: list(b.results).map((r) => ({ id: str(r.id) })),
  }
}

function parseResponse(body: string, _contentType: string | undefined, status: number): ParsedModelResponse {
  let json: Record<string, unknown>
  try {
    json = rec(JSON.parse(body))
  } catch {
    return {
      text: '',
      toolCalls: [],
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      error: { type: 'parse_error', message: 'response body is not JSON' },
    }
  }
  const usage = { input: num(rec(json.usage).input), output: num(rec(json.usage).output), cacheRead: 0, cacheWrite: 0, reasoning: 0 }
  const error = rec(json.error)
  if (status >= 400) return { text: '', toolCalls: [], usage, error: { type: str(error.type), message: str(error.message) ?? `HTTP ${status}` } }
  const call = json.call === undefined ? undefined : rec(json.call)
  return {
    text: str(json.text) ?? '',
    toolCalls: call ? [{ id: str(call.id) ?? '', name: str(call.name) ?? '', args: call.args }] : [],
    usage,
    model: str(json.model),
    finishReason: call ? 'tool' : 'done',
  }
}

const errorType = (status: number): string => (status === 429 ? 'rate_limited' : status >= 500 ? 'server_error' : 'bad_request')

/**
 * The acme family: its wire format and every fact about it.
 * @example
 * registerFamily(acmeCodec)
 */
export const acmeCodec: ModelCallCodec<'acme'> = {
  family: 'acme',
  hosts: ['api.acme.example'],
  detect: (method, url) => method.toUpperCase() === 'POST' && PATH.test(url.pathname),
  parseRequest,
  parseResponse,
  rewriteRequest: (url, text, rw) => {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return undefined
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined
    const body = rec(parsed)
    const next = { ...body, ...(rw.model !== undefined ? { model: rw.model } : {}), ...(rw.instructions !== undefined ? { system: rw.instructions } : {}) }
    const out = JSON.stringify(next)
    return out === JSON.stringify(body) ? undefined : { url, text: out }
  },
  errorType,
  errorBody: (status, message) => ({ error: { type: errorType(status), message } }),
  vendors: [{ hosts: ['api.acme.example'], keyVars: ['ACME_API_KEY'], keyPrefix: 'acme-', base: { vars: ['ACME_BASE_URL'], url: 'https://api.acme.example' } }],
  sensitiveHeaders: ['x-acme-key'],
  mintedIds: ['acmecall'],
  modelIds: { suffixes: [/-\d{6}$/] }, // a snapshot: acme-large-202611
}

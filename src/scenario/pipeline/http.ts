import { NEVER_KEPT } from '../../cassette/cell-fields.js'
import { sensitiveHeaders } from '../../cassette/redact-names.js'

/** Hop-by-hop headers (RFC 9110 §7.6.1): they describe one connection, not the response, and are never replayed. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'upgrade']

/**
 * Response headers never kept in a fixture (SPEC §4): secrets (the redactor's always-secret names: keys, tokens,
 * org and project ids), cookies, hop-by-hop headers, `date` (a replay served days later would say a stale time),
 * and the encoding of a body stored decoded. Every other header a client may read (request ids, rate limits,
 * `retry-after`) is kept as it came, so a replay answers with what the recording got.
 */
const DROPPED = new Set(['date', 'cookie', 'set-cookie', 'set-cookie2', ...HOP_BY_HOP, ...NEVER_KEPT])

/**
 * The headers kept in a fixture (lowercased, sorted): one set per response, never per chunk.
 * @example
 * keptHeaders(res.headers) // { 'content-type': 'text/event-stream', 'x-request-id': 'req_8f3a…' }
 */
export function keptHeaders(headers: Headers): Record<string, string> {
  // a header the `connection` header names is hop-by-hop too
  const connection = new Set((headers.get('connection') ?? '').split(',').map((n) => n.trim().toLowerCase()))
  const secret = new Set(sensitiveHeaders())
  const out: Record<string, string> = {}
  const names = [...headers.keys()].sort()
  for (const name of names) {
    const n = name.toLowerCase()
    if (DROPPED.has(n) || secret.has(n) || connection.has(n)) continue
    out[n] = headers.get(name) ?? ''
  }
  return out
}

/**
 * The answer to a request the tape cannot explain: 400 with `x-should-retry: false`,
 * which no SDK retries, in an error shape OpenAI, Anthropic and Gemini clients all parse.
 * @note FACTS: a thrown resolver error reaches SDKs as a 500, which they retry.
 */
export function offTapeResponse(message: string): Response {
  const body = {
    type: 'error',
    error: { type: 'fluxlab_off_tape', code: 400, status: 'FAILED_PRECONDITION', message },
  }
  return new Response(JSON.stringify(body), {
    status: 400,
    headers: { 'content-type': 'application/json', 'x-should-retry': 'false', 'x-fluxlab': 'off-tape' },
  })
}

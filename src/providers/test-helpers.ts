/**
 * TEST HELPER ONLY (imported by `*.test.ts`, never by library code): loads the
 * recorded provider traffic under `test/fixtures/traffic/` into one shape.
 */
import { readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { parse as parseYaml } from 'yaml'
import { isRecord, rec, records, safeJsonParse } from './json.js'

const TRAFFIC = new URL('../../test/fixtures/traffic/', import.meta.url)

/**
 * One recorded request/response pair.
 * @example
 * const e: RecordedExchange = loadExchanges('gemini/test_tools.yaml')[0]
 * geminiCodec.parseResponse(e.responseBody, e.contentType, e.status, e.url)
 */
export interface RecordedExchange {
  method: string
  url: URL
  status: number
  contentType?: string
  /** JSON-parsed request body (`undefined` when empty or not JSON). */
  requestBody: unknown
  /** The response body as received on the wire (decoded, gunzipped). */
  responseBody: string
}

/**
 * A traffic file's text.
 * @example
 * readTraffic('anthropic/tool_use_response.txt')
 */
export function readTraffic(relativePath: string): string {
  return readFileSync(new URL(relativePath, TRAFFIC), 'utf8')
}

function header(headers: unknown, name: string): string | undefined {
  for (const [key, value] of Object.entries(rec(headers))) {
    if (key.toLowerCase() !== name) continue
    return Array.isArray(value) ? String(value[0]) : String(value)
  }
  return undefined
}

/** A VCR body: `!!binary` (gzip or plain bytes), a string, or pydantic-ai's decoded `parsed_body`. */
function bodyText(body: unknown, parsed: unknown): string {
  if (body instanceof Uint8Array) {
    const bytes = Buffer.from(body)
    return (bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString('utf8')
  }
  if (typeof body === 'string') return body
  if (isRecord(body) && body.string !== undefined) return bodyText(body.string, undefined)
  return parsed === undefined ? '' : JSON.stringify(parsed)
}

function jsonOrUndefined(text: string, parsed: unknown): unknown {
  return parsed ?? (text === '' ? undefined : safeJsonParse(text))
}

/**
 * Every exchange in a VCR cassette (`*.yaml`: pydantic-ai, simonw/llm, CrewAI)
 * or a nock recording (`*.json` array, anthropic-sdk-typescript).
 * @example
 * const [first] = loadExchanges('openai-chat/test_tool_use_basic.yaml')
 * first.url.pathname // '/v1/chat/completions'
 */
export function loadExchanges(relativePath: string): RecordedExchange[] {
  const text = readTraffic(relativePath)
  if (relativePath.endsWith('.json')) {
    return records(JSON.parse(text)).map((n) => ({
      method: String(n.method),
      url: new URL(String(n.path), String(n.scope)),
      status: Number(n.status),
      contentType: header(n.rawHeaders, 'content-type'),
      requestBody: n.body,
      responseBody: typeof n.response === 'string' ? n.response : JSON.stringify(n.response),
    }))
  }
  // @note The default YAML 1.2 core schema plus `!!binary`: the 1.1 schema would read an `n:` key as `false`.
  const doc = rec(parseYaml(text, { customTags: ['binary'] }))
  return records(doc.interactions).map((i) => {
    const request = rec(i.request)
    const response = rec(i.response)
    const requestText = bodyText(request.body, request.parsed_body)
    return {
      method: String(request.method),
      url: new URL(String(request.uri)),
      status: Number(rec(response.status).code),
      contentType: header(response.headers, 'content-type'),
      requestBody: jsonOrUndefined(requestText, request.parsed_body),
      responseBody: bodyText(response.body, response.parsed_body),
    }
  })
}

/**
 * Rebuild the wire SSE of a Vercel AI SDK `*.chunks.txt` file (one `data:`
 * payload per line): `data: <line>\n\n` per line, optionally preceded by
 * `event: <payload.type>` lines (Anthropic, Responses) and followed by
 * `data: [DONE]` (OpenAI Chat).
 * @example
 * chunksToSse('{"type":"ping"}\n', { events: true }) // 'event: ping\ndata: {"type":"ping"}\n\n'
 */
export function chunksToSse(chunks: string, options: { events?: boolean; done?: boolean; crlf?: boolean } = {}): string {
  const nl = options.crlf === true ? '\r\n' : '\n'
  let out = ''
  for (const line of chunks.split(/\r?\n/)) {
    if (line.trim() === '') continue
    if (options.events === true) out += `event: ${String(rec(safeJsonParse(line)).type)}${nl}`
    out += `data: ${line}${nl}${nl}`
  }
  if (options.done === true) out += `data: [DONE]${nl}${nl}`
  return out
}

/**
 * A Vercel `*.chunks.txt` file holding several consecutive responses, split
 * into one chunks text per response (each starts at a `startType` payload).
 * @example
 * splitChunks(readTraffic('openai-responses/openai-reasoning-encrypted-content.1.chunks.txt'), 'response.created').length // 4
 */
export function splitChunks(chunks: string, startType: string): string[] {
  const parts: string[][] = []
  for (const line of chunks.split(/\r?\n/)) {
    if (line.trim() === '') continue
    if (rec(safeJsonParse(line)).type === startType || parts.length === 0) parts.push([])
    parts[parts.length - 1].push(line)
  }
  return parts.map((p) => `${p.join('\n')}\n`)
}

/**
 * A body cut after `fraction` of its length, as a dropped connection leaves it.
 * @example
 * truncate('abcdef', 0.5) // 'abc'
 */
export function truncate(body: string, fraction: number): string {
  return body.slice(0, Math.floor(body.length * fraction))
}

/**
 * Loaders for the recorded provider traffic in `test/fixtures/traffic/` (see SOURCES.md there).
 *
 * Every data file, whatever its format (F1 Vercel AI SDK chunks/json, F2 pydantic-ai VCR,
 * F3 VCR.py incl. `!!binary` gzip bodies, F4 CrewAI VCR, F5 raw SSE / nock JSON, F6 `.sse`),
 * becomes a list of {@link Exchange}s: the decoded wire response plus whatever of the request
 * was recorded. Unknown or malformed files throw an error naming the file.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib'
import { parse as parseYaml } from 'yaml'

/** One recorded HTTP round trip, response decoded (never compressed). */
export interface Exchange {
  /** HTTP method, upper case. */
  method: string
  /** Path including the query string, e.g. `/v1beta/models/x:streamGenerateContent?alt=sse`. */
  path: string
  /** Recorded request body (parsed JSON when it was JSON); absent for response-only fixtures (F1, F5 `.txt`, F6). */
  requestBody?: unknown
  /** HTTP status code. */
  status: number
  /** Response headers, lowercased, without content-encoding/content-length/transfer-encoding; always has content-type. */
  headers: Record<string, string>
  /** Exact decoded wire body: raw SSE text, a JSON array (Gemini non-SSE stream) or a JSON document. */
  body: string
  /**
   * The exact pieces the server writes (flushed one by one); they join to `body`. Overrides the
   * server's `chunking`, e.g. to cut one SSE event, or one key inside it, across two network writes.
   */
  writes?: string[]
}

/** Provider wire families the loaders recognise. */
export type ProviderFamily = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini'

/** Absolute path of `test/fixtures/traffic/`. */
export const TRAFFIC_DIR = fileURLToPath(new URL('../fixtures/traffic/', import.meta.url))

const DATA_FILE = /\.(ya?ml|json|chunks\.txt|txt|sse)$/

/** Every recorded data file (not SOURCES.md), as sorted `/`-separated paths relative to {@link TRAFFIC_DIR}. */
export function listTrafficFiles(): string[] {
  const out: string[] = []
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name)
      if (statSync(full).isDirectory()) walk(full)
      else if (DATA_FILE.test(name) && name !== 'SOURCES.md') out.push(relative(TRAFFIC_DIR, full).split(sep).join('/'))
    }
  }
  walk(TRAFFIC_DIR)
  return out.sort()
}

/**
 * Load the exchanges recorded in one traffic file.
 * @param relPath path relative to {@link TRAFFIC_DIR}, e.g. `openai-chat/test_tool_use_basic.yaml`.
 * @throws Error naming the file when the format is unknown or the file holds no exchange.
 */
export function loadExchanges(relPath: string): Exchange[] {
  let exchanges: Exchange[]
  try {
    const text = readFileSync(join(TRAFFIC_DIR, relPath), 'utf8')
    if (/\.ya?ml$/.test(relPath)) exchanges = fromVcr(parseYaml(text, { customTags: ['binary'] }))
    else if (relPath.endsWith('.chunks.txt')) exchanges = fromChunkLines(text)
    else if (/\.(txt|sse)$/.test(relPath)) exchanges = [fromRawSse(text)]
    else if (relPath.endsWith('.json')) exchanges = fromJsonFile(JSON.parse(text), text)
    else throw new Error('unsupported file type')
  } catch (err) {
    throw new Error(`loadExchanges(${relPath}): ${(err as Error).message}`, { cause: err })
  }
  if (exchanges.length === 0) throw new Error(`loadExchanges(${relPath}): no exchange found`)
  return exchanges
}

/** Split raw SSE text into events: `event:` name (if any) and the joined `data:` payload. */
export function parseSse(text: string): Array<{ event?: string; data: string }> {
  const events: Array<{ event?: string; data: string }> = []
  for (const block of text.split(/\r\n\r\n|\n\n|\r\r/)) {
    let event: string | undefined
    const data: string[] = []
    for (const line of block.split(/\r\n|\n|\r/)) {
      const m = /^([^:]*):? ?(.*)$/.exec(line)
      if (!m || line === '' || line.startsWith(':')) continue
      if (m[1] === 'event') event = m[2]
      else if (m[1] === 'data') data.push(m[2])
    }
    if (data.length > 0) events.push(event === undefined ? { data: data.join('\n') } : { event, data: data.join('\n') })
  }
  return events
}

/** Which provider wire family a streamed chunk or a JSON response body belongs to. */
export function familyOf(obj: unknown): ProviderFamily {
  const o = (obj ?? {}) as Record<string, unknown>
  if (o.object === 'chat.completion.chunk' || o.object === 'chat.completion') return 'openai-chat'
  if (o.object === 'response' || (typeof o.type === 'string' && (o.type.startsWith('response.') || o.type === 'error'))) return 'openai-responses'
  if (typeof o.type === 'string' && /^(message|message_\w+|content_block_\w+|ping)$/.test(o.type)) return 'anthropic'
  if ('candidates' in o || 'usageMetadata' in o) return 'gemini'
  throw new Error(`cannot tell the provider of ${JSON.stringify(obj).slice(0, 120)}`)
}

const SSE_TYPE: Record<ProviderFamily, string> = {
  'openai-chat': 'text/event-stream; charset=utf-8',
  'openai-responses': 'text/event-stream; charset=utf-8',
  anthropic: 'text/event-stream; charset=utf-8',
  gemini: 'text/event-stream',
}

function pathFor(family: ProviderFamily, sample: Record<string, unknown>, stream: boolean): string {
  if (family === 'openai-chat') return '/v1/chat/completions'
  if (family === 'openai-responses') return '/v1/responses'
  if (family === 'anthropic') return '/v1/messages'
  const model = typeof sample.modelVersion === 'string' ? sample.modelVersion : 'gemini'
  return `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`
}

/** Rebuild the SSE wire text for F1 data payload lines of one response. */
export function sseFromChunkLines(lines: string[], family: ProviderFamily): string {
  switch (family) {
    case 'openai-chat':
      return lines.map((l) => `data: ${l}\n\n`).join('') + 'data: [DONE]\n\n'
    case 'gemini':
      return lines.map((l) => `data: ${l}\r\n\r\n`).join('')
    default:
      return lines.map((l) => `event: ${(JSON.parse(l) as { type: string }).type}\ndata: ${l}\n\n`).join('')
  }
}

/** F1 `*.chunks.txt`: one data payload per line; several responses may be concatenated. */
function fromChunkLines(text: string): Exchange[] {
  const lines = text
    .split('\n')
    .map((l) => l.replace(/\r$/, ''))
    .filter((l) => l.trim() !== '')
  const parsed = lines.map((l, i) => {
    try {
      return JSON.parse(l) as Record<string, unknown>
    } catch {
      throw new Error(`line ${i + 1} is not JSON`)
    }
  })
  const family = familyOf(parsed[0])
  const groups: number[][] = []
  parsed.forEach((obj, i) => {
    const starts =
      i === 0 ||
      (family === 'openai-responses' && obj.type === 'response.created') ||
      (family === 'anthropic' && obj.type === 'message_start') ||
      (family === 'openai-chat' && obj.id !== parsed[i - 1].id) ||
      (family === 'gemini' && obj.responseId !== parsed[i - 1].responseId)
    if (starts) groups.push([])
    groups[groups.length - 1].push(i)
  })
  return groups.map((idx) => ({
    method: 'POST',
    path: pathFor(family, parsed[idx[0]], true),
    status: 200,
    headers: { 'content-type': SSE_TYPE[family] },
    body: sseFromChunkLines(
      idx.map((i) => lines[i]),
      family,
    ),
  }))
}

/** F5 `*.txt` / F6 `*.sse`: raw SSE exactly as on the wire. */
function fromRawSse(text: string): Exchange {
  const first = parseSse(text)[0]
  if (!first) throw new Error('no SSE data event found')
  const family = familyOf(JSON.parse(first.data))
  return { method: 'POST', path: pathFor(family, JSON.parse(first.data), true), status: 200, headers: { 'content-type': SSE_TYPE[family] }, body: text }
}

/** F1 `*.json` (raw response body) or F5 nock recording (`ToolRunner.json`). */
function fromJsonFile(json: unknown, text: string): Exchange[] {
  if (Array.isArray(json) && json.length > 0 && typeof json[0] === 'object' && 'scope' in json[0]) return json.map(fromNock)
  const family = familyOf(json)
  const type = family === 'gemini' ? 'application/json; charset=UTF-8' : 'application/json'
  return [{ method: 'POST', path: pathFor(family, json as Record<string, unknown>, false), status: 200, headers: { 'content-type': type }, body: text }]
}

interface NockEntry {
  method: string
  path: string
  body?: unknown
  status: number
  response: unknown
  rawHeaders?: Record<string, string> | string[]
  responseIsBinary?: boolean
}

function fromNock(n: NockEntry): Exchange {
  const raw = n.rawHeaders ?? {}
  const pairs: Array<[string, string]> = Array.isArray(raw)
    ? raw.flatMap((v, i) => (i % 2 === 0 ? [[v, String(raw[i + 1])] as [string, string]] : []))
    : Object.entries(raw).map(([k, v]) => [k, String(v)])
  const headers = normalizeHeaders(Object.fromEntries(pairs))
  const body = n.responseIsBinary
    ? decodeBytes(Buffer.from(String(n.response), 'hex'), pairs.find(([k]) => k.toLowerCase() === 'content-encoding')?.[1])
    : typeof n.response === 'string'
      ? n.response
      : JSON.stringify(n.response)
  return { method: n.method.toUpperCase(), path: n.path, requestBody: n.body, status: n.status, headers: withType(headers, body), body }
}

interface VcrInteraction {
  request: { method: string; uri: string; body?: unknown; parsed_body?: unknown }
  response: {
    status: { code: number } | number
    headers?: Record<string, string | string[]>
    body?: { string?: string | Uint8Array } | string
    parsed_body?: unknown
  }
}

/** F2/F3/F4 VCR.py cassettes (pydantic-ai `parsed_body`, `!!binary` gzip, redacted headers). */
function fromVcr(doc: unknown): Exchange[] {
  const interactions = (doc as { interactions?: VcrInteraction[] })?.interactions
  if (!Array.isArray(interactions)) throw new Error('not a VCR cassette (no interactions)')
  return interactions.map(({ request, response }, i) => {
    const rawHeaders = response.headers ?? {}
    const encoding = Object.entries(rawHeaders).find(([k]) => k.toLowerCase() === 'content-encoding')?.[1]
    let body: string
    if (response.parsed_body !== undefined) body = JSON.stringify(response.parsed_body)
    else {
      const s = typeof response.body === 'object' && response.body !== null ? response.body.string : response.body
      if (s === undefined || s === null) throw new Error(`interaction ${i}: response has no body`)
      body = typeof s === 'string' ? s : decodeBytes(Buffer.from(s), Array.isArray(encoding) ? encoding[0] : encoding)
    }
    const url = new URL(request.uri)
    const status = typeof response.status === 'number' ? response.status : response.status.code
    return {
      method: request.method.toUpperCase(),
      path: url.pathname + url.search,
      requestBody: request.parsed_body !== undefined ? request.parsed_body : decodeRequestBody(request.body),
      status,
      headers: withType(normalizeHeaders(rawHeaders), body),
      body,
    }
  })
}

function decodeRequestBody(body: unknown): unknown {
  if (body === undefined || body === null || body === '') return undefined
  const text = body instanceof Uint8Array ? decodeBytes(Buffer.from(body), undefined) : body
  if (typeof text !== 'string') return text
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

function decodeBytes(buf: Buffer, encoding: string | undefined): string {
  const enc = (encoding ?? '').toLowerCase()
  if (enc === 'gzip' || (buf[0] === 0x1f && buf[1] === 0x8b)) return gunzipSync(buf).toString('utf8')
  if (enc === 'br') return brotliDecompressSync(buf).toString('utf8')
  if (enc === 'deflate') return inflateSync(buf).toString('utf8')
  return buf.toString('utf8')
}

const DROPPED = new Set(['content-encoding', 'content-length', 'transfer-encoding'])

function normalizeHeaders(raw: Record<string, string | string[]>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(raw)) {
    const key = k.toLowerCase()
    if (!DROPPED.has(key)) out[key] = Array.isArray(v) ? v.map(String).join(', ') : String(v)
  }
  return out
}

function withType(headers: Record<string, string>, body: string): Record<string, string> {
  if (!headers['content-type']) {
    headers['content-type'] = /^\s*(data|event):/.test(body) ? 'text/event-stream; charset=utf-8' : 'application/json'
  }
  return headers
}

import type { ModelCallCodec, NormalizedUsage, ParsedModelRequest, ParsedModelResponse, RequestedToolCall } from '../types.js'
import { contentText, isRecord, num, parseToolArgs, rec, records, safeJsonParse, str, type JsonRecord } from '../json.js'
import { errorFromPayload, failedResponse, sseOrJson } from '../response.js'
import { jsonRewrite, setBodyModel } from '../rewrite.js'
import { parseSse, ssePayloads } from '../sse.js'
import { decodedPath } from '../url.js'
import { anthropicErrorBody, anthropicErrorType } from './errors.js'
import { anthropicJudge } from './judge.js'
import { anthropicVendor } from './vendor.js'

/** `…/v1/messages` (with or without `?beta=true`); not `…/messages/count_tokens` nor `…/messages/batches`. */
const PATH = /\/v1\/messages\/?$/
/** Claude on Vertex AI: `…/publishers/anthropic/models/<model>:rawPredict` or `:streamRawPredict`. */
const VERTEX = /\/publishers\/anthropic\/models\/([^/:]+):(?:stream)?rawPredict$/i
/** The model part of a Vertex path: what a what-if's `model()` replaces. */
const VERTEX_MODEL = /(\/publishers\/anthropic\/models\/)[^/:]+(:(?:stream)?rawPredict)$/i

/**
 * The Anthropic Messages codec (also Claude on Vertex AI). Streams are SSE
 * with `event:` lines, which it does not need: each payload names its type.
 * @example
 * anthropicCodec.detect('POST', new URL('https://api.anthropic.com/v1/messages?beta=true')) // true
 * anthropicCodec.parseResponse(body, 'text/event-stream', 200, url).toolCalls
 * // [{ id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', name: 'get_weather', args: { location: 'Paris' } }]
 */
export const anthropicCodec: ModelCallCodec<'anthropic'> = {
  family: 'anthropic',
  hosts: ['api.anthropic.com'],
  detect: (method, url) => method.toUpperCase() === 'POST' && (PATH.test(url.pathname) || VERTEX.test(decodedPath(url))),
  parseRequest,
  parseResponse: sseOrJson(parseStream, parseJson),
  // @note the instructions replace `system` whole (a string, even where it was a list of blocks).
  rewriteRequest: jsonRewrite((body, rw, url) => {
    // @note Vertex names the model in the path and refuses a `model` field in the body.
    const vertex = rw.model !== undefined && VERTEX.test(decodedPath(url))
    if (vertex) url.pathname = decodedPath(url).replace(VERTEX_MODEL, `$1${rw.model}$2`)
    else setBodyModel(body, rw)
    if (rw.instructions !== undefined) body.system = rw.instructions
    return url
  }),
  errorType: anthropicErrorType,
  errorBody: anthropicErrorBody,
  judge: anthropicJudge,
  vendors: [anthropicVendor],
  sensitiveHeaders: ['anthropic-api-key', 'anthropic-organization-id'],
  mintedIds: ['toolu', 'srvtoolu', 'msg'],
  modelIds: {
    // @note Claude ids are priced with dashes: `claude-haiku-4.5` is `claude-haiku-4-5`.
    rewrite: (id) => (id.startsWith('claude') ? id.replace(/\./g, '-') : id),
    // claude-3-5-haiku-latest, Vertex AI's claude-sonnet-4-5@20250929, claude-haiku-4-5-20251001
    suffixes: [/-latest$/, /@\d{8}$/, /-\d{8}$/],
  },
}

function parseRequest(body: unknown, url: URL): ParsedModelRequest {
  const b = rec(body)
  const system = contentText(b.system, '\n')
  const tools = records(b.tools)
    .map((t) => str(t.name))
    .filter((n): n is string => n !== undefined)
  const toolResults: ParsedModelRequest['toolResults'] = []
  for (const m of records(b.messages)) {
    for (const block of records(m.content)) if (block.type === 'tool_result') toolResults.push({ id: str(block.tool_use_id) })
  }
  // @note Vertex bodies carry no `model` (only `anthropic_version`): the path names it.
  const model = str(b.model) ?? VERTEX.exec(decodedPath(url))?.[1]
  return { model, stream: b.stream === true, system: system === '' ? undefined : system, tools, toolResults }
}

/** The usage counters as Anthropic sends them; later reports override earlier ones field by field. */
type RawUsage = Partial<Record<'input_tokens' | 'output_tokens' | 'cache_read_input_tokens' | 'cache_creation_input_tokens', number>>

function mergeUsage(into: RawUsage, usage: unknown): void {
  if (!isRecord(usage)) return
  for (const key of ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'] as const) {
    if (typeof usage[key] === 'number') into[key] = usage[key]
  }
}

/** Anthropic's `input_tokens` excludes cached tokens: the normalized `input` adds both cache counters back. */
function normalize(raw: RawUsage): NormalizedUsage {
  const cacheRead = num(raw.cache_read_input_tokens)
  const cacheWrite = num(raw.cache_creation_input_tokens)
  return { input: num(raw.input_tokens) + cacheRead + cacheWrite, output: num(raw.output_tokens), cacheRead, cacheWrite, reasoning: 0 }
}

interface Block {
  type?: string
  id?: string
  name?: string
  input?: unknown
  json: string
  text: string
}

/** Visible text (text blocks only: no thinking) and client tool calls (`tool_use` only: `server_tool_use` runs at Anthropic). */
function readBlocks(blocks: Block[]): { text: string; toolCalls: RequestedToolCall[] } {
  const text = blocks
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('')
  const toolCalls = blocks
    .filter((b) => b.type === 'tool_use' && b.name !== undefined)
    .map((b) => ({ id: b.id ?? String(b.name), name: String(b.name), args: b.json !== '' ? parseToolArgs(b.json) : (b.input ?? {}) }))
  return { text, toolCalls }
}

function blockOf(content: JsonRecord): Block {
  return {
    type: str(content.type),
    id: str(content.id),
    name: str(content.name),
    input: content.input,
    json: '',
    text: typeof content.text === 'string' ? content.text : '',
  }
}

function parseJson(body: string): ParsedModelResponse {
  const json = safeJsonParse(body.trim())
  if (!isRecord(json)) return failedResponse({ type: 'parse_error', message: 'response body is neither JSON nor SSE' })
  const error = errorFromPayload(json)
  const raw: RawUsage = {}
  mergeUsage(raw, json.usage)
  return {
    ...readBlocks(records(json.content).map(blockOf)),
    usage: normalize(raw),
    model: str(json.model),
    finishReason: str(json.stop_reason),
    ...(error === undefined ? {} : { error }),
  }
}

function parseStream(body: string): ParsedModelResponse {
  const payloads = ssePayloads(parseSse(body))
  if (payloads.length === 0) return failedResponse({ type: 'parse_error', message: 'stream carried no readable events' })
  const blocks = new Map<number, Block>()
  const raw: RawUsage = {}
  let model: string | undefined
  let finishReason: string | undefined
  let error: ParsedModelResponse['error']
  for (const { event, json } of payloads) {
    const type = str(json.type) ?? event
    if (type === 'message_start') {
      const message = rec(json.message)
      model = str(message.model) ?? model
      mergeUsage(raw, message.usage)
    } else if (type === 'content_block_start') {
      blocks.set(num(json.index), blockOf(rec(json.content_block)))
    } else if (type === 'content_block_delta') {
      const delta = rec(json.delta)
      const block = blocks.get(num(json.index)) ?? { json: '', text: '' }
      blocks.set(num(json.index), block)
      if (delta.type === 'text_delta' && typeof delta.text === 'string') {
        block.type ??= 'text'
        block.text += delta.text
      } else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
        block.json += delta.partial_json
      }
    } else if (type === 'message_delta') {
      finishReason = str(rec(json.delta).stop_reason) ?? finishReason
      // @note `message_delta.usage` is cumulative: its output wins, and with server tools its input grows too.
      mergeUsage(raw, json.usage)
    } else if (type === 'error') {
      error = errorFromPayload(json) ?? { message: 'stream error' }
    }
  }
  const ordered = [...blocks.entries()].sort(([a], [b]) => a - b).map(([, block]) => block)
  return { ...readBlocks(ordered), usage: normalize(raw), model, finishReason, ...(error === undefined ? {} : { error }) }
}

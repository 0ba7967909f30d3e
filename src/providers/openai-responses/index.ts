import type { ModelCallCodec, NormalizedUsage, ParsedModelRequest, ParsedModelResponse, RequestedToolCall } from '../types.js'
import { emptyUsage } from '../types.js'
import { contentText, isRecord, num, parseToolArgs, rec, records, safeJsonParse, str, type JsonRecord } from '../json.js'
import { openaiErrorBody, openaiErrorType } from '../openai-chat/errors.js'
import { errorFromPayload, failedResponse, sseOrJson } from '../response.js'
import { jsonRewrite, setBodyModel } from '../rewrite.js'
import { parseSse, ssePayloads } from '../sse.js'

/** `…/responses` (`/v1/responses`, Azure `/openai/v1/responses`, proxies). */
const PATH = /\/responses\/?$/

/**
 * The OpenAI Responses API codec (`POST …/responses`), JSON or SSE with
 * `event:` lines (which it does not need: each `data:` payload names its type).
 * @example
 * openaiResponsesCodec.detect('POST', new URL('https://api.openai.com/v1/responses')) // true
 * openaiResponsesCodec.parseResponse(body, 'application/json', 200, url).toolCalls
 * // [{ id: 'call_YfwRsW8sUxDKipwyhWTzOXCA', name: 'get_capital', args: { country: 'PotatoLand' } }]
 */
export const openaiResponsesCodec: ModelCallCodec<'openai-responses'> = {
  family: 'openai-responses',
  hosts: ['api.openai.com'],
  detect: (method, url) => method.toUpperCase() === 'POST' && PATH.test(url.pathname),
  parseRequest,
  parseResponse: sseOrJson(parseStream, parseJson),
  // @note the instructions are the `instructions` field; `system`/`developer` input items are left as sent.
  rewriteRequest: jsonRewrite((body, rw) => {
    setBodyModel(body, rw)
    if (rw.instructions !== undefined) body.instructions = rw.instructions
  }),
  errorType: openaiErrorType,
  errorBody: openaiErrorBody,
  // @note responses, function calls, reasoning, web searches, messages, custom tool calls
  mintedIds: ['resp', 'fc', 'call', 'rs', 'ws', 'msg', 'ctc'],
}

function parseRequest(body: unknown): ParsedModelRequest {
  const b = rec(body)
  const input = records(b.input)
  const system = [str(b.instructions), ...input.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => contentText(m.content, '\n'))].filter(
    (t): t is string => t !== undefined && t !== '',
  )
  // @note Built-in tools (`web_search`, `file_search`, `code_interpreter`, …) have no name: their type stands in.
  const tools = records(b.tools)
    .map((t) => str(t.name) ?? str(t.type))
    .filter((n): n is string => n !== undefined)
  const toolResults = input.filter((i) => i.type === 'function_call_output' || i.type === 'custom_tool_call_output').map((i) => ({ id: str(i.call_id) }))
  return { model: str(b.model), stream: b.stream === true, system: system.length > 0 ? system.join('\n\n') : undefined, tools, toolResults }
}

/** Normalize Responses usage: `cached_tokens` ⊂ `input_tokens`, `reasoning_tokens` ⊂ `output_tokens`. */
function responsesUsage(usage: unknown): NormalizedUsage {
  if (!isRecord(usage)) return emptyUsage()
  return {
    input: num(usage.input_tokens),
    output: num(usage.output_tokens),
    cacheRead: num(rec(usage.input_tokens_details).cached_tokens),
    cacheWrite: 0,
    reasoning: num(rec(usage.output_tokens_details).reasoning_tokens),
  }
}

/** The text of a `message` output item (its `output_text` parts; refusals are not text). */
function messageText(item: JsonRecord): string {
  return records(item.content)
    .filter((p) => p.type === 'output_text')
    .map((p) => (typeof p.text === 'string' ? p.text : ''))
    .join('')
}

/** A client tool call from a `function_call` / `custom_tool_call` output item. */
function toolCallOf(item: JsonRecord): RequestedToolCall | undefined {
  if (item.type !== 'function_call' && item.type !== 'custom_tool_call') return undefined
  const name = str(item.name)
  if (name === undefined) return undefined
  return { id: str(item.call_id) ?? str(item.id) ?? name, name, args: parseToolArgs(item.type === 'function_call' ? item.arguments : item.input) }
}

/** Read a whole `response` object (a JSON body, or the one `response.completed` / `response.failed` carry). */
function fromResponseObject(response: JsonRecord): ParsedModelResponse {
  const output = records(response.output)
  const text = output
    .filter((i) => i.type === 'message')
    .map(messageText)
    .join('')
  const toolCalls = output.map(toolCallOf).filter((c): c is RequestedToolCall => c !== undefined)
  const error = errorFromPayload(response)
  return {
    text,
    toolCalls,
    usage: responsesUsage(response.usage),
    model: str(response.model),
    finishReason: str(response.status),
    ...(error === undefined ? {} : { error }),
  }
}

function parseJson(body: string): ParsedModelResponse {
  const json = safeJsonParse(body.trim())
  if (!isRecord(json)) return failedResponse({ type: 'parse_error', message: 'response body is neither JSON nor SSE' })
  return fromResponseObject(json)
}

interface StreamItem {
  type?: string
  callId?: string
  name?: string
  args: string
  text: string
}

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed'])

function parseStream(body: string): ParsedModelResponse {
  const payloads = ssePayloads(parseSse(body))
  if (payloads.length === 0) return failedResponse({ type: 'parse_error', message: 'stream carried no readable events' })
  const items = new Map<string, StreamItem>()
  const itemFor = (key: string): StreamItem => {
    let item = items.get(key)
    if (item === undefined) items.set(key, (item = { args: '', text: '' }))
    return item
  }
  // @note `…delta` events name their item by `item_id`; `output_item.*` by `item.id`. Both are the same id.
  const keyOf = (json: JsonRecord): string => str(json.item_id) ?? str(rec(json.item).id) ?? `#${num(json.output_index)}`
  let model: string | undefined
  let error: ParsedModelResponse['error']
  let final: ParsedModelResponse | undefined
  for (const { event, json } of payloads) {
    const type = str(json.type) ?? event
    if (type === 'error') {
      error = errorFromPayload(json) ?? { message: 'stream error' }
      continue
    }
    if (isRecord(json.response)) {
      model = str(json.response.model) ?? model
      if (type !== undefined && TERMINAL.has(type)) final = fromResponseObject(json.response)
      continue
    }
    if (type === 'response.output_item.added' || type === 'response.output_item.done') {
      const item = rec(json.item)
      const s = itemFor(keyOf(json))
      s.type = str(item.type) ?? s.type
      s.callId = str(item.call_id) ?? s.callId
      s.name = str(item.name) ?? s.name
      if (type === 'response.output_item.done' && typeof item.arguments === 'string') s.args = item.arguments
      if (type === 'response.output_item.done' && item.type === 'message') s.text = messageText(item)
    } else if (type === 'response.output_text.delta' && typeof json.delta === 'string') {
      itemFor(keyOf(json)).text += json.delta
    } else if (type === 'response.function_call_arguments.delta' && typeof json.delta === 'string') {
      itemFor(keyOf(json)).args += json.delta
    } else if (type === 'response.function_call_arguments.done' && typeof json.arguments === 'string') {
      itemFor(keyOf(json)).args = json.arguments
    }
  }
  const all = [...items.values()]
  const streamed = {
    text: all
      .filter((i) => i.type === undefined || i.type === 'message')
      .map((i) => i.text)
      .join(''),
    toolCalls: all
      .filter((i) => i.type === 'function_call' && i.name !== undefined)
      .map((i) => ({ id: i.callId ?? String(i.name), name: String(i.name), args: parseToolArgs(i.args) })),
  }
  if (final === undefined) {
    // A stream cut before its terminal event: what arrived, from the deltas, and no finish reason.
    return { ...streamed, usage: emptyUsage(), model, ...(error === undefined ? {} : { error }) }
  }
  // @note The terminal event's `response.error` repeats a failure already sent as an `error` event; keep the event's (it has the type).
  const err = error ?? final.error
  const empty = final.text === '' && final.toolCalls.length === 0
  return { ...final, ...(empty ? streamed : {}), model: final.model ?? model, ...(err === undefined ? {} : { error: err }) }
}

import type { ModelCallCodec, ParsedModelRequest, ParsedModelResponse, RequestedToolCall } from '../types.js'
import { emptyUsage } from '../types.js'
import { contentText, isRecord, num, parseToolArgs, rec, records, safeJsonParse, str, type JsonRecord } from '../json.js'
import { errorFromPayload, failedResponse, sseOrJson, stableCallId } from '../response.js'
import { jsonRewrite, setBodyModel } from '../rewrite.js'
import { parseSse, ssePayloads } from '../sse.js'
import { openaiErrorBody, openaiErrorType } from './errors.js'
import { openaiChatJudge } from './judge.js'
import { openaiUsage } from './usage.js'
import { openaiChatVendors } from './vendors.js'

/** `…/chat/completions` and the legacy `…/completions` (any prefix: `/v1`, `/openai/deployments/<d>`, `/api/v1`, …). */
const PATH = /\/(?:chat\/)?completions\/?$/
const AZURE_DEPLOYMENT = /\/deployments\/([^/]+)\//

/**
 * The OpenAI Chat Completions codec, which also reads the compatible twins
 * (Azure OpenAI, Groq, OpenRouter, Ollama and vLLM `/v1`, Mistral, DeepSeek, …)
 * and the legacy `/v1/completions` shape.
 * @example
 * openaiChatCodec.detect('POST', new URL('https://api.groq.com/openai/v1/chat/completions')) // true
 * openaiChatCodec.parseResponse(body, 'text/event-stream', 200, url).toolCalls
 * // [{ id: 'call_ZR5UUuTt3pf61kjwAJIYdVMj', name: 'get_capital', args: { country: 'UK' } }]
 */
export const openaiChatCodec: ModelCallCodec<'openai-chat'> = {
  family: 'openai-chat',
  // @note api.openai.com also serves Responses and embeddings; detection goes by path.
  hosts: ['api.openai.com', 'api.groq.com', 'openrouter.ai', 'api.mistral.ai', 'api.deepseek.com', 'api.together.xyz', 'api.fireworks.ai', 'api.x.ai'],
  detect: (method, url) => method.toUpperCase() === 'POST' && PATH.test(url.pathname),
  parseRequest,
  parseResponse: sseOrJson(parseStream, parseJson),
  rewriteRequest: jsonRewrite((body, rw) => {
    setBodyModel(body, rw)
    if (rw.instructions !== undefined) setInstructions(body, rw.instructions)
  }),
  errorType: openaiErrorType,
  errorBody: openaiErrorBody,
  judge: openaiChatJudge,
  vendors: openaiChatVendors,
  sensitiveHeaders: ['openai-organization', 'openai-project'],
  mintedIds: ['call', 'chatcmpl'],
  modelIds: { suffixes: [/-\d{4}-\d{2}-\d{2}$/] }, // gpt-4o-mini-2024-07-18
}

/** The instructions are the first `system` (or `developer`) message; one is added first when there is none. */
function setInstructions(body: JsonRecord, text: string): void {
  const messages: unknown[] = Array.isArray(body.messages) ? body.messages : []
  const sys = messages.find((m): m is JsonRecord => isRecord(m) && (m.role === 'system' || m.role === 'developer'))
  if (sys) sys.content = text
  else body.messages = [{ role: 'system', content: text }, ...messages]
}

function parseRequest(body: unknown, url: URL): ParsedModelRequest {
  const b = rec(body)
  const messages = records(b.messages)
  const system = messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => contentText(m.content, '\n'))
    .filter((t) => t !== '')
    .join('\n\n')
  const tools = [
    ...records(b.tools).map((t) => str(rec(t.function).name) ?? str(rec(t.custom).name) ?? str(t.name)),
    ...records(b.functions).map((f) => str(f.name)),
  ].filter((n): n is string => n !== undefined)
  const toolResults: ParsedModelRequest['toolResults'] = []
  for (const m of messages) {
    if (m.role === 'tool') toolResults.push({ id: str(m.tool_call_id) })
    else if (m.role === 'function') toolResults.push({ name: str(m.name) })
  }
  // @note Azure OpenAI bodies usually omit `model`: the deployment in the path names it.
  const model = str(b.model) ?? AZURE_DEPLOYMENT.exec(url.pathname)?.[1]
  return { model, stream: b.stream === true, system: system === '' ? undefined : system, tools, toolResults }
}

/** The first choice (`index` 0, or the first one listed). */
function firstChoice(json: JsonRecord): JsonRecord {
  const choices = records(json.choices)
  return choices.find((c) => num(c.index) === 0) ?? choices[0] ?? {}
}

function parseJson(body: string): ParsedModelResponse {
  const json = safeJsonParse(body.trim())
  if (!isRecord(json)) return failedResponse({ type: 'parse_error', message: 'response body is neither JSON nor SSE' })
  const error = errorFromPayload(json)
  const choice = firstChoice(json)
  const message = rec(choice.message)
  const counts = new Map<string, number>()
  const toolCalls: RequestedToolCall[] = []
  for (const tc of records(message.tool_calls)) {
    const fn = rec(tc.function)
    const custom = rec(tc.custom)
    const name = str(fn.name) ?? str(custom.name)
    if (name === undefined) continue
    toolCalls.push({ id: str(tc.id) ?? stableCallId(name, counts), name, args: parseToolArgs(fn.arguments ?? custom.input) })
  }
  const legacy = rec(message.function_call)
  const legacyName = str(legacy.name)
  if (legacyName !== undefined) toolCalls.push({ id: stableCallId(legacyName, counts), name: legacyName, args: parseToolArgs(legacy.arguments) })
  const text = message.content !== undefined ? contentText(message.content) : typeof choice.text === 'string' ? choice.text : ''
  return {
    text,
    toolCalls,
    usage: openaiUsage(json.usage),
    model: str(json.model),
    finishReason: str(choice.finish_reason),
    ...(error === undefined ? {} : { error }),
  }
}

interface PendingCall {
  id?: string
  name?: string
  args: string
}

function parseStream(body: string): ParsedModelResponse {
  const payloads = ssePayloads(parseSse(body))
  if (payloads.length === 0) return failedResponse({ type: 'parse_error', message: 'stream carried no readable events' })
  let text = ''
  let model: string | undefined
  let finishReason: string | undefined
  let usage = emptyUsage()
  let error: ParsedModelResponse['error']
  const calls = new Map<string | number, PendingCall>()
  for (const { json } of payloads) {
    const err = errorFromPayload(json)
    if (err !== undefined) {
      error = err
      continue
    }
    model = str(json.model) ?? model
    // @note Groq puts the final usage under `x_groq.usage` instead of `usage`.
    const chunkUsage = isRecord(json.usage) ? json.usage : rec(json.x_groq).usage
    if (isRecord(chunkUsage)) usage = openaiUsage(chunkUsage)
    for (const choice of records(json.choices)) {
      if (num(choice.index) !== 0) continue
      const delta = rec(choice.delta)
      if (typeof delta.content === 'string') text += delta.content
      else if (typeof choice.text === 'string') text += choice.text
      records(delta.tool_calls).forEach((tc, pos) => {
        const key = typeof tc.index === 'number' ? tc.index : (str(tc.id) ?? `#${pos}`)
        addPiece(calls, key, str(tc.id), rec(tc.function))
      })
      if (isRecord(delta.function_call)) addPiece(calls, 'function_call', undefined, delta.function_call)
      finishReason = str(choice.finish_reason) ?? finishReason
    }
  }
  const counts = new Map<string, number>()
  const toolCalls: RequestedToolCall[] = []
  for (const c of calls.values()) {
    if (c.name === undefined) continue
    toolCalls.push({ id: c.id ?? stableCallId(c.name, counts), name: c.name, args: parseToolArgs(c.args) })
  }
  return { text, toolCalls, usage, model, finishReason, ...(error === undefined ? {} : { error }) }
}

/** Fold one streamed tool-call delta into its pending call: id and name come once, `arguments` in pieces. */
function addPiece(calls: Map<string | number, PendingCall>, key: string | number, id: string | undefined, fn: JsonRecord): void {
  const call = calls.get(key) ?? { args: '' }
  call.id ??= id
  call.name ??= str(fn.name)
  if (typeof fn.arguments === 'string') call.args += fn.arguments
  calls.set(key, call)
}

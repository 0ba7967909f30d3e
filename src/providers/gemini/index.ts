import type { ModelCallCodec, NormalizedUsage, ParsedModelRequest, ParsedModelResponse } from '../types.js'
import { emptyUsage } from '../types.js'
import { contentText, isRecord, jsonArrayObjects, num, rec, records, safeJsonParse, str, type JsonRecord } from '../json.js'
import { errorFromPayload, failedResponse, guardParse, httpErrorResponse } from '../response.js'
import { jsonRewrite } from '../rewrite.js'
import { parseSse, ssePayloads } from '../sse.js'
import { decodedPath } from '../url.js'
import { geminiErrorBody, geminiErrorType } from './errors.js'
import { FunctionCalls } from './function-calls.js'
import { geminiJudge } from './judge.js'
import { googleVendor } from './vendor.js'

/** `…/models/<model>:<action>`: Gemini API (`/v1beta/models/…`) and Vertex AI (`/v1/projects/…/publishers/google/models/…`). */
const PATH = /\/(?:models|tunedModels)\/([^/:]+):(generateContent|streamGenerateContent|embedContent|batchEmbedContents|predict|predictLongRunning)$/
/** The model in a request path (`/models/<id>:<action>`): the part a what-if's `model()` replaces. */
const MODEL_IN_PATH = /(\/(?:models|tunedModels)\/)([^/:]+)(:[A-Za-z]+)$/

/**
 * The Google Gemini codec: `generateContent`, `streamGenerateContent` (SSE
 * with `?alt=sse`, else a streamed JSON array) and the embedding actions,
 * on the Gemini API and Vertex AI. Tool calls without an id get `"<name>#<n>"`
 * (see {@link FunctionCalls}).
 * @example
 * geminiCodec.detect('POST', new URL('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent')) // true
 * geminiCodec.parseResponse(body, 'application/json', 200, url).toolCalls
 * // [{ id: 'get_weather#1', name: 'get_weather', args: { city: 'Paris' } }]
 */
export const geminiCodec: ModelCallCodec<'gemini'> = {
  family: 'gemini',
  hosts: ['generativelanguage.googleapis.com', 'aiplatform.googleapis.com'],
  detect: (method, url) => method.toUpperCase() === 'POST' && PATH.test(decodedPath(url)),
  parseRequest,
  parseResponse: (body, _contentType, status, url) => guardParse(() => httpErrorResponse(body, status) ?? parseBody(body, url)),
  rewriteRequest: jsonRewrite((body, rw, url) => {
    if (rw.model !== undefined) {
      const path = decodedPath(url)
      if (MODEL_IN_PATH.test(path)) url.pathname = path.replace(MODEL_IN_PATH, `$1${rw.model}$3`)
    }
    if (rw.instructions !== undefined) {
      const prev = body.systemInstruction as { role?: unknown } | undefined
      body.systemInstruction = { ...(prev && typeof prev === 'object' && prev.role ? { role: prev.role } : {}), parts: [{ text: rw.instructions }] }
    }
    return url
  }),
  errorType: geminiErrorType,
  errorBody: geminiErrorBody,
  judge: geminiJudge,
  vendors: [googleVendor],
  sensitiveHeaders: ['x-goog-api-key'],
  // @note Gemini returns function calls without ids: clients invent one per run (`@ai-sdk/google` 16 random
  // characters, pydantic-ai `pyd_ai_…`) and echo it back.
  clientIdOwners: ['functionCall', 'functionResponse'],
  modelIds: { suffixes: [/-\d{3}$/] }, // stable versions: gemini-2.0-flash-001
}

/** Request field in either spelling: the REST API takes camelCase, and snake_case is accepted too. */
function field(o: JsonRecord, camel: string, snake: string): unknown {
  return o[camel] ?? o[snake]
}

function parseRequest(body: unknown, url: URL): ParsedModelRequest {
  const b = rec(body)
  const match = PATH.exec(decodedPath(url))
  const instruction = field(b, 'systemInstruction', 'system_instruction')
  const system = typeof instruction === 'string' ? instruction : contentText(rec(instruction).parts, '\n')
  const tools: string[] = []
  // @note `tools` may be one object instead of an array; built-in tools (`googleSearch`, …) are listed by their key.
  for (const tool of Array.isArray(b.tools) ? records(b.tools) : records([b.tools])) {
    for (const [key, value] of Object.entries(tool)) {
      if (key === 'functionDeclarations' || key === 'function_declarations') {
        for (const d of records(value)) if (str(d.name) !== undefined) tools.push(String(d.name))
      } else tools.push(key)
    }
  }
  const toolResults: ParsedModelRequest['toolResults'] = []
  for (const content of records(b.contents)) {
    for (const part of records(content.parts)) {
      const response = field(part, 'functionResponse', 'function_response')
      if (isRecord(response))
        toolResults.push(str(response.id) === undefined ? { name: str(response.name) } : { id: str(response.id), name: str(response.name) })
    }
  }
  return {
    model: match?.[1] ?? str(b.model),
    stream: match?.[2] === 'streamGenerateContent',
    system: system === '' ? undefined : system,
    tools,
    toolResults,
  }
}

/**
 * Normalize `usageMetadata`: `cachedContentTokenCount` ⊂ `promptTokenCount`;
 * thoughts are billed as output, so `output` adds them to `candidatesTokenCount`.
 */
function geminiUsage(meta: JsonRecord | undefined): NormalizedUsage {
  if (meta === undefined) return emptyUsage()
  const thoughts = num(meta.thoughtsTokenCount)
  return {
    input: num(meta.promptTokenCount),
    output: num(meta.candidatesTokenCount) + thoughts,
    cacheRead: num(meta.cachedContentTokenCount),
    cacheWrite: 0,
    reasoning: thoughts,
  }
}

/** The response's JSON objects: one for a JSON body, each element of a streamed array, each SSE `data:` payload. */
function chunksOf(body: string): unknown[] {
  const start = body.trimStart()
  if (start.startsWith('[')) return jsonArrayObjects(body)
  if (start.startsWith('{')) {
    const one = safeJsonParse(start)
    return one === undefined ? jsonArrayObjects(body) : [one]
  }
  return ssePayloads(parseSse(body)).map((p) => p.json)
}

function parseBody(body: string, url: URL): ParsedModelResponse {
  const chunks = chunksOf(body).filter(isRecord)
  if (chunks.length === 0) return failedResponse({ type: 'parse_error', message: 'response body holds no readable JSON' })
  let text = ''
  let model: string | undefined
  let finishReason: string | undefined
  let usage: JsonRecord | undefined
  let error: ParsedModelResponse['error']
  const calls = new FunctionCalls()
  for (const chunk of chunks) {
    const err = errorFromPayload(chunk)
    if (err !== undefined) {
      error = err
      continue
    }
    model = str(chunk.modelVersion) ?? model
    const meta = rec(chunk.usageMetadata)
    // @note Vertex sends `usageMetadata: {trafficType}` on every chunk; only one with counts replaces the last.
    if (['promptTokenCount', 'candidatesTokenCount', 'totalTokenCount'].some((k) => typeof meta[k] === 'number')) usage = meta
    const candidates = records(chunk.candidates)
    finishReason = str(rec(chunk.promptFeedback).blockReason) ?? finishReason
    const candidate = candidates.find((c) => num(c.index) === 0) ?? candidates[0] ?? {}
    finishReason = str(candidate.finishReason) ?? finishReason
    for (const part of records(rec(candidate.content).parts)) {
      if (typeof part.text === 'string' && part.thought !== true) text += part.text
      const fc = field(part, 'functionCall', 'function_call')
      if (isRecord(fc)) calls.add(fc)
    }
  }
  const result = {
    text,
    toolCalls: calls.result(),
    usage: geminiUsage(usage),
    model: model ?? PATH.exec(decodedPath(url))?.[1],
    finishReason,
  }
  return error === undefined ? result : { ...result, error }
}

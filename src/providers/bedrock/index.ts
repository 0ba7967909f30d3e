import type { ModelCallCodec, NormalizedUsage, ParsedModelRequest, ParsedModelResponse, RequestedToolCall } from '../types.js'
import { isRecord, num, parseToolArgs, rec, records, safeJsonParse, str, type JsonRecord } from '../json.js'
import { failedResponse, guardParse } from '../response.js'
import { jsonRewrite } from '../rewrite.js'
import { anthropicCodec } from '../anthropic/index.js'
import { bedrockErrorBody, bedrockErrorType } from './errors.js'
import { EVENT_STREAM, describeEventStream, readFrames, redactEventStream, type Frame } from './eventstream.js'
import { bedrockVendor } from './vendor.js'

/** `/model/<model id, %-encoded>/<action>` on `bedrock-runtime.<region>.amazonaws.com`. */
const PATH = /^(.*\/model\/)([^/]+)(\/(?:converse|converse-stream|invoke|invoke-with-response-stream))$/
const STREAMING = /\/(?:converse-stream|invoke-with-response-stream)$/
const INVOKE = /\/invoke(?:-with-response-stream)?$/

/**
 * The AWS Bedrock Runtime codec: Converse and ConverseStream (Bedrock's own message format), and
 * InvokeModel / InvokeModelWithResponseStream (the model's native body: Anthropic Messages for
 * Claude, read by the `anthropic` codec). Streams are binary AWS event streams
 * (`application/vnd.amazon.eventstream`): the codec reads them from the body's bytes.
 * @example
 * bedrockCodec.detect('POST', new URL('https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse')) // true
 * bedrockCodec.parseResponse('', 'application/vnd.amazon.eventstream', 200, url, bytes).usage // { input: 12, output: 5, … }
 */
export const bedrockCodec: ModelCallCodec<'bedrock'> = {
  family: 'bedrock',
  hosts: [
    'bedrock-runtime.us-east-1.amazonaws.com',
    'bedrock-runtime.us-east-2.amazonaws.com',
    'bedrock-runtime.us-west-2.amazonaws.com',
    'bedrock-runtime.eu-central-1.amazonaws.com',
    'bedrock-runtime.eu-west-1.amazonaws.com',
    'bedrock-runtime.ap-northeast-1.amazonaws.com',
    'bedrock-runtime.ap-southeast-2.amazonaws.com',
  ],
  detect: (method, url) => method.toUpperCase() === 'POST' && PATH.test(url.pathname),
  parseRequest,
  parseResponse: (body, contentType, status, url, bytes) => guardParse(() => parseBody(body, contentType, status, url, bytes)),
  rewriteRequest: jsonRewrite((body, rw, url) => {
    if (rw.model !== undefined) url.pathname = url.pathname.replace(PATH, `$1${encodeURIComponent(rw.model)}$3`)
    if (rw.instructions !== undefined) {
      if (isAnthropicBody(body)) body.system = rw.instructions
      else body.system = [{ text: rw.instructions }]
    }
    return url
  }),
  errorType: bedrockErrorType,
  errorBody: bedrockErrorBody,
  signedRequests:
    'Bedrock requests are signed per request with AWS SigV4 (credentials, region, time), which fluxlab drift does not do; re-record it with ' +
    'FLUX_GOLDEN=update to compare',
  binaryBody: {
    matches: (contentType) => (contentType ?? '').toLowerCase().startsWith(EVENT_STREAM),
    redact: redactEventStream,
    describe: describeEventStream,
  },
  vendors: [bedrockVendor],
  sensitiveHeaders: ['x-amz-security-token'],
  mintedIds: ['tooluse'],
  modelIds: {
    // an inference profile's region, then the provider: us.anthropic.claude-haiku-4-5-20251001-v1:0
    prefix: /^(?:(?:us|us-gov|eu|apac|jp|au|ca|global)\.)?anthropic\./,
    suffixes: [/-v\d+(?::\d+)?$/],
  },
}

/** The model id in the path, decoded (`anthropic.claude-3-5-haiku-20241022-v1:0`, an inference profile, an ARN). */
function modelOf(url: URL): string | undefined {
  const raw = PATH.exec(url.pathname)?.[2]
  if (raw === undefined) return undefined
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}

/** An InvokeModel body in Anthropic's Messages format (Claude on Bedrock). */
const isAnthropicBody = (b: JsonRecord): boolean => typeof b.anthropic_version === 'string'

function parseRequest(body: unknown, url: URL): ParsedModelRequest {
  const b = rec(body)
  const model = modelOf(url)
  const stream = STREAMING.test(url.pathname)
  if (INVOKE.test(url.pathname) && isAnthropicBody(b)) return { ...anthropicCodec.parseRequest(body, url), model, stream }
  // Converse (and Amazon Nova's InvokeModel body, which has the same shape).
  const system = records(b.system)
    .map((s) => str(s.text))
    .filter((t): t is string => t !== undefined)
    .join('\n')
  const tools = records(rec(b.toolConfig).tools)
    .map((t) => str(rec(t.toolSpec).name))
    .filter((n): n is string => n !== undefined)
  const toolResults: ParsedModelRequest['toolResults'] = []
  for (const m of records(b.messages)) {
    for (const block of records(m.content)) if (isRecord(block.toolResult)) toolResults.push({ id: str(block.toolResult.toolUseId) })
  }
  return { model, stream, system: system === '' ? undefined : system, tools, toolResults }
}

/** Bedrock's `inputTokens` leaves out cached tokens: the normalized `input` adds both cache counters back. */
function normalize(u: JsonRecord): NormalizedUsage {
  const cacheRead = num(u.cacheReadInputTokens)
  const cacheWrite = num(u.cacheWriteInputTokens)
  return { input: num(u.inputTokens) + cacheRead + cacheWrite, output: num(u.outputTokens), cacheRead, cacheWrite, reasoning: 0 }
}

function parseBody(body: string, contentType: string | undefined, status: number, url: URL, bytes?: Uint8Array): ParsedModelResponse {
  const eventStream = (contentType ?? '').toLowerCase().startsWith(EVENT_STREAM)
  if (status < 200 || status >= 300) {
    const json = rec(safeJsonParse(body.trim()))
    const message = str(json.message) ?? str(json.Message) ?? (body.trim() === '' ? `HTTP ${status}` : `HTTP ${status}: ${body.trim().slice(0, 200)}`)
    return failedResponse({ type: str(json.__type)?.split(/[:#]/).pop() ?? bedrockErrorType(status), message })
  }
  if (eventStream) {
    if (bytes === undefined) return failedResponse({ type: 'parse_error', message: 'an event stream body was read without its bytes' })
    const read = readFrames(bytes)
    const parsed = INVOKE.test(url.pathname) ? parseInvokeStream(read.frames, url) : parseConverseStream(read.frames)
    if (read.problem !== undefined && parsed.error === undefined) return { ...parsed, error: { type: 'parse_error', message: read.problem } }
    return parsed
  }
  const json = safeJsonParse(body.trim())
  if (!isRecord(json)) return failedResponse({ type: 'parse_error', message: 'response body is neither JSON nor an event stream' })
  // @note the model is the id the request named (as for Converse), not the one Claude's body reports: what-ifs and prices
  // read the same id on every Bedrock cell.
  if (INVOKE.test(url.pathname) && json.type === 'message')
    return { ...anthropicCodec.parseResponse(body, 'application/json', status, url), model: modelOf(url) }
  if (isRecord(json.output)) return parseConverse(json)
  return parseNativeText(json)
}

/** A Converse answer (and Amazon Nova's InvokeModel answer): `output.message.content` blocks. */
function parseConverse(json: JsonRecord): ParsedModelResponse {
  let text = ''
  const toolCalls: RequestedToolCall[] = []
  for (const block of records(rec(rec(json.output).message).content)) {
    if (typeof block.text === 'string') text += block.text
    if (isRecord(block.toolUse)) {
      const name = str(block.toolUse.name) ?? '?'
      toolCalls.push({ id: str(block.toolUse.toolUseId) ?? name, name, args: block.toolUse.input ?? {} })
    }
  }
  return { text, toolCalls, usage: normalize(rec(json.usage)), finishReason: str(json.stopReason) }
}

/** Other models' native InvokeModel answers, by their text field (Titan, Llama, Mistral, Cohere); usage as they count it. */
function parseNativeText(json: JsonRecord): ParsedModelResponse {
  const titan = records(json.results)[0]
  const text = str(json.generation) ?? str(titan?.outputText) ?? str(records(json.outputs)[0]?.text) ?? str(json.text) ?? str(json.completion) ?? ''
  const input = num(json.prompt_token_count) || num(json.inputTextTokenCount)
  const output = num(json.generation_token_count) || num(titan?.tokenCount)
  const finishReason = str(json.stop_reason) ?? str(titan?.completionReason) ?? str(records(json.outputs)[0]?.stop_reason)
  return { text, toolCalls: [], usage: { input, output, cacheRead: 0, cacheWrite: 0, reasoning: 0 }, finishReason }
}

/** The error an `exception` (or `error`) frame carries. */
function frameError(frame: Frame): ParsedModelResponse['error'] | undefined {
  const kind = frame.headers[':message-type']
  if (kind === 'exception') return { type: frame.headers[':exception-type'], message: str(rec(safeJsonParse(frame.payload)).message) ?? frame.payload }
  if (kind === 'error') return { type: frame.headers[':error-code'], message: frame.headers[':error-message'] ?? frame.payload }
  return undefined
}

interface Block {
  id?: string
  name?: string
  json: string
  text: string
}

function parseConverseStream(frames: readonly Frame[]): ParsedModelResponse {
  if (frames.length === 0) return failedResponse({ type: 'parse_error', message: 'stream carried no readable frames' })
  const blocks = new Map<number, Block>()
  const block = (i: number): Block => {
    let b = blocks.get(i)
    if (!b) blocks.set(i, (b = { json: '', text: '' }))
    return b
  }
  let usage: NormalizedUsage = normalize({})
  let finishReason: string | undefined
  let error: ParsedModelResponse['error']
  for (const frame of frames) {
    error = frameError(frame) ?? error
    const json = rec(safeJsonParse(frame.payload))
    const type = frame.headers[':event-type']
    if (type === 'contentBlockStart') {
      const tool = rec(rec(json.start).toolUse)
      const b = block(num(json.contentBlockIndex))
      b.id = str(tool.toolUseId)
      b.name = str(tool.name)
    } else if (type === 'contentBlockDelta') {
      const delta = rec(json.delta)
      const b = block(num(json.contentBlockIndex))
      if (typeof delta.text === 'string') b.text += delta.text
      const input = rec(delta.toolUse).input
      if (typeof input === 'string') b.json += input
    } else if (type === 'messageStop') {
      finishReason = str(json.stopReason) ?? finishReason
    } else if (type === 'metadata') {
      usage = normalize(rec(json.usage))
    }
  }
  const ordered = [...blocks.entries()].sort(([a], [b]) => a - b).map(([, b]) => b)
  const text = ordered.map((b) => b.text).join('')
  const toolCalls = ordered
    .filter((b) => b.name !== undefined)
    .map((b) => ({ id: b.id ?? String(b.name), name: String(b.name), args: b.json === '' ? {} : parseToolArgs(b.json) }))
  return { text, toolCalls, usage, finishReason, ...(error === undefined ? {} : { error }) }
}

/**
 * InvokeModelWithResponseStream: each `chunk` frame carries `{"bytes": base64}` of one native
 * stream event. Claude's are Anthropic Messages stream events, read as the SSE stream they are
 * elsewhere; the last carries `amazon-bedrock-invocationMetrics`, the usage of other models.
 */
function parseInvokeStream(frames: readonly Frame[], url: URL): ParsedModelResponse {
  if (frames.length === 0) return failedResponse({ type: 'parse_error', message: 'stream carried no readable frames' })
  const events: JsonRecord[] = []
  let error: ParsedModelResponse['error']
  for (const frame of frames) {
    error = frameError(frame) ?? error
    const inner = str(rec(safeJsonParse(frame.payload)).bytes)
    if (inner === undefined) continue
    const event = safeJsonParse(Buffer.from(inner, 'base64').toString('utf8'))
    if (isRecord(event)) events.push(event)
  }
  const metrics = rec(events.map((e) => e['amazon-bedrock-invocationMetrics']).find(isRecord))
  const metricsUsage = {
    input: num(metrics.inputTokenCount),
    output: num(metrics.outputTokenCount),
    cacheRead: num(metrics.cacheReadInputTokenCount),
    cacheWrite: num(metrics.cacheWriteInputTokenCount),
    reasoning: 0,
  }
  metricsUsage.input += metricsUsage.cacheRead + metricsUsage.cacheWrite
  let parsed: ParsedModelResponse
  if (events.some((e) => typeof e.type === 'string' && e.type.startsWith('message_'))) {
    const sse = events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join('')
    parsed = { ...anthropicCodec.parseResponse(sse, 'text/event-stream', 200, url), model: modelOf(url) }
  } else {
    const texts = events.map((e) => parseNativeText(e))
    parsed = {
      text: texts.map((t) => t.text).join(''),
      toolCalls: [],
      usage: metricsUsage,
      finishReason: texts
        .map((t) => t.finishReason)
        .filter(Boolean)
        .pop(),
    }
  }
  return error === undefined ? parsed : { ...parsed, error }
}

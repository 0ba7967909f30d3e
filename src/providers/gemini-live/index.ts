import { emptyUsage, type ModelCallCodec, type NormalizedUsage, type ParsedModelRequest, type ParsedModelResponse, type RequestedToolCall } from '../types.js'
import { contentText, isRecord, num, rec, records, safeJsonParse, str } from '../json.js'
import { geminiErrorBody, geminiErrorType } from '../gemini/errors.js'
import { guardParse, httpErrorResponse } from '../response.js'
import { isOpenFrame, OPEN_FRAME } from '../socket.js'

/**
 * `wss://generativelanguage.googleapis.com/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent`
 * (and the v1alpha / constrained variants).
 */
const PATH = /\.GenerativeService\.BidiGenerateContent(Constrained)?$/

/**
 * The Gemini Live codec: one request per client frame of a Live WebSocket (`setup`,
 * `clientContent`, `realtimeInput`, `toolResponse`), answered by the server frames that followed
 * it, one JSON message a line. Usage is summed over the frames' `usageMetadata`, text joins the
 * model turns' text parts, tool calls come from `toolCall.functionCalls`.
 * @example
 * const live = 'wss://generativelanguage.googleapis.com/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent'
 * geminiLiveCodec.detect('POST', new URL(live)) // true
 */
export const geminiLiveCodec: ModelCallCodec<'gemini-live'> = {
  family: 'gemini-live',
  hosts: [],
  detect: (method, url) => method.toUpperCase() === 'POST' && (url.protocol === 'wss:' || url.protocol === 'ws:') && PATH.test(url.pathname),
  parseRequest,
  parseResponse: (body, _contentType, status) => guardParse(() => httpErrorResponse(body, status) ?? parseMessages(body)),
  // @note a Live session names its model and instructions in its `setup` frame: a what-if does not rewrite them.
  rewriteRequest: () => undefined,
  errorType: geminiErrorType,
  errorBody: geminiErrorBody,
  socket: { event },
}

/** A Live message's kind: its one top-level field (`setup`, `serverContent`, …), `usageMetadata` aside. */
function event(body: unknown): string | undefined {
  if (isOpenFrame(body)) return OPEN_FRAME.type
  if (!isRecord(body)) return undefined
  return Object.keys(body).find((k) => k !== 'usageMetadata') ?? Object.keys(body)[0]
}

function parseRequest(body: unknown): ParsedModelRequest {
  const frame = rec(body)
  const setup = rec(frame.setup)
  const model = str(setup.model)
  const system = contentText(rec(setup.systemInstruction).parts)
  return {
    model: model?.replace(/^models\//, ''),
    stream: true,
    ...(system ? { system } : {}),
    tools: records(setup.tools).flatMap((t) => records(t.functionDeclarations).flatMap((f) => (typeof f.name === 'string' ? [f.name] : []))),
    toolResults: records(rec(frame.toolResponse).functionResponses).map((r) => ({ id: str(r.id), name: str(r.name) })),
  }
}

function parseMessages(body: string): ParsedModelResponse {
  let text = ''
  const toolCalls: RequestedToolCall[] = []
  const usage = emptyUsage()
  let finishReason: string | undefined
  for (const line of body.split('\n')) {
    const message = rec(safeJsonParse(line.trim()))
    const content = rec(message.serverContent)
    for (const part of records(rec(content.modelTurn).parts)) if (typeof part.text === 'string' && part.thought !== true) text += part.text
    if (content.turnComplete === true) finishReason = 'turnComplete'
    if (content.interrupted === true) finishReason = 'interrupted'
    for (const call of records(rec(message.toolCall).functionCalls))
      toolCalls.push({ id: str(call.id) ?? '', name: str(call.name) ?? '', args: call.args ?? {} })
    if (isRecord(message.usageMetadata)) add(usage, liveUsage(message.usageMetadata))
  }
  return { text, toolCalls, usage, finishReason }
}

/** Live `usageMetadata`: `responseTokenCount` is the output; cached and thought tokens as in `generateContent`. */
function liveUsage(meta: Record<string, unknown>): NormalizedUsage {
  const thoughts = num(meta.thoughtsTokenCount)
  return {
    input: num(meta.promptTokenCount),
    output: num(meta.responseTokenCount) + num(meta.candidatesTokenCount) + thoughts,
    cacheRead: num(meta.cachedContentTokenCount),
    cacheWrite: 0,
    reasoning: thoughts,
  }
}

function add(into: NormalizedUsage, more: NormalizedUsage): void {
  for (const k of Object.keys(into) as Array<keyof NormalizedUsage>) into[k] += more[k]
}

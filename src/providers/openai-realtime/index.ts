import { emptyUsage, type ModelCallCodec, type NormalizedUsage, type ParsedModelRequest, type ParsedModelResponse, type RequestedToolCall } from '../types.js'
import { isRecord, num, parseToolArgs, rec, records, safeJsonParse, str } from '../json.js'
import { openaiErrorBody, openaiErrorType } from '../openai-chat/errors.js'
import { guardParse, httpErrorResponse } from '../response.js'

/** `wss://…/v1/realtime?model=…` (OpenAI, and Azure's `/openai/realtime`): a WebSocket, one request per client frame. */
const PATH = /\/realtime\/?$/

/**
 * The OpenAI Realtime codec. Each client frame of a realtime WebSocket is one model request (its
 * body the frame, `POST wss://…`), answered by the server frames that followed it, one JSON event
 * a line (`src/sources/realtime-socket.ts`). Usage comes from `response.done` events, text from
 * the text and transcript deltas, tool calls from `response.function_call_arguments.done`.
 * @example
 * openaiRealtimeCodec.detect('POST', new URL('wss://api.openai.com/v1/realtime?model=gpt-realtime')) // true
 * const done = '{"type":"response.done","response":{"usage":{"input_tokens":9,"output_tokens":4}}}\n'
 * openaiRealtimeCodec.parseResponse(done, 'application/x-ndjson', 200, url).usage.output // 4
 */
export const openaiRealtimeCodec: ModelCallCodec<'openai-realtime'> = {
  family: 'openai-realtime',
  hosts: [],
  detect: (method, url) => method.toUpperCase() === 'POST' && (url.protocol === 'wss:' || url.protocol === 'ws:') && PATH.test(url.pathname),
  parseRequest,
  parseResponse: (body, _contentType, status) => guardParse(() => httpErrorResponse(body, status) ?? parseEvents(body)),
  // @note a realtime session names its model in the URL it connected to and its instructions in a `session.update` frame: a what-if does not rewrite either.
  rewriteRequest: () => undefined,
  errorType: openaiErrorType,
  errorBody: openaiErrorBody,
  socket: { event: (body) => str(rec(body).type) },
}

function parseRequest(body: unknown, url: URL): ParsedModelRequest {
  const frame = rec(body)
  const session = rec(frame.session)
  const item = rec(frame.item)
  return {
    model: url.searchParams.get('model') ?? url.searchParams.get('deployment') ?? undefined,
    stream: true,
    system: str(session.instructions),
    tools: records(session.tools).flatMap((t) => (typeof t.name === 'string' ? [t.name] : [])),
    toolResults: item.type === 'function_call_output' ? [{ id: str(item.call_id) }] : [],
  }
}

/** The server events of one answer, one JSON object a line. */
function parseEvents(body: string): ParsedModelResponse {
  let text = ''
  const toolCalls: RequestedToolCall[] = []
  const usage = emptyUsage()
  let model: string | undefined
  let finishReason: string | undefined
  let error: ParsedModelResponse['error']
  for (const line of body.split('\n')) {
    const event = rec(safeJsonParse(line.trim()))
    const type = str(event.type)
    if (type === undefined) continue
    if (type === 'session.created' || type === 'session.updated') model = str(rec(event.session).model) ?? model
    else if (
      type === 'response.output_text.delta' ||
      type === 'response.text.delta' ||
      type === 'response.output_audio_transcript.delta' ||
      type === 'response.audio_transcript.delta'
    )
      text += str(event.delta) ?? ''
    else if (type === 'response.function_call_arguments.done')
      toolCalls.push({ id: str(event.call_id) ?? '', name: str(event.name) ?? '', args: parseToolArgs(event.arguments) })
    else if (type === 'response.done') {
      const response = rec(event.response)
      add(usage, realtimeUsage(response.usage))
      finishReason = str(response.status) ?? finishReason
    } else if (type === 'error') error = { type: str(rec(event.error).type), message: str(rec(event.error).message) ?? 'realtime error event' }
  }
  return { text, toolCalls, usage, model, finishReason, ...(error ? { error } : {}) }
}

/** A realtime `usage`: `input_tokens` / `output_tokens`, cached input under `input_token_details.cached_tokens`. */
function realtimeUsage(usage: unknown): NormalizedUsage {
  if (!isRecord(usage)) return emptyUsage()
  return {
    input: num(usage.input_tokens),
    output: num(usage.output_tokens),
    cacheRead: num(rec(usage.input_token_details).cached_tokens),
    cacheWrite: 0,
    reasoning: 0,
  }
}

function add(into: NormalizedUsage, more: NormalizedUsage): void {
  for (const k of Object.keys(into) as Array<keyof NormalizedUsage>) into[k] += more[k]
}

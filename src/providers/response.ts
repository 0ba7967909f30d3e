import { emptyUsage, type ParsedModelResponse } from './types.js'
import { isRecord, safeJsonParse, str } from './json.js'
import { looksLikeSse } from './sse.js'

type ResponseError = NonNullable<ParsedModelResponse['error']>

/**
 * A response with no text, no tool calls, zero usage and the given error.
 * @example
 * failedResponse({ type: 'parse_error', message: 'response body is not JSON' })
 */
export function failedResponse(error: ResponseError): ParsedModelResponse {
  return { text: '', toolCalls: [], usage: emptyUsage(), error }
}

/**
 * The error an error payload describes, in any provider's shape:
 * `{error:{type,message}}` (OpenAI, Anthropic), `{error:{code,message,status}}`
 * (Gemini, also wrapped in an array by `streamGenerateContent`),
 * `{type:'error', code, message}` (Responses stream event).
 * `undefined` when the payload carries no error.
 * @example
 * errorFromPayload({ error: { code: 400, message: 'bad', status: 'INVALID_ARGUMENT' } })
 * // { type: 'INVALID_ARGUMENT', message: 'bad' }
 */
export function errorFromPayload(payload: unknown): ResponseError | undefined {
  if (Array.isArray(payload)) return payload.length > 0 ? errorFromPayload(payload[0]) : undefined
  if (!isRecord(payload)) return undefined
  const err = payload.error
  if (typeof err === 'string') return { message: err }
  if (isRecord(err)) {
    const type = str(err.type) ?? str(err.status) ?? str(err.code) ?? (typeof err.code === 'number' ? String(err.code) : undefined)
    const message = str(err.message) ?? JSON.stringify(err)
    return type === undefined ? { message } : { type, message }
  }
  if (payload.type === 'error' && (str(payload.message) !== undefined || str(payload.code) !== undefined)) {
    const type = str(payload.code)
    const message = str(payload.message) ?? type ?? 'error'
    return type === undefined ? { message } : { type, message }
  }
  return undefined
}

/**
 * For a non-2xx status, the response that reports the error body; else `undefined`.
 * A body that is not a known error shape still yields `http_<status>` with a snippet.
 * @example
 * httpErrorResponse('{"error":{"type":"not_found_error","message":"model: x"}}', 404)
 * // { text: '', toolCalls: [], usage: {…}, error: { type: 'not_found_error', message: 'model: x' } }
 */
export function httpErrorResponse(body: string, status: number): ParsedModelResponse | undefined {
  if (status >= 200 && status < 300) return undefined
  const error = errorFromPayload(safeJsonParse(body.trim()))
  if (error !== undefined) return failedResponse(error)
  const snippet = body.trim().slice(0, 200)
  return failedResponse({ type: `http_${status}`, message: snippet === '' ? `HTTP ${status}` : `HTTP ${status}: ${snippet}` })
}

/**
 * Run a body parser, turning any throw into a `parse_error` response so
 * `parseResponse` never throws.
 * @example
 * guardParse(() => JSON.parse('{') as never) // { …, error: { type: 'parse_error', message: … } }
 */
export function guardParse(parse: () => ParsedModelResponse): ParsedModelResponse {
  try {
    return parse()
  } catch (e) {
    return failedResponse({ type: 'parse_error', message: e instanceof Error ? e.message : String(e) })
  }
}

/**
 * A codec's `parseResponse` for a family that answers SSE when streaming and JSON otherwise:
 * an error status reports its body, SSE and JSON go to their parsers, and it never throws.
 * @example
 * parseResponse: sseOrJson(parseStream, parseJson)
 */
export function sseOrJson(
  parseStream: (body: string) => ParsedModelResponse,
  parseJson: (body: string) => ParsedModelResponse,
): (body: string, contentType: string | undefined, status: number) => ParsedModelResponse {
  return (body, contentType, status) =>
    guardParse(() => httpErrorResponse(body, status) ?? (looksLikeSse(body, contentType) ? parseStream(body) : parseJson(body)))
}

/**
 * A stable id for a tool call the provider sent without one: `"<name>#<n>"`,
 * n counting that name's calls within one response from 1. `counts` is kept
 * by the caller for the length of one response.
 * @example
 * const counts = new Map<string, number>()
 * stableCallId('get_weather', counts) // 'get_weather#1'
 * stableCallId('get_weather', counts) // 'get_weather#2'
 */
export function stableCallId(name: string, counts: Map<string, number>): string {
  const n = (counts.get(name) ?? 0) + 1
  counts.set(name, n)
  return `${name}#${n}`
}

import type { ModelCallCodec, NormalizedUsage, ParsedModelRequest, ParsedModelResponse } from '../types.js'
import { emptyUsage } from '../types.js'
import { isRecord, num, rec, safeJsonParse, str } from '../json.js'
import { openaiErrorBody, openaiErrorType } from '../openai-chat/errors.js'
import { openaiUsage } from '../openai-chat/usage.js'
import { errorFromPayload, guardParse, httpErrorResponse } from '../response.js'
import { jsonRewrite, setBodyModel } from '../rewrite.js'

/**
 * `…/images/{generations,edits,variations}` and `…/audio/{speech,transcriptions,translations}`
 * (OpenAI and the compatible providers, Azure `/openai/deployments/<d>/…`).
 */
const PATH = /\/(?:images\/(?:generations|edits|variations)|audio\/(?:speech|transcriptions|translations))\/?$/

/**
 * The OpenAI media codec: image generation and audio, model calls with no text trace. A
 * response is an image or audio body (JSON with base64 data, or raw bytes such as an MP3), so
 * only the model id, the usage when the API reports it, and errors are read; the bytes are
 * stored as received and replayed as they were.
 * @note a transcription request is multipart form data: it has no JSON model field here, and its
 * random boundary does not count toward the request key (see the canonical body).
 * @example
 * openaiMediaCodec.detect('POST', new URL('https://api.openai.com/v1/audio/speech')) // true
 * const body = '{"data":[{"b64_json":"iVBO"}],"usage":{"input_tokens":9,"output_tokens":272}}'
 * openaiMediaCodec.parseResponse(body, 'application/json', 200, url).usage.output // 272
 */
export const openaiMediaCodec: ModelCallCodec<'openai-media'> = {
  family: 'openai-media',
  hosts: ['api.openai.com'],
  detect: (method, url) => method.toUpperCase() === 'POST' && PATH.test(url.pathname),
  parseRequest: (body: unknown): ParsedModelRequest => ({ model: str(rec(body).model), stream: rec(body).stream === true, tools: [], toolResults: [] }),
  parseResponse: (body, contentType, status) => guardParse(() => httpErrorResponse(body, status) ?? parseBody(body, contentType)),
  // @note a media request has no instructions: only the model changes.
  rewriteRequest: jsonRewrite(setBodyModel),
  errorType: openaiErrorType,
  errorBody: openaiErrorBody,
}

function parseBody(body: string, contentType: string | undefined): ParsedModelResponse {
  const result: ParsedModelResponse = { text: '', toolCalls: [], usage: emptyUsage() }
  if (!/json/i.test(contentType ?? '')) return result
  const json = safeJsonParse(body.trim())
  if (!isRecord(json)) return result
  const error = errorFromPayload(json)
  const text = str(json.text) ?? ''
  const parsed = { ...result, text, usage: mediaUsage(json.usage), model: str(json.model) }
  return error === undefined ? parsed : { ...parsed, error }
}

/** Images report `input_tokens`/`output_tokens`, transcriptions either that or a duration; the rest have none. */
function mediaUsage(usage: unknown): NormalizedUsage {
  if (!isRecord(usage)) return emptyUsage()
  if (usage.prompt_tokens !== undefined) return openaiUsage(usage)
  return { ...emptyUsage(), input: num(usage.input_tokens), output: num(usage.output_tokens) }
}

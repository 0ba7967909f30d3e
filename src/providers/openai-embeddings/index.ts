import type { ModelCallCodec, ParsedModelRequest, ParsedModelResponse } from '../types.js'
import { isRecord, rec, safeJsonParse, str } from '../json.js'
import { openaiErrorBody, openaiErrorType } from '../openai-chat/errors.js'
import { openaiUsage } from '../openai-chat/usage.js'
import { errorFromPayload, failedResponse, guardParse, httpErrorResponse } from '../response.js'
import { jsonRewrite, setBodyModel } from '../rewrite.js'

/** `…/embeddings` (OpenAI and the compatible providers, Azure `/openai/deployments/<d>/embeddings`). */
const PATH = /\/embeddings\/?$/

/**
 * The OpenAI-compatible embeddings codec: no text, no tool calls, only
 * usage (`prompt_tokens` → input) and the model id.
 * @example
 * openaiEmbeddingsCodec.detect('POST', new URL('https://api.openai.com/v1/embeddings')) // true
 * const body = '{"model":"text-embedding-3-small","usage":{"prompt_tokens":8,"total_tokens":8}}'
 * openaiEmbeddingsCodec.parseResponse(body, 'application/json', 200, url).usage.input // 8
 */
export const openaiEmbeddingsCodec: ModelCallCodec<'openai-embeddings'> = {
  family: 'openai-embeddings',
  hosts: ['api.openai.com'],
  detect: (method, url) => method.toUpperCase() === 'POST' && PATH.test(url.pathname),
  parseRequest: (body: unknown): ParsedModelRequest => ({ model: str(rec(body).model), stream: false, tools: [], toolResults: [] }),
  parseResponse: (body, _contentType, status) => guardParse(() => httpErrorResponse(body, status) ?? parseJson(body)),
  // @note an embedding request has no instructions: only the model changes.
  rewriteRequest: jsonRewrite(setBodyModel),
  errorType: openaiErrorType,
  errorBody: openaiErrorBody,
}

function parseJson(body: string): ParsedModelResponse {
  const json = safeJsonParse(body.trim())
  if (!isRecord(json)) return failedResponse({ type: 'parse_error', message: 'response body is not JSON' })
  const error = errorFromPayload(json)
  const result = { text: '', toolCalls: [], usage: openaiUsage(json.usage), model: str(json.model) }
  return error === undefined ? result : { ...result, error }
}

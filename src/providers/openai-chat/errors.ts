/**
 * The OpenAI error shape, shared by the OpenAI families (Chat Completions,
 * Responses, embeddings) and the compatible servers:
 * `{ error: { message, type, param, code } }`.
 */

/**
 * The `type` OpenAI gives an HTTP status: `requests` (a rate limit; `code` says `rate_limit_exceeded`),
 * `server_error` for 5xx, else `invalid_request_error`.
 * @example
 * openaiErrorType(429) // 'requests'
 */
export function openaiErrorType(status: number): string {
  if (status === 429) return 'requests'
  return status >= 500 ? 'server_error' : 'invalid_request_error'
}

/**
 * The error body the OpenAI SDKs (and the AI SDK's OpenAI provider) parse for an HTTP status.
 * @example
 * openaiErrorBody(429, 'Rate limit exceeded')
 * // { error: { message: 'Rate limit exceeded', type: 'requests', param: null, code: 'rate_limit_exceeded' } }
 */
export function openaiErrorBody(status: number, message: string): unknown {
  return { error: { message, type: openaiErrorType(status), param: null, code: status === 429 ? 'rate_limit_exceeded' : null } }
}

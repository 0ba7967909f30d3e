/** Anthropic's error `type` by HTTP status (https://docs.anthropic.com/en/api/errors). */
const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  408: 'timeout_error',
  409: 'conflict_error',
  429: 'rate_limit_error',
  500: 'api_error',
  502: 'api_error',
  503: 'overloaded_error',
  504: 'timeout_error',
  529: 'overloaded_error',
}

/**
 * The `type` Anthropic gives an HTTP status (`api_error` for one it does not name).
 * @example
 * anthropicErrorType(529) // 'overloaded_error'
 */
export function anthropicErrorType(status: number): string {
  return ERROR_TYPES[status] ?? 'api_error'
}

/**
 * The error body the Anthropic SDK (and the AI SDK's Anthropic provider) parse: `{ type: 'error', error: { type, message } }`.
 * @example
 * anthropicErrorBody(429, 'Rate limit exceeded') // { type: 'error', error: { type: 'rate_limit_error', message: 'Rate limit exceeded' } }
 */
export function anthropicErrorBody(status: number, message: string): unknown {
  return { type: 'error', error: { type: anthropicErrorType(status), message } }
}

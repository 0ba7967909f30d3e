/** The Google API status (a google.rpc.Code name) of an HTTP status, as Gemini's error bodies carry it. */
const STATUS: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
  529: 'UNAVAILABLE',
}

/**
 * The `status` Gemini gives an HTTP status (`UNKNOWN` for one it does not name): the type its codec reads back.
 * @example
 * geminiErrorType(429) // 'RESOURCE_EXHAUSTED'
 */
export function geminiErrorType(status: number): string {
  return STATUS[status] ?? 'UNKNOWN'
}

/**
 * The error body the Google clients (and the AI SDK's Google provider) parse: `{ error: { code, message, status } }`.
 * @example
 * geminiErrorBody(503, 'overloaded') // { error: { code: 503, message: 'overloaded', status: 'UNAVAILABLE' } }
 */
export function geminiErrorBody(status: number, message: string): unknown {
  return { error: { code: status, message, status: geminiErrorType(status) } }
}

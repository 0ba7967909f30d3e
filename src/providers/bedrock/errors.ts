/** Bedrock Runtime's error shapes by HTTP status (its API reference, "Errors" of Converse and InvokeModel). */
const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'ValidationException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  408: 'ModelTimeoutException',
  424: 'ModelErrorException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
}

/**
 * The error shape Bedrock gives an HTTP status (`InternalServerException` for one it does not name).
 * @example
 * bedrockErrorType(429) // 'ThrottlingException'
 */
export function bedrockErrorType(status: number): string {
  return ERROR_TYPES[status] ?? (status >= 500 ? 'InternalServerException' : 'ValidationException')
}

/**
 * The error body the AWS SDK reads (restJson1): the shape in `__type` (it also reads the
 * `x-amzn-errortype` header, which an injected fault does not send) and the `message`.
 * @example
 * bedrockErrorBody(429, 'Too many requests') // { __type: 'ThrottlingException', message: 'Too many requests' }
 */
export function bedrockErrorBody(status: number, message: string): unknown {
  return { __type: bedrockErrorType(status), message }
}

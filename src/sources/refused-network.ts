/**
 * Issue 38, items 3 and 8: a refused request to a local server fails as a server that is down would (a network error),
 * so a readiness loop never takes the refusal for the server being up. The error still says why: the client gets a
 * `TypeError` (what `fetch` rejects with when nothing answers) whose message is fluxlab's refusal, so a file that fails
 * on it at module top level shows the refusal, not a bare "Failed to fetch".
 */

const reasons = new WeakMap<Response, Error>()
/** Errors a client is failed with as they are (`failedAs`). */
const exact = new WeakMap<Response, unknown>()

/**
 * A network-error answer that carries the refusal it stands for.
 * @example
 * return { response: refusedAsNetworkError(error) }
 */
export function refusedAsNetworkError(reason: Error): Response {
  const response = Response.error()
  reasons.set(response, reason)
  return response
}

/**
 * A network-error answer that fails the client with `error` itself: what this process's own live send of the request
 * threw (issue 39), so the client gets the error it would get without fluxlab.
 * @example
 * return failedAs(error)
 */
export function failedAs(error: unknown): Response {
  const response = Response.error()
  exact.set(response, error)
  return response
}

/**
 * What a client is failed with for `response`: the refusal as a network error, or the error of `failedAs`, when
 * `response` is one. A `node:http` client (`http`) gets the system error beneath fetch's `TypeError`, as it would.
 * @example
 * const error = networkErrorOf(response); if (error) controller.errorWith(error)
 */
export function networkErrorOf(response: Response, http = false): Error | undefined {
  if (exact.has(response)) {
    const error = exact.get(response) as Error & { cause?: unknown }
    return http && error?.cause instanceof Error ? error.cause : error
  }
  const reason = reasons.get(response)
  return reason ? Object.assign(new TypeError(reason.message), { cause: reason }) : undefined
}

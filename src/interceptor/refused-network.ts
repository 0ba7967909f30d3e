/**
 * Issue 38, items 3 and 8: a refused request to a local server fails as a server that is down would (a network error),
 * so a readiness loop never takes the refusal for the server being up. The error still says why: the client gets a
 * `TypeError` (what `fetch` rejects with when nothing answers) whose message is fluxlab's refusal, so a file that fails
 * on it at module top level shows the refusal, not a bare "Failed to fetch".
 */

const reasons = new WeakMap<Response, Error>()

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
 * What a client is failed with for `response`: the refusal as a network error, when `response` is one.
 * @example
 * const error = networkErrorOf(response); if (error) controller.errorWith(error)
 */
export function networkErrorOf(response: Response): TypeError | undefined {
  const reason = reasons.get(response)
  return reason ? Object.assign(new TypeError(reason.message), { cause: reason }) : undefined
}

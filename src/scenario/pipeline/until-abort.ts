/**
 * The replay of a call that never got an answer while recording (SPEC §3): nothing is answered until the client aborts,
 * as it did (or would have). Only such a call enters this file.
 * @example
 * const response = await untilAbort(call.request.signal)
 */
export function untilAbort(signal: AbortSignal): Promise<Response> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(Response.error())
    signal.addEventListener('abort', () => resolve(Response.error()), { once: true })
  })
}

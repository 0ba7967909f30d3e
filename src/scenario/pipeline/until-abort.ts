/** Requests waiting for their client's abort: held until it comes (see {@link untilAbort}). */
const waiting = new Set<Request>()

/**
 * The replay of a call that never got an answer while recording (SPEC §3): nothing is answered until the client aborts,
 * as it did (or would have). Only such a call enters this file.
 * @note a fetch's Request is reached from the caller's AbortSignal only weakly (undici follows the caller's signal
 * through a WeakRef to the request's own controller). A request nothing answers is held by nothing else, so a GC could
 * take it, and the caller's abort (an `AbortSignal.timeout`) would then never reach it: the fetch would hang. It is
 * held here until it aborts. (A replayed fetch with an AbortSignal.timeout hung twice in loaded runs of
 * test/tools/mcp-unanswered.test.ts before this; the cause is inferred from undici's code, not proven.)
 * @example
 * const response = await untilAbort(call.request)
 */
export function untilAbort(request: Request): Promise<Response> {
  const signal = request.signal
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(Response.error())
    waiting.add(request)
    signal.addEventListener(
      'abort',
      () => {
        waiting.delete(request)
        resolve(Response.error())
      },
      { once: true },
    )
  })
}

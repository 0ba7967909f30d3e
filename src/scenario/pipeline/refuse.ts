import type { Gate } from '../../context/state.js'
import type { FluxError } from '../../errors.js'
import { isLoopback, refusedAsNetworkError } from '../../sources/index.js'
import type { Answer, Stage } from './call.js'
import { offTapeResponse } from './http.js'
import type { RunLog } from './log.js'

/**
 * What a run that can neither record nor replay does (a test with no fixture under CI, a model call outside
 * every test, a `test.concurrent` group fluxlab cannot tell apart): it takes only the requests its gate `claims`,
 * and refuses each with its own reason, the first kept as the run's `fatal`.
 */
export interface Refusal extends Gate {
  /** The error a request it took is refused with. */
  error(request: Request): FluxError
  /** Told of each refusal: a warning, the concurrent tests it fails. */
  refused?(error: FluxError): void
}

/**
 * The one stage of a refusal's run: every call it is handed is answered with its error, which no SDK retries (a
 * non-model request to a loopback address: a network error).
 * @example
 * const stages = [refusalStage(log, refusal)]
 */
export function refusalStage(log: RunLog, refusal: Refusal): Stage {
  return async (call): Promise<Answer> => {
    if (!('request' in call)) throw new Error(`a refusal's run was handed the in-process tool call ${call.step}`)
    const error = refusal.error(call.request)
    log.fail(error, call.step)
    refusal.refused?.(error)
    // @note issue 38: a refused request to a local server that is no model call fails as a server that is down would
    // (a network error), so a readiness loop never takes the refusal for the server being up; the test fails with it.
    if (call.channel !== 'model' && isLoopback(new URL(call.request.url))) return { response: refusedAsNetworkError(error) }
    return { response: offTapeResponse(error.message) }
  }
}

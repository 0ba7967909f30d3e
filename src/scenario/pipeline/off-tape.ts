import { renderDiff } from '../../cassette/json-diff.js'
import { FluxError } from '../../errors.js'
import type { Intervention } from '../intervention.js'
import type { Answer, Stage } from './call.js'
import type { RunConfig } from './config.js'
import type { RunLog } from './log.js'

/**
 * What a call the tape could not answer (the miss the tape stage handed on) does: a plain replay refuses it (a
 * divergence and a non-retryable answer); a counterfactual or `check` may send it on to the
 * live stage (`offTape('live')`, a check's model miss) or halt there.
 * @example
 * const stages = [tapeStage(config, log, fixture, iv), offTapeStage(config, log, iv), liveStage(config, log)]
 */
export function offTapeStage(config: RunConfig, log: RunLog, iv: Intervention | undefined): Stage {
  const offline = config.offline
  return async (call, next, miss): Promise<Answer> => {
    if (!miss) return next()
    const { details, closest, diff } = miss
    // A request from a child process names it: the test alone does not say which of its processes made the call.
    // @note an app server under `fluxlab serve` is named as such (src/playwright.ts), any other process by its command line.
    const by = call.origin?.startsWith('the app server') ? call.origin : `the child process \`${call.origin}\``
    const why = call.origin ? `${miss.why} (sent by ${by})` : miss.why
    if (call.channel === 'model') {
      if (!iv) {
        log.diverge('model_index_overflow', call.step, `${why}${details}`, { diff, closest })
        return { response: log.offTape(call.step, `${why}. ${log.rerecordHint}`) }
      }
      const live = iv.missAction('model') === 'live'
      if (live && !offline) {
        log.misses.push({ step: call.step, closest, diff })
        return next()
      }
      if (live && iv.check)
        throw new FluxError('FLUX_OFFLINE', {
          failed: `check ${call.step} of scenario "${log.name}"`,
          reason: `${why}, and FLUX_OFFLINE=1 forbids sending it to the provider`,
          fix:
            `Unset FLUX_OFFLINE to let check send it live (it is counted in modelLive), or, if the change is intended, re-record: ` +
            `${config.command('FLUX_GOLDEN=update')}`,
          details: diff?.length ? [`closest recorded ${closest}:`, ...renderDiff(diff)] : undefined,
        })
      const how = live ? 'FLUX_OFFLINE=1 forbids going live, so the what-if halts here' : "the what-if halts here (offTape: 'halt')"
      log.diverge('model_index_overflow', call.step, `${why}${details}; ${how}`, { diff, closest })
      iv.halt({ step: call.step, reason: why, kind: live ? 'offline' : 'off-tape', closest, diff })
      return {
        response: log.offTape(
          call.step,
          `${why}. The what-if halts here: record its fork with ${config.command('FLUX_GOLDEN=update')}, or bridge to the provider with .offTape('live').`,
        ),
      }
    }
    const live = iv?.missAction('tool') === 'live'
    if (live && !offline) return next()
    const halts = iv
      ? `; the ${iv.check ? 'check' : 'what-if'} halts here${iv.check && call.kind === 'fn' ? ' (the tool channel stays pinned to the tape)' : ''}`
      : ''
    log.diverge('tool_call_unrecorded', call.step, `${why}${details}${halts}`, { diff, closest })
    iv?.halt({ step: call.step, reason: why, kind: live ? 'offline' : 'off-tape', closest, diff })
    if (call.kind === 'http') return { response: log.offTape(call.step, `${why}. ${log.rerecordHint}`) }
    return {
      error: new FluxError('FLUX_DIVERGED', {
        failed: `replay ${call.step} of scenario "${log.name}"`,
        reason: `${why} (tool_call_unrecorded); the tool was not run`,
        fix: log.rerecordHint,
        details: diff?.length ? renderDiff(diff) : undefined,
      }),
    }
  }
}

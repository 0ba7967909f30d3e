import type { CanonicalRequest } from '../../cassette/cell.js'
import type { DivergenceCode } from '../../cassette/divergence.js'
import { FluxError } from '../../errors.js'
import { codecFor } from '../../providers/registry.js'
import type { ProviderFamily } from '../../providers/registry.js'
import { answerResponse, cutResponse, hangingResponse, httpAnswer, outputAnswer, thrownError, type HttpAnswer } from '../fault-answers.js'
import type { HttpFault } from '../faults.js'
import { injectedModelCell, injectedToolCell } from '../injected-cells.js'
import type { Intervention, Target } from '../intervention.js'
import { storedCell } from '../stored.js'
import { modelIdBody, rewriteCall, type Answer, type ClassifyConfig, type Counters, type Stage } from './call.js'
import { offTapeResponse } from './http.js'
import type { RunLog, RunStep } from './log.js'

/**
 * A counterfactual's (or `check`'s) layer around the tape: after a halt nothing is served; a model
 * request is rewritten (`model`/`instructions`) and may be answered by a fault; a tool dispatch may be
 * denied by the policy or answered by a fault or substitute. Anything else goes on to the tape.
 * @example
 * const stages = [interventionStage(log, iv, counters, config), tapeStage(log, fixture), …]
 */
export function interventionStage(log: RunLog, iv: Intervention, counters: Counters, config: ClassifyConfig): Stage {
  return async (arrived, next): Promise<Answer> => {
    if (arrived.channel === 'model') {
      if (iv.halted) return { response: log.offTape(arrived.step, `the ${iv.check ? 'check' : 'what-if'} halted at ${iv.halted.step} (${iv.halted.reason})`) }
      const rw = iv.rewriteModel(arrived.codec.family, arrived.url, arrived.text, arrived.n)
      // A rewritten request is a new call (its own key): the stages after this one see that one.
      const call = rw ? rewriteCall(arrived, rw, config) : arrived
      if (rw) iv.markChanged(call.step, rw.description)
      const fault = iv.modelFault(call.key)
      if (!fault) return next(call)
      const cell = {
        family: call.codec.family,
        url: config.redactor.url(call.url.href),
        request: call.canonical,
        model: call.codec.parseRequest(modelIdBody(call, config), call.url).model,
      }
      const response = await injectModelFault(iv, fault, { seq: call.seq, step: call.step, key: call.key, call: cell, signal: call.request.signal }, (s) =>
        log.entries.push(s),
      )
      return { response }
    }
    const call = arrived
    const dispatch: ToolDispatch =
      call.kind === 'http'
        ? {
            kind: 'http',
            name: call.name,
            key: call.key,
            args: call.args,
            seq: call.seq,
            n: call.n,
            url: config.redactor.url(call.url.href),
            signal: call.request.signal,
          }
        : { kind: 'fn', name: call.name, callId: call.callId, key: call.key, args: call.args, seq: call.seq, n: call.n }
    const answer = interveneTool(iv, dispatch, {
      scenario: log.name,
      modelTurn: counters.model,
      push: (s) => log.entries.push(s),
      diverge: (code, step, message) => log.diverge(code, step, message),
    })
    if (!answer) return next()
    if ('response' in answer) return { response: await answer.response }
    return answer
  }
}

/** What a counterfactual answers a tool call with, instead of the tape. */
type ToolAnswer = { error: unknown } | { output: unknown } | { response: Response | Promise<Response> }

/** One tool dispatch as the session sees it. */
interface ToolDispatch {
  kind: 'http' | 'fn'
  name: string
  callId?: string
  key: string
  args: unknown
  seq: number
  /** Its number on the tool channel (`tool#n`). */
  n: number
  url?: string
  signal?: AbortSignal
}

interface InterveneContext {
  scenario: string
  /** Model calls made so far: the turn a tool call belongs to. */
  modelTurn: number
  push: (step: RunStep) => void
  diverge: (code: DivergenceCode, step: string, message: string) => void
}

/**
 * Answer a model request with a fault instead of the tape, and put the fault on
 * the trace (a cell marked `injected`). The recorded call is not used up, so a
 * retry of the same request is served from the tape.
 * @example
 * return injectModelFault(iv, fault, { seq, step, key, call, signal: request.signal }, push)
 */
function injectModelFault(
  iv: Intervention,
  fault: Target,
  req: {
    seq: number
    step: string
    key: string
    call: { family: ProviderFamily; url: string; request: CanonicalRequest; model?: string }
    signal?: AbortSignal
  },
  push: (step: RunStep) => void,
): Response | Promise<Response> {
  iv.markChanged(req.step, fault.description)
  const recorded = fault.step.cell.response!
  const cutAfter = (fault.fault as { cutAfter?: number }).cutAfter ?? 0
  const codec = codecFor(req.call.family)
  const answer = fault.kind === 'status' ? httpAnswer(fault.fault as HttpFault, codec, fault.description) : undefined
  const parsed = answer ? codec.parseResponse(answer.body, answer.headers['content-type'], answer.status, new URL(req.call.url)) : undefined
  const cell = injectedModelCell(
    { seq: req.seq, step: req.step, key: req.key, injected: fault.description },
    fault.kind,
    req.call,
    answer,
    { rec: recorded, n: cutAfter },
    parsed,
  )
  push({ seq: req.seq, channel: 'model', cell: storedCell('model', cell) })
  if (answer) return answerResponse(answer)
  if (fault.kind === 'cut') return cutResponse(recorded, cutAfter)
  if (fault.kind === 'reset') return Response.error()
  return hangingResponse(req.signal, (release) => iv.registerHang(release))
}

/**
 * A counterfactual's say on one tool dispatch, before the tape: refused after a
 * halt, denied by the policy (a refusal on the trace that halts the run), or
 * answered by a fault or substitute (on the trace, marked `injected`).
 * `undefined` lets the tape answer.
 * @example
 * const answer = interveneTool(iv, call, { scenario, modelTurn, push, diverge })
 */
function interveneTool(iv: Intervention, call: ToolDispatch, ctx: InterveneContext): ToolAnswer | undefined {
  const step = `tool#${call.n} ${call.name}`
  if (iv.halted) {
    const reason = `the ${iv.check ? 'check' : 'what-if'} halted at ${iv.halted.step} (${iv.halted.reason})`
    if (call.kind === 'http') return { response: offTapeResponse(`[fluxlab] ${step} of scenario "${ctx.scenario}" is off tape: ${reason}`) }
    return {
      error: new FluxError('FLUX_DIVERGED', {
        failed: `dispatch ${step} in scenario "${ctx.scenario}"`,
        reason,
        fix: "Nothing after a halt is served; see the counterfactual's firstDivergence.",
      }),
    }
  }
  const base = { seq: call.seq, step: `tool#${call.n}`, key: call.key }
  const shape = { kind: call.kind, name: call.name, callId: call.callId, args: call.args, url: call.url }
  const push = (cell: Parameters<typeof storedCell>[1]) => ctx.push({ seq: call.seq, channel: 'tool', cell: storedCell('tool', cell) } as RunStep)

  const denied = iv.denies(call)
  if (denied !== undefined) {
    const message = `denied by the what-if policy (${denied})`
    iv.markChanged(step, `policy denies ${call.name}`)
    ctx.diverge('policy_denied', step, `the policy refused ${call.name} (${denied}); the run halts here as a denial`)
    iv.halt({ step, reason: `the policy denied ${call.name} (${denied})`, kind: 'denied' })
    if (call.kind === 'fn') {
      push(injectedToolCell({ ...base, injected: `policy denies ${call.name}` }, 'error', shape, { error: { name: 'PolicyDenied', message } }))
      return { error: thrownError({ name: 'PolicyDenied', message }) }
    }
    const refusal: HttpFault = {
      status: 403,
      headers: { 'x-should-retry': 'false' },
      body: { type: 'error', error: { type: 'fluxlab_policy_denied', code: 403, message: `[fluxlab] ${step} of scenario "${ctx.scenario}" was ${message}` } },
    }
    const answer = httpAnswer(refusal, 'tool', '')
    push(injectedToolCell({ ...base, injected: `policy denies ${call.name}` }, 'status', shape, refusal, answer))
    return { response: answerResponse(answer) }
  }

  const change = iv.toolChange({ kind: call.kind, name: call.name, key: call.key, turn: ctx.modelTurn })
  if (!change) return undefined
  iv.markChanged(step, change.description)
  let answer: HttpAnswer | undefined
  if (call.kind === 'http' && change.kind === 'status') answer = httpAnswer(change.fault as HttpFault, 'tool', change.description)
  if (call.kind === 'http' && change.kind === 'output') answer = outputAnswer((change.fault as { output: unknown }).output)
  push(injectedToolCell({ ...base, injected: change.description }, change.kind, shape, change.fault, answer))
  if (call.kind === 'http') {
    if (answer) return { response: answerResponse(answer) }
    if (change.kind === 'timeout') return { response: hangingResponse(call.signal, (release) => iv.registerHang(release)) }
    return { response: Response.error() }
  }
  if (change.kind === 'error') return { error: thrownError((change.fault as { error: string }).error) }
  return { output: (change.fault as { output: unknown }).output }
}

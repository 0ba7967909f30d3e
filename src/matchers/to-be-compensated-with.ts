import type { TrajectoryCall } from '../scenario/outcome.js'
import type { FluxMatcherContext, MatcherResult } from './utils/context.js'
import { assertCounterfactual, cfHint, endNote, traceFrom } from './utils/counterfactual.js'
import { callRows, inlineReceived, labels, plural, usageError } from './utils/format.js'

/**
 * Passes when, after the counterfactual's fault (the first step its change
 * fired at), some call of `name` happens: requested by the model or run on the
 * tool channel. The saga's compensation ran.
 * @example
 * const cf = await s.injectAt(4, { error: 'disk full' }).run(agent)
 * expect(cf).toBeCompensatedWith('notify.send')
 */
export function toBeCompensatedWith(this: FluxMatcherContext, received: unknown, name: string): MatcherResult {
  const matcher = 'toBeCompensatedWith'
  assertCounterfactual(this, matcher, received)
  if (typeof name !== 'string' || name === '')
    usageError(this, matcher, 'name', '`name` must be a tool name', "Pass it as toBeCompensatedWith('notify.send')", name)
  received.markSeen()
  const fault = received.applied[0]
  const faultIndex = fault ? received.indexOf(fault.step) : undefined
  const at = (c: TrajectoryCall) => {
    const step = c.executedAt ?? c.requestedAt
    return step ? (received.indexOf(step) ?? 0) : 0
  }
  const after = faultIndex === undefined ? [] : received.calls.filter((c) => at(c) > faultIndex)
  const hits = after.filter((c) => c.name === name || c.executedAt?.split(' ').slice(1).join(' ') === name)
  const pass = hits.length > 0
  const where = fault ? `the fault at ${faultIndex ?? '?'} ${fault.step} (${fault.description})` : 'the fault'
  return {
    pass,
    message: () => {
      const l = labels(this)
      const head = `${cfHint(this, matcher, 'name')}\n\n${l.expected}a call of ${name} after ${where}\n`
      if (!fault)
        return (
          `${head}${l.received}the change never applied (the run did not reach it), so nothing was ` +
          `compensated${endNote(received)}\n\nTrace:\n${traceFrom(received, undefined, 1000)}`
        )
      if (pass)
        return (
          `${head}${l.received}${plural(hits.length, 'call')} of ${name} after step ${faultIndex}:\n${callRows(hits, false)}\n\nTrace after the ` +
          `fault:\n${traceFrom(received, faultIndex)}`
        )
      const others = after.map((c) => c.name)
      return (
        `${head}${l.received}no call of ${name} after step ${faultIndex}; calls after it: ${inlineReceived(others, 1000)}${endNote(received)}\n\n` +
        `Trace after the fault:\n${traceFrom(received, faultIndex)}`
      )
    },
  }
}

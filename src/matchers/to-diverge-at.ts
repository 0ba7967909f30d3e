import type { StepRef } from '../scenario/steps.js'
import { parseStepRef, stepMatches } from '../scenario/steps.js'
import { printExpected, printReceived, type FluxMatcherContext, type MatcherResult } from './utils/context.js'
import { assertCounterfactual, cfHint, endNote } from './utils/counterfactual.js'
import { labels, traceBlock, usageError } from './utils/format.js'

/**
 * Passes when the counterfactual first differs from its recording at `step`
 * (numbered as in `trace.snap`: `3`, `'model#2'`, `'tool#1'`, `'tool#1 read'`):
 * everything before it replayed unchanged.
 * @example
 * const cf = await s.injectAt(4, { error: 'disk full' }).run(agent)
 * expect(cf).toDivergeAt(4)
 * expect(cf).toDivergeAt('tool#3')
 */
export function toDivergeAt(this: FluxMatcherContext, received: unknown, step: StepRef): MatcherResult {
  const name = 'toDivergeAt'
  assertCounterfactual(this, name, received)
  if (!parseStepRef(step))
    usageError(
      this,
      name,
      'step',
      "`step` must be a step as numbered in trace.snap: 3, 'model#2', 'tool#1' or 'tool#1 <name>'",
      "Pass it as toDivergeAt(3) or toDivergeAt('model#2')",
      step,
    )
  received.markSeen()
  const first = received.firstDivergence
  const pass = !!first && stepMatches(first.index, first.step, step)
  return {
    pass,
    message: () => {
      const l = labels(this)
      const head = `${cfHint(this, name, 'step')}\n\n${l.expected}the first divergence at ${printExpected(this, step)}\n`
      if (!first) {
        const why = received.applied.length ? 'the counterfactual made the same steps as the recording' : 'the change never applied (the run did not reach it)'
        return `${head}${l.received}no divergence: ${why}${endNote(received)}${traceBlock(received, undefined)}`
      }
      const rows = [
        `  recorded: ${first.recorded ? first.recorded.split('\n').join('\n            ') : '(no step there)'}`,
        `  actual:   ${first.actual.split('\n').join('\n            ')}`,
      ]
      const reason = {
        change: 'the change itself',
        halt: 'where the frozen world stopped explaining the run',
        diverged: 'a step the change led to',
      }[first.reason]
      return (
        `${head}${l.received}the first divergence at ${printReceived(this, `${first.index} ${first.step}`)} (${reason})\n` +
        `${rows.join('\n')}${traceBlock(received, first.reason === 'halt' ? undefined : first.step)}`
      )
    },
  }
}

import { Outcome } from '../scenario/outcome.js'
import { assertOutcome, hint, printReceived, type FluxMatcherContext, type MatcherResult } from './utils/context.js'
import { labels, plural, traceBlock } from './utils/format.js'

/**
 * Passes when the run never left the tape: replay mode, no model call went
 * live, no failure-level divergence (`outcome.hermetic`). Also accepts anything
 * that carries an `outcome` and its own `hermetic` flag (a counterfactual run);
 * its `hermetic` decides.
 * @example
 * expect(out).toBeHermetic()
 * expect(await s.counterfactual(...)).toBeHermetic()
 */
export function toBeHermetic(this: FluxMatcherContext, received: unknown): MatcherResult {
  const name = 'toBeHermetic'
  const wrapped = wrapper(received)
  const outcome: unknown = wrapped ? wrapped.outcome : received
  assertOutcome(this, name, outcome)
  outcome.markSeen()
  const pass = wrapped ? wrapped.hermetic : outcome.hermetic
  const subject = `${wrapped ? 'the counterfactual of ' : ''}scenario "${outcome.scenario}"`
  return {
    pass,
    message: () => {
      const l = labels(this)
      const head = `${hint(this, name)}\n\n${l.expected}hermetic (replayed from the tape, no live call, no failure-level divergence)\n`
      if (pass) return `${head}${l.received}${subject} is hermetic: ${plural(outcome.modelCalls.length, 'model call')} replayed from the tape`
      const failures = outcome.divergences.filter((d) => d.severity === 'failure')
      const reasons: string[] = []
      if (outcome.mode === 'record') reasons.push(`  • mode is ${printReceived(this, 'record')}: the run called the live model and tools and recorded them`)
      if (outcome.modelLive > 0) reasons.push(`  • ${plural(outcome.modelLive, 'model call')} went live (modelLive: ${outcome.modelLive})`)
      for (const d of failures)
        reasons.push(`  • ${d.step} ${d.code}: ${d.message.split('; closest')[0]}${d.closest ? ` (closest recorded: ${d.closest})` : ''}`)
      if (!reasons.length) reasons.push(`  • ${wrapped ? 'the counterfactual reports' : 'the outcome reports'} hermetic: false`)
      return `${head}${l.received}${subject} is not hermetic:\n${reasons.join('\n')}${traceBlock(outcome, failures[0]?.step)}`
    },
  }
}

/** `{ outcome: Outcome, hermetic: boolean }` (a counterfactual), duck-typed so a second copy of the library works too. */
function wrapper(v: unknown): { outcome: unknown; hermetic: boolean } | undefined {
  if (typeof v !== 'object' || v === null || v instanceof Outcome || !('outcome' in v) || !('hermetic' in v)) return undefined
  const w = v as { outcome: unknown; hermetic: unknown }
  const inner = w.outcome
  const outcomeLike = inner instanceof Outcome || (typeof inner === 'object' && inner !== null && 'modelCalls' in inner && 'divergences' in inner)
  return outcomeLike && typeof w.hermetic === 'boolean' ? { outcome: inner, hermetic: w.hermetic } : undefined
}

import { renderDiff } from '../cassette/json-diff.js'
import { assertOutcome, hint, printExpected, printReceived, type FluxMatcherContext, type MatcherResult } from './utils/context.js'
import { nextCommand } from './utils/format.js'
import { traceAround } from './utils/trace-window.js'

export interface ReplayFaithfullyOptions {
  /** Treat request drift (`model_request_drift`) as a failure too. */
  strict?: boolean
}

/**
 * Passes when the run did not leave the tape: no failure-level divergence
 * (and, with `strict`, no drift either).
 * @example
 * expect(out).toReplayFaithfully()
 * expect(out).toReplayFaithfully({ strict: true })
 */
export function toReplayFaithfully(this: FluxMatcherContext, received: unknown, options: ReplayFaithfullyOptions = {}): MatcherResult {
  const name = 'toReplayFaithfully'
  assertOutcome(this, name, received)
  received.markSeen()
  const counted = received.divergences.filter((d) => d.severity === 'failure' || options.strict)
  const pass = counted.length === 0
  const expectedLabel = options.strict ? 'no divergence, drift included' : 'no failure-level divergence'
  return {
    pass,
    message: () => {
      const head = `${hint(this, name, options.strict ? '{ strict: true }' : '')}\n\n`
      if (pass)
        return (
          `${head}Expected: the run ${printExpected(this, 'to diverge from the recording')}\nReceived: ` +
          `${printReceived(this, `scenario "${received.scenario}" replayed faithfully (${received.modelCalls.length} model calls)`)}`
        )
      const first = counted[0]
      const rows = counted.map((d) => {
        const diff = d.diff?.length ? `\n      ${renderDiff(d.diff).join('\n      ')}` : ''
        return `  • ${d.step} ${d.code}: ${d.message.split('; closest')[0]}${d.closest ? ` (closest recorded: ${d.closest})` : ''}${diff}`
      })
      return (
        `${head}Expected: ${printExpected(this, expectedLabel)}\n` +
        `Received: ${printReceived(this, `${counted.length} divergence${counted.length > 1 ? 's' : ''} in scenario "${received.scenario}"`)}\n\n` +
        `${rows.join('\n')}\n\nTrace around ${first.step}:\n${traceAround(received, first.step)}\n\n` +
        `If the change is intended, re-record: ${nextCommand(received, 'rerecord')}`
      )
    },
  }
}

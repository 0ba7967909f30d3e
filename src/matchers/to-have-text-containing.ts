import { assertOutcome, hint, printExpected, printReceived, type FluxMatcherContext, type MatcherResult } from './utils/context.js'
import { excerpt, stateless, traceBlock, usageError } from './utils/format.js'

/** How much of the final text a failure message shows. */
const SHOWN = 400

/**
 * Passes when the run's final text (`outcome.text`: the text of the last model
 * call that produced any) contains `text`, or matches it when it is a RegExp.
 * @example
 * expect(out).toHaveTextContaining('Paris')
 * expect(out).toHaveTextContaining(/\b2\.1 ?M\b/)
 * expect(out).not.toHaveTextContaining('I cannot help')
 */
export function toHaveTextContaining(this: FluxMatcherContext, received: unknown, text: string | RegExp): MatcherResult {
  const matcher = 'toHaveTextContaining'
  assertOutcome(this, matcher, received)
  if (typeof text !== 'string' && !(text instanceof RegExp))
    usageError(this, matcher, 'text', '`text` must be a string or a RegExp', "Pass it as toHaveTextContaining('Paris') or toHaveTextContaining(/paris/i)", text)
  const final = received.text
  const at = typeof text === 'string' ? final.indexOf(text) : (stateless(text).exec(final)?.index ?? -1)
  const pass = at >= 0
  // The step that produced the final text: the last model call with text.
  const step = [...received.modelCalls].reverse().find((c) => c.text)?.step
  return {
    pass,
    message: () => {
      const expectedLabel = `Expected ${typeof text === 'string' ? 'substring' : 'pattern'}: ${this.isNot ? 'not ' : ''}`
      const part = pass ? `${SHOWN} of ${final.length} chars, around the match at ${at}` : `first ${SHOWN} of ${final.length} chars`
      const shown = final
        ? `${printReceived(this, excerpt(final, pass ? at : 0, SHOWN))}${final.length > SHOWN ? ` (${part})` : ''}`
        : `${printReceived(this, '')} (no model call produced text)`
      return (
        `${hint(this, matcher, 'text')}\n\n` +
        `${expectedLabel}${printExpected(this, text)}\n` +
        `${'Received text: '.padEnd(expectedLabel.length)}${shown}` +
        traceBlock(received, step, 'final text')
      )
    },
  }
}

import { assertOutcome, hint, type FluxMatcherContext, type MatcherResult } from './utils/context.js'
import { callRows, inlineExpected, inlineReceived, plural, stepOf, stateless, traceBlock, usageError } from './utils/format.js'

/**
 * Passes when no call in the trajectory matches: neither one the model
 * requested nor one the tool channel executed. A string matches the exact tool
 * name; a RegExp is tested against the name.
 * @example
 * expect(out).toNeverCall('delete_file')
 * expect(out).toNeverCall(/^(write|delete)_/)
 * expect(out).toNeverCall(/^POST /) // no HTTP POST left the agent (HTTP tools are named `METHOD host/path`)
 */
export function toNeverCall(this: FluxMatcherContext, received: unknown, name: string | RegExp): MatcherResult {
  const matcher = 'toNeverCall'
  assertOutcome(this, matcher, received)
  if (!(name instanceof RegExp) && (typeof name !== 'string' || name === ''))
    usageError(this, matcher, 'name', '`name` must be a tool name or a RegExp', "Pass it as toNeverCall('delete_file') or toNeverCall(/^delete_/)", name)
  const re = name instanceof RegExp ? stateless(name) : undefined
  const hits = received.calls.filter((c) => (re ? re.test(c.name) : c.name === name))
  const pass = hits.length === 0
  const what = re ? `matching ${inlineExpected(name)}` : `of ${name}`
  return {
    pass,
    message: () => {
      const head = `${hint(this, matcher, 'name')}\n\n`
      // .not.toNeverCall: a call was expected and there is none; the wording is already positive, so no "not".
      if (pass)
        return `${head}Expected: a call ${what}\nReceived: no call ${what}; calls made: ${inlineReceived(
          received.calls.map((c) => c.name),
          1000,
        )}${traceBlock(received, undefined)}`
      return (
        `${head}Expected: no call ${what}\nReceived: ${plural(hits.length, 'call')} ${what}:\n${callRows(hits)}` +
        traceBlock(received, stepOf(hits[0]), hits.length > 1 ? 'first one' : '')
      )
    },
  }
}

import { isRecord } from '../providers/json.js'
import type { TrajectoryCall } from '../scenario/outcome.js'
import { assertOutcome, hint, type FluxMatcherContext, type MatcherResult } from './utils/context.js'
import { callRows, inlineExpected, inlineReceived, labels, plural, stepOf, traceBlock, usageError, whereCalled } from './utils/format.js'

/**
 * Passes when some call of `name` in the trajectory (requested by the model or
 * executed on the tool channel) has args equal to `args`, with the runner's
 * equality: asymmetric matchers (`expect.objectContaining`, `expect.any(Number)`)
 * and testers added with `expect.addEqualityTesters` apply.
 * @example
 * expect(out).toCallWith('get_weather', { city: 'Paris' })
 * expect(out).toCallWith('search', expect.objectContaining({ query: expect.stringContaining('Paris') }))
 * expect(out).not.toCallWith('delete_file', expect.anything())
 */
export function toCallWith(this: FluxMatcherContext, received: unknown, name: string, args: unknown): MatcherResult {
  const matcher = 'toCallWith'
  assertOutcome(this, matcher, received)
  if (typeof name !== 'string' || name === '')
    usageError(this, matcher, 'name', '`name` must be a tool name (a non-empty string)', "Pass it as toCallWith('search', { query: 'x' })", name)
  // biome-ignore lint/complexity/noArguments: a missing third argument differs from one passed as `undefined`
  if (arguments.length < 3)
    usageError(
      this,
      matcher,
      'name',
      '`args` is missing',
      "Pass the args to compare (expect.anything() for any), or use toCall([name], { mode: 'subset' })",
      undefined,
    )
  const testers = [...(this.customTesters ?? [])]
  const ofName = received.calls.filter((c) => c.name === name)
  const match = ofName.find((c) => this.equals(c.args, args, testers))
  const pass = match !== undefined
  const closest = match ?? closestCall(this, ofName, args, testers)
  return {
    pass,
    expected: args,
    actual: closest?.args,
    message: () => {
      const l = labels(this)
      const head = `${hint(this, matcher, 'name', { secondArgument: 'args' })}\n\n${l.expected}${name} called with ${inlineExpected(args)}\n`
      if (match) return `${head}${l.received}${name} called with ${inlineReceived(match.args)} (${whereCalled(match)})${traceBlock(received, stepOf(match))}`
      if (!closest) {
        const made = received.calls.map((c) => c.name)
        return `${head}${l.received}no call of ${name}; calls made: ${inlineReceived(made, 1000)}${traceBlock(received, undefined)}`
      }
      return (
        `${head}${l.received}${plural(ofName.length, `call`)} of ${name}, none with those args:\n${callRows(ofName, false)}` +
        traceBlock(received, stepOf(closest), ofName.length > 1 ? 'closest call' : '')
      )
    },
  }
}

/**
 * The call whose args agree with the expected args on the most top-level keys
 * (the sample of an `objectContaining` counts as its keys); the first on a tie.
 */
function closestCall(ctx: FluxMatcherContext, calls: readonly TrajectoryCall[], args: unknown, testers: unknown[]): TrajectoryCall | undefined {
  const want = sampleOf(args)
  let best: TrajectoryCall | undefined
  let bestScore = -Infinity
  for (const c of calls) {
    let score = 0
    if (isRecord(want) && isRecord(c.args)) {
      const got = c.args
      for (const [k, v] of Object.entries(want)) score += k in got && ctx.equals(got[k], v, testers) ? 1 : 0
    }
    if (score > bestScore) {
      best = c
      bestScore = score
    }
  }
  return best
}

/** `expect.objectContaining(x)` carries `x` as `sample` in both vitest and jest. */
function sampleOf(v: unknown): unknown {
  if (isRecord(v) && typeof v.asymmetricMatch === 'function' && 'sample' in v) return v.sample
  return v
}

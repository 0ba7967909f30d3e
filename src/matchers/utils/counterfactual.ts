import { matcherUtils } from './jest-utils.js'
import { Counterfactual } from '../../scenario/counterfactual.js'
import { printReceived, type FluxMatcherContext } from './context.js'

/** `matcherHint` with `counterfactual` as the received label. */
export function cfHint(ctx: FluxMatcherContext, name: string, expected: string): string {
  const fn = ctx.utils?.matcherHint ?? matcherUtils().matcherHint
  return fn(name, 'counterfactual', expected, { isNot: ctx.isNot, promise: ctx.promise })
}

/**
 * Throw a matcher error unless `received` is a Counterfactual (the result of a what-if's `run`).
 * @note duck-typed so a Counterfactual from a second copy of the library still passes.
 */
export function assertCounterfactual(ctx: FluxMatcherContext, name: string, received: unknown): asserts received is Counterfactual {
  const ok =
    received instanceof Counterfactual ||
    (typeof received === 'object' &&
      received !== null &&
      'modelCalls' in received &&
      'applied' in received &&
      typeof (received as { diff?: unknown }).diff === 'function')
  if (!ok)
    throw new Error(
      `${cfHint(ctx, name, '')}\n\n[fluxlab] ${name} expects the Counterfactual returned by \`await s.injectAt(step, fault).run(agent)\` or \`await ` +
        `s.whatIf()…run(agent)\`.\nReceived: ${printReceived(ctx, received)}`,
    )
}

/**
 * The counterfactual's trace from global step `index` to the end, the step itself marked.
 * @example
 * traceFrom(cf, 4)
 */
export function traceFrom(cf: Counterfactual, index: number | undefined, before = 1): string {
  const lines = cf.trace().trimEnd().split('\n').slice(1)
  let at = index === undefined ? -1 : lines.findIndex((l) => l.startsWith(`${index} `))
  if (at < 0) at = lines.length - 1
  const from = Math.max(0, at - before)
  return lines
    .slice(from)
    .map((l, i) => `${from + i === at ? '›' : ' '} ${l}`)
    .join('\n')
}

/** Why the run ended early, in words, or ''. */
export function endNote(cf: Counterfactual): string {
  const notes: string[] = []
  if (cf.halted) notes.push(`the what-if halted at ${cf.halted.step}: ${cf.halted.reason}`)
  if (cf.error !== undefined)
    notes.push(`the agent threw ${String((cf.error as Error)?.name ?? 'an error')}: ${String((cf.error as Error)?.message ?? cf.error).split('\n')[0]}`)
  return notes.length ? ` (${notes.join('; ')})` : ''
}

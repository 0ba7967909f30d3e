import { matcherUtils } from './jest-utils.js'
import { rerunCommand } from '../../runners/command.js'
import { runningTestRef } from '../../context/test-context.js'
import { formatMessage } from '../../errors.js'
import type { Outcome, OutcomeCommands, TrajectoryCall } from '../../scenario/outcome.js'
import { hint, type FluxMatcherContext } from './context.js'
import { traceAround } from './trace-window.js'

/** The step a trajectory call is first seen at: where the model asked for it, else where it ran. */
export const stepOf = (call: TrajectoryCall): string | undefined => call.requestedAt ?? call.executedAt

/**
 * Where a call happened, in words.
 * @example
 * whereCalled(call) // 'requested at model#2, executed at tool#1 read'
 */
export function whereCalled(call: TrajectoryCall): string {
  if (call.requestedAt && call.executedAt) return `requested at ${call.requestedAt}, executed at ${call.executedAt}`
  if (call.requestedAt) return `requested at ${call.requestedAt}, never executed on the tool channel`
  return `executed at ${call.executedAt}, not requested by the model`
}

/**
 * One-line printers for values inside sentences and bullet rows.
 * @note vitest's `printExpected` spreads arrays and objects over several lines
 * (`Array [` …), which breaks a bullet row apart; jest-matcher-utils prints the
 * same values on one line (`["a", "b"]`, `{"q": StringContaining "x"}`) in both runners.
 * Received values are clipped: a tool's args can be a whole file.
 */
export const inlineExpected = (v: unknown): string => matcherUtils().EXPECTED_COLOR(matcherUtils().stringify(v))
export const inlineReceived = (v: unknown, max = 200): string => {
  const s = matcherUtils().stringify(v)
  return matcherUtils().RECEIVED_COLOR(s.length > max ? `${s.slice(0, max - 1)}…` : s)
}

/** `  • name {args} (requested at …)`, one bullet per call. */
export function callRows(calls: readonly TrajectoryCall[], withName = true): string {
  return calls.map((c) => `  • ${withName ? `${c.name} ` : ''}${inlineReceived(c.args)} (${whereCalled(c)})`).join('\n')
}

/**
 * The trace block of a failure message: the rendered trace around `step`, or its
 * last lines when there is no step to point at.
 */
export function traceBlock(outcome: Outcome, step: string | undefined, why = ''): string {
  const label = step ? `Trace around ${step}${why ? ` (${why})` : ''}:` : 'End of trace:'
  return `\n\n${label}\n${traceAround(outcome, step)}`
}

/** `Expected: ` / `Received: ` labels, aligned the way jest aligns them under `.not`. */
export function labels(ctx: FluxMatcherContext): { expected: string; received: string } {
  return ctx.isNot ? { expected: 'Expected: not ', received: 'Received:     ' } : { expected: 'Expected: ', received: 'Received: ' }
}

export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`

/**
 * A readable slice of a long text: the whole text up to `width` characters, else
 * `width` characters around `at` with `…` marking what was cut.
 * @example
 * excerpt('a'.repeat(1000), 500, 10) // '…aaaaaaaaaa…'
 */
export function excerpt(text: string, at = 0, width = 400): string {
  if (text.length <= width) return text
  const from = Math.max(0, Math.min(at - Math.floor(width / 2), text.length - width))
  const to = from + width
  return `${from > 0 ? '…' : ''}${text.slice(from, to)}${to < text.length ? '…' : ''}`
}

/**
 * Throw for wrong matcher input (a bad argument is an error, not a mismatch).
 * @example
 * usageError(this, 'toCall', 'names', '`names` must be an array of tool names', "Pass them as toCall(['search'])", names)
 */
export function usageError(ctx: FluxMatcherContext, name: string, expectedLabel: string, reason: string, fix: string, received: unknown): never {
  const text = formatMessage({ failed: `run ${name}`, reason, fix, details: [`received: ${inlineReceived(received)}`] })
  throw new Error(`${hint(ctx, name, expectedLabel)}\n\n${text}`)
}

/** A copy of `re` without `g`/`y`, so `.test` has no `lastIndex` state between calls. */
export const stateless = (re: RegExp): RegExp => (re.global || re.sticky ? new RegExp(re.source, re.flags.replace(/[gy]/g, '')) : re)

/**
 * The exact command a failure on `outcome` names: the one the outcome carries (its scenario's
 * test), else the running test's, else this process's command line.
 * @example
 * nextCommand(out, 'rerecord') // "FLUX_GOLDEN=update npx vitest run test/a.test.ts -t '^weather$'"
 */
export function nextCommand(outcome: Outcome, kind: keyof OutcomeCommands): string {
  const known = outcome.commands?.[kind]
  if (known) return known
  const env = kind === 'rerecord' ? 'FLUX_GOLDEN=update' : 'FLUX_GOLDEN=snapshots'
  return rerunCommand(env, runningTestRef())
}

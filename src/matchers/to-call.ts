import type { TrajectoryCall } from '../scenario/outcome.js'
import { assertOutcome, hint, type FluxMatcherContext, type MatcherResult } from './utils/context.js'
import { inlineExpected, inlineReceived, labels, plural, stepOf, traceBlock, usageError } from './utils/format.js'

/** How `toCall` compares the expected names with the trajectory's names. */
export type CallMode = 'strict' | 'unordered' | 'subset' | 'superset'

export interface CallOptions {
  /** Default `strict`. See {@link toCall}. */
  mode?: CallMode
}

const MODES: readonly CallMode[] = ['strict', 'unordered', 'subset', 'superset']

const RULE: Record<CallMode, string> = {
  strict: 'strict: exactly these calls, in this order',
  unordered: 'unordered: exactly these calls, in any order',
  subset: 'subset: no call outside this list',
  superset: 'superset: at least these calls, in any order',
}

/**
 * Passes when the names of the trajectory (`outcome.calls`: every tool call the
 * model requested or the tool channel executed, in order) match `names`:
 *
 * - `strict` (default): the same names in the same order, nothing else.
 * - `unordered`: the same names with the same counts, in any order.
 * - `superset`: the run's calls are a superset of `names` (agentevals' meaning):
 *   each listed name was called at least as many times as it is listed; other
 *   calls are allowed. Order is ignored.
 * - `subset`: the run's calls are a subset of `names`: every call that
 *   happened has its name in the list (an allow-list). Counts are ignored, and
 *   a listed name that was never called is fine.
 *
 * @note before 0.2 the two names meant the reverse (docs/decisions/0005-toCall-modes.md).
 *
 * @example
 * // trajectory: search, search, answer
 * expect(out).toCall(['search', 'search', 'answer'])                          // strict: pass
 * expect(out).toCall(['answer', 'search', 'search'], { mode: 'unordered' })   // pass
 * expect(out).toCall(['search', 'answer'], { mode: 'unordered' })             // fail: one search too many
 * expect(out).toCall(['answer', 'search'], { mode: 'superset' })             // pass: both were called
 * expect(out).toCall(['search', 'search', 'search'], { mode: 'superset' })   // fail: only 2 searches
 * expect(out).toCall(['search', 'answer', 'delete'], { mode: 'subset' })     // pass: nothing outside the list
 * expect(out).toCall(['search'], { mode: 'subset' })                         // fail: answer is not allowed
 */
export function toCall(this: FluxMatcherContext, received: unknown, names: readonly string[], options: CallOptions = {}): MatcherResult {
  const name = 'toCall'
  assertOutcome(this, name, received)
  if (!Array.isArray(names) || names.some((n) => typeof n !== 'string'))
    usageError(this, name, 'names', '`names` must be an array of tool-name strings', "Pass them as toCall(['search', 'answer'])", names)
  if (typeof options !== 'object' || options === null || (options.mode !== undefined && !MODES.includes(options.mode)))
    usageError(this, name, 'names', `\`mode\` must be one of ${MODES.map((m) => `'${m}'`).join(', ')}`, "Pass e.g. { mode: 'unordered' }", options)
  const mode = options.mode ?? 'strict'
  const calls = received.calls
  const actual = calls.map((c) => c.name)
  const check = compare(mode, names, calls)
  const pass = check.problems.length === 0
  const sorted = mode !== 'strict'
  return {
    pass,
    expected: sorted ? [...names].sort() : [...names],
    actual: sorted ? [...actual].sort() : actual,
    message: () => {
      const l = labels(this)
      const head =
        `${hint(this, name, 'names', options.mode ? { secondArgument: `{ mode: '${mode}' }` } : {})}\n\n` +
        `${l.expected}${inlineExpected(names)} (${RULE[mode]})\n` +
        `${l.received}${inlineReceived(actual, 1000)}`
      if (pass) return `${head}${calls.length ? traceBlock(received, stepOf(calls[0]), 'first call') : ''}`
      return `${head}\n\n${check.problems.join('\n')}${traceBlock(received, check.step)}`
    },
  }
}

interface Check {
  /** One line per mismatch; empty when the trajectory matches. */
  problems: string[]
  /** The step to show the trace around. */
  step?: string
}

function compare(mode: CallMode, names: readonly string[], calls: readonly TrajectoryCall[]): Check {
  if (mode === 'strict') return compareStrict(names, calls)
  if (mode === 'subset') {
    const allowed = new Set(names)
    const outside = calls.filter((c) => !allowed.has(c.name))
    return { problems: outside.map((c) => `  • not in the list: ${c.name} (${at(c)})`), step: outside[0] && stepOf(outside[0]) }
  }
  const expected = count(names)
  const seen = new Map<string, number>()
  const problems: string[] = []
  let step: string | undefined
  if (mode === 'unordered')
    for (const c of calls) {
      const n = (seen.get(c.name) ?? 0) + 1
      seen.set(c.name, n)
      if (n > (expected.get(c.name) ?? 0)) {
        problems.push(`  • unexpected: ${c.name} (${at(c)})`)
        step ??= stepOf(c)
      }
    }
  const got = count(calls.map((c) => c.name))
  for (const [n, want] of expected) {
    const have = got.get(n) ?? 0
    if (have < want) problems.push(`  • missing: ${n} (expected ${plural(want, 'call')}, received ${have})`)
  }
  return { problems, step }
}

function compareStrict(names: readonly string[], calls: readonly TrajectoryCall[]): Check {
  const i = names.findIndex((n, k) => calls[k]?.name !== n)
  if (i >= 0 && i >= calls.length) {
    const last = calls[calls.length - 1]
    return {
      problems: [
        `  • missing after call ${calls.length}: ${names.slice(calls.length).join(', ')} (the run made ${plural(calls.length, 'call')}, expected ` +
          `${names.length})`,
      ],
      step: last && stepOf(last),
    }
  }
  if (i >= 0) return { problems: [`  • call ${i + 1} differs: expected ${names[i]}, received ${calls[i].name} (${at(calls[i])})`], step: stepOf(calls[i]) }
  if (calls.length > names.length) {
    const extra = calls.slice(names.length)
    return { problems: extra.map((c, k) => `  • unexpected call ${names.length + k + 1}: ${c.name} (${at(c)})`), step: stepOf(extra[0]) }
  }
  return { problems: [] }
}

const at = (c: TrajectoryCall) => (c.requestedAt ? `requested at ${c.requestedAt}` : `executed at ${c.executedAt}`)

function count(names: readonly string[]): Map<string, number> {
  const m = new Map<string, number>()
  for (const n of names) m.set(n, (m.get(n) ?? 0) + 1)
  return m
}

import { relative } from 'node:path'
import { jestDiff } from './utils/jest-utils.js'
import { assertOutcome, hint, printExpected, printReceived, type FluxMatcherContext, type MatcherResult } from './utils/context.js'
import { nextCommand } from './utils/format.js'

/**
 * Passes when the run's trace equals the fixture's `trace.snap`. Under `-u` or
 * `FLUX_GOLDEN=snapshots` the replay rewrote it (offline); a mismatch otherwise
 * fails with a unified diff and the command that updates it. Counts as a
 * snapshot in the runner's summary (matched / written / updated).
 * @example
 * expect(out).toMatchTraceSnapshot()
 */
export function toMatchTraceSnapshot(this: FluxMatcherContext, received: unknown): MatcherResult {
  const name = 'toMatchTraceSnapshot'
  assertOutcome(this, name, received)
  const snap = received.traceSnapshot
  if (!snap)
    throw new Error(
      `${hint(this, name)}\n\n[fluxlab] This outcome is not tied to a fixture, so there is no trace.snap to compare with. Use the Outcome from \`await ` +
        `s.run(...)\` or \`await s.replay()\`.`,
    )
  count(this.snapshotState, snap.status)
  const pass = snap.status !== 'mismatch'
  const file = relative(process.cwd(), snap.file) || snap.file
  return {
    pass,
    actual: received.trace(),
    expected: snap.expected,
    message: () => {
      const head = `${hint(this, name, '')}\n\n`
      if (pass)
        return `${head}Expected: the trace ${printExpected(this, 'to differ from trace.snap')}\nReceived: ${printReceived(this, `the same trace as ${file}`)}`
      const diff =
        snap.expected === undefined
          ? `${file} does not exist yet.`
          : jestDiff().diffStringsUnified(snap.expected, received.trace(), {
              aAnnotation: 'trace.snap',
              bAnnotation: 'this run',
              expand: false,
              contextLines: 2,
            })
      const ci = snap.updateState === 'none' ? ' (nothing is written under CI without it)' : ''
      return (
        `${head}Expected: ${printExpected(this, `the trace in ${file}`)}\n` +
        `Received: ${printReceived(this, `a different trace for scenario "${received.scenario}"`)}\n\n${diff}\n\n` +
        `If the change is intended, update it offline${ci}: ${nextCommand(received, 'updateTrace')} (or the runner's -u).`
      )
    },
  }
}

/** Bump the runner's own snapshot counters so its summary counts trace snapshots too. */
function count(state: unknown, status: 'matched' | 'added' | 'updated' | 'mismatch'): void {
  const s = state as Record<string, unknown> | undefined
  if (!s || status === 'mismatch') return
  const field = status
  // @note vitest's counters are CounterMaps whose valueOf/setter accept `x = x + 1`; jest's are numbers.
  if (s[field] !== undefined) s[field] = Number(s[field]) + 1
}

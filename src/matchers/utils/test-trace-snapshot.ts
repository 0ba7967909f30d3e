/**
 * TEST-ONLY: Outcomes tied to a fixture's `trace.snap`, for the toMatchTraceSnapshot
 * unit tests. No entry point imports this file, so it never ships in `dist/`.
 * @example
 * const out = snapshotOutcome({ status: 'mismatch', expected: capitalsOutcome().trace().replace('London', 'Londres') })
 */
import { join } from 'node:path'
import type { Outcome, TraceSnapshot } from '../../scenario/outcome.js'
import { capitalsOutcome } from './test-outcome.js'

/** Where the test outcomes' trace.snap lives: under the working directory, so messages show it relative. */
export const TRACE_SNAP = join(process.cwd(), 'scenarios', 'capitals', 'trace.snap')

/**
 * `outcome` with `snapshot` as its `traceSnapshot`.
 * @note test-outcome.ts stays the one file that calls the Outcome constructor (its
 * signature is about to become an init object), so the snapshot is attached to an
 * Outcome built there instead of being passed to a second constructor call.
 */
function withTraceSnapshot<O extends Outcome>(outcome: O, snapshot: TraceSnapshot): O {
  Object.defineProperty(outcome, 'traceSnapshot', { value: snapshot, enumerable: true, configurable: true })
  return outcome
}

export interface SnapshotOutcomeInput {
  status: TraceSnapshot['status']
  /** trace.snap before the run; defaults to the run's own trace (absent when `null`). */
  expected?: string | null
  updateState?: string
  file?: string
}

/** capitalsOutcome() with a trace snapshot in the given status. */
export function snapshotOutcome(input: SnapshotOutcomeInput): Outcome {
  const out = capitalsOutcome()
  const expected = input.expected === null ? undefined : (input.expected ?? out.trace())
  return withTraceSnapshot(out, {
    file: input.file ?? TRACE_SNAP,
    status: input.status,
    ...(expected === undefined ? {} : { expected }),
    ...(input.updateState === undefined ? {} : { updateState: input.updateState }),
  })
}

import { describe, expect, it } from 'vitest'
import { toMatchTraceSnapshot } from './to-match-trace-snapshot.js'
import type { FluxMatcherContext } from './utils/context.js'
import { capitalsOutcome, messageOf } from './utils/test-outcome.js'
import { snapshotOutcome, TRACE_SNAP } from './utils/test-trace-snapshot.js'

expect.extend({ toMatchTraceSnapshot })

/** trace.snap as recorded before the agent's answer changed: London became Londres on the first tool call. */
const recorded = capitalsOutcome().trace().replace('→ "London"', '→ "Londres"')

/** The matcher called raw, the way jest or vitest would call it, with a jest-style snapshot state (plain numbers). */
function callRaw(out: unknown, ctx: Partial<FluxMatcherContext> = {}) {
  return toMatchTraceSnapshot.call({ equals: Object.is, ...ctx }, out)
}

const jestCounters = () => ({ matched: 0, added: 0, updated: 0, unmatched: 0 })

describe('.toMatchTraceSnapshot', () => {
  it('passes when the trace equals trace.snap', () => {
    expect(snapshotOutcome({ status: 'matched' })).toMatchTraceSnapshot()
  })

  // Called raw: through this file's expect they would count as written/updated in this run's own summary.
  it.each(['added', 'updated'] as const)('passes when this run wrote trace.snap (%s)', (status) => {
    expect(callRaw(snapshotOutcome({ status, expected: status === 'added' ? null : recorded }), { snapshotState: jestCounters() }).pass).toBe(true)
  })

  it('fails when the trace differs from trace.snap, with a unified diff and the command that updates it', () => {
    const out = snapshotOutcome({ status: 'mismatch', expected: recorded })
    expect(messageOf(() => expect(out).toMatchTraceSnapshot())).toMatchInlineSnapshot(`
      "expect(outcome).toMatchTraceSnapshot()

      Expected: "the trace in scenarios/capitals/trace.snap"
      Received: "a different trace for scenario "capitals""

      - trace.snap
      + this run

      @@ -2,5 +2,5 @@
        1 model#1 openai-chat gpt-4o-mini · in 50 · out 10 · tool_calls
            → get_capital call_<1> {"country":"UK"}
      - 2 tool#1 get_capital call_<1> {"country":"UK"} → "Londres"
      + 2 tool#1 get_capital call_<1> {"country":"UK"} → "London"
        3 model#2 openai-chat gpt-4o-mini · in 50 · out 10 · tool_calls
            → get_capital call_<2> {"country":"France"}

      If the change is intended, update it offline: FLUX_GOLDEN=snapshots npx vitest run test/capitals.test.ts -t '^capitals$' (or the runner's -u)."
    `)
  })

  it('fails saying nothing is written under CI when the runner may not update snapshots', () => {
    const out = snapshotOutcome({ status: 'mismatch', expected: recorded, updateState: 'none' })
    expect(messageOf(() => expect(out).toMatchTraceSnapshot())).toContain(
      "update it offline (nothing is written under CI without it): FLUX_GOLDEN=snapshots npx vitest run test/capitals.test.ts -t '^capitals$' (or the runner's -u)",
    )
  })

  it('fails saying trace.snap does not exist yet when there was none and nothing was written', () => {
    const out = snapshotOutcome({ status: 'mismatch', expected: null, updateState: 'none' })
    expect(messageOf(() => expect(out).toMatchTraceSnapshot())).toMatchInlineSnapshot(`
      "expect(outcome).toMatchTraceSnapshot()

      Expected: "the trace in scenarios/capitals/trace.snap"
      Received: "a different trace for scenario "capitals""

      scenarios/capitals/trace.snap does not exist yet.

      If the change is intended, update it offline (nothing is written under CI without it): FLUX_GOLDEN=snapshots npx vitest run test/capitals.test.ts -t '^capitals$' (or the runner's -u)."
    `)
  })

  it('returns the trace as actual and trace.snap as expected, for the runner diff', () => {
    const out = snapshotOutcome({ status: 'mismatch', expected: recorded })
    const result = callRaw(out)
    expect(result.pass).toBe(false)
    expect(result.actual).toBe(out.trace())
    expect(result.expected).toBe(recorded)
    expect(result.actual).not.toBe(result.expected)
  })

  it('shows the absolute path when trace.snap is outside the working directory', () => {
    const out = snapshotOutcome({ status: 'mismatch', expected: recorded, file: '/elsewhere/capitals/trace.snap' })
    const message = messageOf(() => expect(out).toMatchTraceSnapshot())
    expect(message).toMatch(/^Expected: "the trace in (\.\.\/)+elsewhere\/capitals\/trace\.snap"$/m)
  })

  describe("the runner's snapshot summary", () => {
    it.each(['matched', 'added', 'updated'] as const)('counts a %s trace snapshot in the counter of the same name', (status) => {
      const snapshotState = jestCounters()
      callRaw(snapshotOutcome({ status }), { snapshotState })
      expect(snapshotState).toEqual({ ...jestCounters(), [status]: 1 })
      callRaw(snapshotOutcome({ status }), { snapshotState })
      expect(snapshotState[status]).toBe(2)
    })

    it('counts nothing for a mismatch (the failed test reports it)', () => {
      const snapshotState = jestCounters()
      callRaw(snapshotOutcome({ status: 'mismatch', expected: recorded }), { snapshotState })
      expect(snapshotState).toEqual(jestCounters())
    })

    it('adds no counter the runner does not have, and runs without a snapshot state', () => {
      const snapshotState: Record<string, number> = { matched: 0 }
      callRaw(snapshotOutcome({ status: 'added' }), { snapshotState })
      expect(snapshotState).toEqual({ matched: 0 })
      expect(callRaw(snapshotOutcome({ status: 'matched' })).pass).toBe(true)
    })

    it("bumps vitest's own matched counter when called through vitest's expect", () => {
      const state = expect.getState().snapshotState as unknown as { matched: { valueOf(): number } }
      const before = Number(state.matched)
      expect(snapshotOutcome({ status: 'matched' })).toMatchTraceSnapshot()
      expect(Number(state.matched)).toBe(before + 1)
    })
  })

  it('throws when the outcome is not tied to a fixture', () => {
    expect(messageOf(() => expect(capitalsOutcome()).toMatchTraceSnapshot())).toMatchInlineSnapshot(`
      "expect(outcome).toMatchTraceSnapshot()

      [fluxlab] This outcome is not tied to a fixture, so there is no trace.snap to compare with. Use the Outcome from \`await s.run(...)\` or \`await s.replay()\`."
    `)
    expect(() => expect(capitalsOutcome()).not.toMatchTraceSnapshot()).toThrow(/there is no trace\.snap to compare with/)
  })

  it('throws when received is not an Outcome', () => {
    expect(() => expect('trace').toMatchTraceSnapshot()).toThrow(/toMatchTraceSnapshot expects the Outcome returned by/)
    expect(() => expect({ traceSnapshot: { file: TRACE_SNAP, status: 'matched' } }).toMatchTraceSnapshot()).toThrow(/toMatchTraceSnapshot expects the Outcome/)
  })
})

describe('.not.toMatchTraceSnapshot', () => {
  it('passes when the trace differs from trace.snap', () => {
    expect(snapshotOutcome({ status: 'mismatch', expected: recorded })).not.toMatchTraceSnapshot()
  })

  it('fails when the trace equals trace.snap', () => {
    expect(messageOf(() => expect(snapshotOutcome({ status: 'matched' })).not.toMatchTraceSnapshot())).toMatchInlineSnapshot(`
      "expect(outcome).not.toMatchTraceSnapshot()

      Expected: the trace "to differ from trace.snap"
      Received: "the same trace as scenarios/capitals/trace.snap""
    `)
  })
})

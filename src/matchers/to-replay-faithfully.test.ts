import { describe, expect, it } from 'vitest'
import { severityOf, type Divergence, type DivergenceCode } from '../cassette/divergence.js'
import { toReplayFaithfully } from './to-replay-faithfully.js'
import { capitalsOutcome, messageOf } from './utils/test-outcome.js'

expect.extend({ toReplayFaithfully })

const divergence = (code: DivergenceCode, step: string, message: string, extra: Partial<Divergence> = {}): Divergence => ({
  code,
  severity: severityOf(code),
  step,
  message,
  ...extra,
})

// Worded the way src/scenario/session.ts words them.
const overflow = divergence(
  'model_index_overflow',
  'model#4',
  'the run made more model calls than the 3 recorded; closest recorded model#3: messages[5].content differs: "Paris" → "Lyon"',
  {
    closest: 'model#3',
    diff: [{ path: 'messages[5].content', kind: 'changed', recorded: 'Paris', actual: 'Lyon' }],
  },
)
const drift = divergence(
  'model_request_drift',
  'model#2',
  'request differs from the recording, served by position: messages[0].content differs: "hi" → "hello"',
  {
    closest: 'model#2',
    diff: [{ path: 'messages[0].content', kind: 'changed', recorded: 'hi', actual: 'hello' }],
  },
)
const unwrapped = divergence('unwrapped_tool', 'model#1', 'the model asked for tool "get_capital" and no tool call on the tape answered it, so it ran live')

/** One divergence of every failure-level code (SPEC §3), at the step the run would name. */
const FAILURES: Divergence[] = [
  overflow,
  divergence('tool_call_unrecorded', 'tool#3 search', 'no recorded call of search with these arguments; closest recorded tool#3 search: limit differs: 3 → 5', {
    closest: 'tool#3 search',
  }),
  divergence('unused_interaction', 'model#3', 'recorded model#3 (gpt-4o-mini) was never requested'),
  divergence('truncated_cell', 'model#2', 'the recorded response was 2000000 bytes, over the cap, and was stored cut'),
  divergence('redaction_mismatch', 'model#1', "the fixture's redaction marker differs from today's redactor config"),
  divergence('policy_denied', 'tool#2 get_capital', 'the policy refused get_capital (deny); the run halts here as a denial'),
]

describe('.toReplayFaithfully', () => {
  it('passes when the run has no divergence', () => {
    expect(capitalsOutcome()).toReplayFaithfully()
    expect(capitalsOutcome()).toReplayFaithfully({ strict: true })
  })

  it('passes when the only divergences are warnings (drift, an unwrapped tool)', () => {
    expect(capitalsOutcome({ divergences: [drift, unwrapped] })).toReplayFaithfully()
    expect(capitalsOutcome({ divergences: [drift] })).toReplayFaithfully({ strict: false })
  })

  it.each(FAILURES.map((d) => [d.code, d] as const))('fails on %s, naming the step and the code', (code, d) => {
    expect(d.severity).toBe('failure')
    const message = messageOf(() => expect(capitalsOutcome({ divergences: [d] })).toReplayFaithfully())
    expect(message).toMatch(/^Received: "1 divergence in scenario "capitals""$/m)
    expect(message).toContain(`  • ${d.step} ${code}: `)
    expect(message).toContain(`Trace around ${d.step}:`)
  })

  it('fails when the run made more model calls than recorded, with the closest recorded call and the JSON-path diff', () => {
    expect(messageOf(() => expect(capitalsOutcome({ divergences: [overflow] })).toReplayFaithfully())).toMatchInlineSnapshot(`
      "expect(outcome).toReplayFaithfully()

      Expected: "no failure-level divergence"
      Received: "1 divergence in scenario "capitals""

        • model#4 model_index_overflow: the run made more model calls than the 3 recorded (closest recorded: model#3)
            messages[5].content differs at character 1: "Paris" → "Lyon"

      Trace around model#4:
        5 tool#3 search call_<3> {"query":"population of Paris","limit":3} → ["2.1M"]
        6 model#3 openai-chat gpt-4o-mini · in 50 · out 10 · stop
            text: "The capital of the UK is London; the capital of France is Paris (population 2.1M)."
      › final: "The capital of the UK is London; the capital of France is Paris (population 2.1M)."

      If the change is intended, re-record: FLUX_GOLDEN=update npx vitest run test/capitals.test.ts -t '^capitals$'"
    `)
  })

  it('fails listing every failure-level divergence but no warning, with the trace around the first', () => {
    const out = capitalsOutcome({ divergences: [drift, FAILURES[1], FAILURES[2]] })
    expect(messageOf(() => expect(out).toReplayFaithfully())).toMatchInlineSnapshot(`
      "expect(outcome).toReplayFaithfully()

      Expected: "no failure-level divergence"
      Received: "2 divergences in scenario "capitals""

        • tool#3 search tool_call_unrecorded: no recorded call of search with these arguments (closest recorded: tool#3 search)
        • model#3 unused_interaction: recorded model#3 (gpt-4o-mini) was never requested

      Trace around tool#3 search:
            → get_capital call_<2> {"country":"France"}
            → search call_<3> {"query":"population of Paris","limit":3}
        4 tool#2 get_capital call_<2> {"country":"France"} → "Paris"
      › 5 tool#3 search call_<3> {"query":"population of Paris","limit":3} → ["2.1M"]
        6 model#3 openai-chat gpt-4o-mini · in 50 · out 10 · stop
            text: "The capital of the UK is London; the capital of France is Paris (population 2.1M)."
        final: "The capital of the UK is London; the capital of France is Paris (population 2.1M)."

      If the change is intended, re-record: FLUX_GOLDEN=update npx vitest run test/capitals.test.ts -t '^capitals$'"
    `)
  })

  it('fails on drift under { strict: true }', () => {
    expect(messageOf(() => expect(capitalsOutcome({ divergences: [drift] })).toReplayFaithfully({ strict: true }))).toMatchInlineSnapshot(`
      "expect(outcome).toReplayFaithfully({ strict: true })

      Expected: "no divergence, drift included"
      Received: "1 divergence in scenario "capitals""

        • model#2 model_request_drift: request differs from the recording, served by position: messages[0].content differs: "hi" → "hello" (closest recorded: model#2)
            messages[0].content differs at character 2: "hi" → "hello"

      Trace around model#2:
        1 model#1 openai-chat gpt-4o-mini · in 50 · out 10 · tool_calls
            → get_capital call_<1> {"country":"UK"}
        2 tool#1 get_capital call_<1> {"country":"UK"} → "London"
      › 3 model#2 openai-chat gpt-4o-mini · in 50 · out 10 · tool_calls
            → get_capital call_<2> {"country":"France"}
            → search call_<3> {"query":"population of Paris","limit":3}
        4 tool#2 get_capital call_<2> {"country":"France"} → "Paris"

      If the change is intended, re-record: FLUX_GOLDEN=update npx vitest run test/capitals.test.ts -t '^capitals$'"
    `)
  })

  it('marks the divergences seen, so the end-of-test check does not repeat them', () => {
    let seen = 0
    expect(capitalsOutcome({ onSeen: () => seen++ })).toReplayFaithfully()
    expect(seen).toBe(1)
    messageOf(() => expect(capitalsOutcome({ divergences: [overflow], onSeen: () => seen++ })).toReplayFaithfully())
    expect(seen).toBe(2)
  })

  it('throws when received is not an Outcome', () => {
    expect(() => expect(undefined).toReplayFaithfully()).toThrow(/toReplayFaithfully expects the Outcome returned by/)
    expect(() => expect({ divergences: [] }).toReplayFaithfully()).toThrow(/toReplayFaithfully expects the Outcome returned by/)
    expect(() => expect({ divergences: [] }).not.toReplayFaithfully()).toThrow(/toReplayFaithfully expects the Outcome returned by/)
  })
})

describe('.not.toReplayFaithfully', () => {
  it('passes when the run has a failure-level divergence', () => {
    expect(capitalsOutcome({ divergences: [overflow] })).not.toReplayFaithfully()
  })

  it('passes when the run drifted, under { strict: true }', () => {
    expect(capitalsOutcome({ divergences: [drift] })).not.toReplayFaithfully({ strict: true })
  })

  it('fails when the run replayed faithfully', () => {
    expect(messageOf(() => expect(capitalsOutcome({ divergences: [drift] })).not.toReplayFaithfully())).toMatchInlineSnapshot(`
      "expect(outcome).not.toReplayFaithfully()

      Expected: the run "to diverge from the recording"
      Received: "scenario "capitals" replayed faithfully (3 model calls)""
    `)
  })

  it('marks the divergences seen', () => {
    let seen = 0
    expect(capitalsOutcome({ divergences: [overflow], onSeen: () => seen++ })).not.toReplayFaithfully()
    expect(seen).toBe(1)
  })
})

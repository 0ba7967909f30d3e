import { describe, expect, it } from 'vitest'
import type { Divergence } from '../cassette/divergence.js'
import { toBeHermetic } from './to-be-hermetic.js'
import { capitalsOutcome, messageOf } from './utils/test-outcome.js'

expect.extend({ toBeHermetic })

const overflow: Divergence = {
  code: 'model_index_overflow',
  severity: 'failure',
  step: 'model#3',
  message: 'the run made a 3rd model call and the tape has 2; closest recorded: model#2',
  closest: 'model#2',
}
const drift: Divergence = { code: 'model_request_drift', severity: 'warning', step: 'model#2', message: 'messages[1].content differs' }

describe('.toBeHermetic', () => {
  it('passes when the run replayed from the tape', () => {
    expect(capitalsOutcome()).toBeHermetic()
  })

  it('passes when the only divergence is drift (a warning)', () => {
    expect(capitalsOutcome({ divergences: [drift] })).toBeHermetic()
  })

  it('fails when the run recorded live', () => {
    expect(messageOf(() => expect(capitalsOutcome({ mode: 'record', modelLive: 3 })).toBeHermetic())).toMatchInlineSnapshot(`
      "expect(outcome).toBeHermetic()

      Expected: hermetic (replayed from the tape, no live call, no failure-level divergence)
      Received: scenario "capitals" is not hermetic:
        • mode is "record": the run called the live model and tools and recorded them
        • 3 model calls went live (modelLive: 3)

      End of trace:
        5 tool#3 search call_<3> {"query":"population of Paris","limit":3} → ["2.1M"]
        6 model#3 openai-chat gpt-4o-mini · in 50 · out 10 · stop
            text: "The capital of the UK is London; the capital of France is Paris (population 2.1M)."
      › final: "The capital of the UK is London; the capital of France is Paris (population 2.1M).""
    `)
  })

  it('fails when a replayed run left the tape, listing each failure-level divergence', () => {
    const out = capitalsOutcome({
      divergences: [
        drift,
        overflow,
        { code: 'tool_call_unrecorded', severity: 'failure', step: 'tool#3 search', message: 'search was called with args the tape does not have' },
      ],
    })
    expect(messageOf(() => expect(out).toBeHermetic())).toMatchInlineSnapshot(`
      "expect(outcome).toBeHermetic()

      Expected: hermetic (replayed from the tape, no live call, no failure-level divergence)
      Received: scenario "capitals" is not hermetic:
        • model#3 model_index_overflow: the run made a 3rd model call and the tape has 2 (closest recorded: model#2)
        • tool#3 search tool_call_unrecorded: search was called with args the tape does not have

      Trace around model#3:
            → search call_<3> {"query":"population of Paris","limit":3}
        4 tool#2 get_capital call_<2> {"country":"France"} → "Paris"
        5 tool#3 search call_<3> {"query":"population of Paris","limit":3} → ["2.1M"]
      › 6 model#3 openai-chat gpt-4o-mini · in 50 · out 10 · stop
            text: "The capital of the UK is London; the capital of France is Paris (population 2.1M)."
        final: "The capital of the UK is London; the capital of France is Paris (population 2.1M).""
    `)
  })

  it('fails when a model call went live in replay', () => {
    expect(messageOf(() => expect(capitalsOutcome({ modelLive: 1 })).toBeHermetic())).toMatchInlineSnapshot(`
      "expect(outcome).toBeHermetic()

      Expected: hermetic (replayed from the tape, no live call, no failure-level divergence)
      Received: scenario "capitals" is not hermetic:
        • 1 model call went live (modelLive: 1)

      End of trace:
        5 tool#3 search call_<3> {"query":"population of Paris","limit":3} → ["2.1M"]
        6 model#3 openai-chat gpt-4o-mini · in 50 · out 10 · stop
            text: "The capital of the UK is London; the capital of France is Paris (population 2.1M)."
      › final: "The capital of the UK is London; the capital of France is Paris (population 2.1M).""
    `)
  })

  it('marks the divergences seen, so the end-of-test check does not repeat them', () => {
    let seen = 0
    expect(capitalsOutcome({ onSeen: () => seen++ })).toBeHermetic()
    expect(seen).toBe(1)
  })

  describe('with a counterfactual ({ outcome, hermetic })', () => {
    it('passes when its own hermetic is true', () => {
      expect({ outcome: capitalsOutcome({ mode: 'record' }), hermetic: true }).toBeHermetic()
    })

    it('fails when its own hermetic is false, even over a hermetic outcome', () => {
      expect(messageOf(() => expect({ outcome: capitalsOutcome(), hermetic: false }).toBeHermetic())).toMatchInlineSnapshot(`
        "expect(outcome).toBeHermetic()

        Expected: hermetic (replayed from the tape, no live call, no failure-level divergence)
        Received: the counterfactual of scenario "capitals" is not hermetic:
          • the counterfactual reports hermetic: false

        End of trace:
          5 tool#3 search call_<3> {"query":"population of Paris","limit":3} → ["2.1M"]
          6 model#3 openai-chat gpt-4o-mini · in 50 · out 10 · stop
              text: "The capital of the UK is London; the capital of France is Paris (population 2.1M)."
        › final: "The capital of the UK is London; the capital of France is Paris (population 2.1M).""
      `)
    })
  })

  it('throws when received is not an Outcome', () => {
    expect(() => expect({ hermetic: true }).toBeHermetic()).toThrow(/toBeHermetic expects the Outcome/)
    expect(() => expect({ outcome: {}, hermetic: true }).toBeHermetic()).toThrow(/toBeHermetic expects the Outcome/)
  })
})

describe('.not.toBeHermetic', () => {
  it('passes when the run recorded live', () => {
    expect(capitalsOutcome({ mode: 'record', modelLive: 3 })).not.toBeHermetic()
  })

  it('fails when the run is hermetic', () => {
    expect(messageOf(() => expect(capitalsOutcome()).not.toBeHermetic())).toMatchInlineSnapshot(`
      "expect(outcome).not.toBeHermetic()

      Expected: not hermetic (replayed from the tape, no live call, no failure-level divergence)
      Received:     scenario "capitals" is hermetic: 3 model calls replayed from the tape"
    `)
  })
})

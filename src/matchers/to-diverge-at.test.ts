import { describe, expect, it } from 'vitest'
import { toDivergeAt } from './to-diverge-at.js'
import { capitalsOutcome, messageOf } from './utils/test-outcome.js'
import { compensated, sagaParent, testCounterfactual } from './utils/test-counterfactual.js'

expect.extend({ toDivergeAt })

describe('.toDivergeAt', () => {
  it('passes for the global step, the channel step, and the channel step with its name', () => {
    expect(compensated()).toDivergeAt(3)
    expect(compensated()).toDivergeAt('3')
    expect(compensated()).toDivergeAt('tool#2')
    expect(compensated()).toDivergeAt('tool#2 ledger.record')
    expect(compensated().firstDivergence).toMatchObject({ index: 3, step: 'tool#2 ledger.record', reason: 'change' })
  })

  it('fails when the run diverged elsewhere, showing recorded and actual', () => {
    expect(messageOf(() => expect(compensated()).toDivergeAt('model#2'))).toMatchInlineSnapshot(`
      "expect(counterfactual).toDivergeAt(step)

      Expected: the first divergence at "model#2"
      Received: the first divergence at "3 tool#2 ledger.record" (the change itself)
        recorded: tool#2 ledger.record {"refundId":"re_1","amount":42} → {"entry":"L-77"}
        actual:   tool#2 ledger.record {"refundId":"re_1","amount":42} ✗ Error: disk full

      Trace around tool#2 ledger.record:
        1 model#1 openai-chat gpt-4o-mini · in 50 · out 10 · tool_calls
            → issue_refund call_<1> {"orderId":"A-1001","amount":42}
        2 tool#1 payments.refund {"orderId":"A-1001","amount":42} → {"refundId":"re_1"}
      › 3 tool#2 ledger.record {"refundId":"re_1","amount":42} ✗ Error: disk full
        4 tool#3 payments.void {"refundId":"re_1"} → {"voided":true}
        5 tool#4 notify.send {"to":"ada@example.com","template":"refund-delayed"} → {"sent":true}
        6 model#2 openai-chat gpt-4o-mini · in 50 · out 10 · stop"
    `)
  })

  it('fails when the counterfactual made the same steps as the recording', () => {
    const same = testCounterfactual({ parent: sagaParent(), steps: sagaParent(), applied: [{ step: 'tool#1 payments.refund', description: 'substitute(…)' }] })
    expect(messageOf(() => expect(same).toDivergeAt(2))).toMatchInlineSnapshot(`
      "expect(counterfactual).toDivergeAt(step)

      Expected: the first divergence at 2
      Received: no divergence: the counterfactual made the same steps as the recording

      End of trace:
        3 tool#2 ledger.record {"refundId":"re_1","amount":42} → {"entry":"L-77"}
        4 model#2 openai-chat gpt-4o-mini · in 50 · out 10 · stop
            text: "Refunded $42."
      › final: "Refunded $42.""
    `)
  })

  it('names a halt as where the frozen world stopped explaining the run', () => {
    const halted = testCounterfactual({
      parent: sagaParent(),
      steps: [],
      applied: [{ step: 'model#1', description: 'model("gpt-4.1-mini")' }],
      halted: { step: 'model#1', reason: 'no recorded call matches this request exactly', kind: 'off-tape' },
    })
    expect(halted).toDivergeAt('model#1')
    expect(messageOf(() => expect(halted).toDivergeAt(2))).toMatchInlineSnapshot(`
      "expect(counterfactual).toDivergeAt(step)

      Expected: the first divergence at 2
      Received: the first divergence at "1 model#1" (where the frozen world stopped explaining the run)
        recorded: model#1 openai-chat gpt-4o-mini · in 50 · out 10 · tool_calls
        actual:   halted: no recorded call matches this request exactly

      End of trace:
      › final: """
    `)
  })

  it('throws when received is not a counterfactual', () => {
    expect(() => expect(capitalsOutcome()).toDivergeAt(3)).toThrow(/toDivergeAt expects the Counterfactual returned by/)
  })

  it('throws when the step is not a step', () => {
    expect(() => expect(compensated()).toDivergeAt(0)).toThrow(/`step` must be a step as numbered in trace.snap/)
  })
})

describe('.not.toDivergeAt', () => {
  it('passes when the first divergence is elsewhere', () => {
    expect(compensated()).not.toDivergeAt(4)
  })

  it('fails when the first divergence is at the step', () => {
    expect(messageOf(() => expect(compensated()).not.toDivergeAt(3))).toMatchInlineSnapshot(`
      "expect(counterfactual).not.toDivergeAt(step)

      Expected: not the first divergence at 3
      Received:     the first divergence at "3 tool#2 ledger.record" (the change itself)
        recorded: tool#2 ledger.record {"refundId":"re_1","amount":42} → {"entry":"L-77"}
        actual:   tool#2 ledger.record {"refundId":"re_1","amount":42} ✗ Error: disk full

      Trace around tool#2 ledger.record:
        1 model#1 openai-chat gpt-4o-mini · in 50 · out 10 · tool_calls
            → issue_refund call_<1> {"orderId":"A-1001","amount":42}
        2 tool#1 payments.refund {"orderId":"A-1001","amount":42} → {"refundId":"re_1"}
      › 3 tool#2 ledger.record {"refundId":"re_1","amount":42} ✗ Error: disk full
        4 tool#3 payments.void {"refundId":"re_1"} → {"voided":true}
        5 tool#4 notify.send {"to":"ada@example.com","template":"refund-delayed"} → {"sent":true}
        6 model#2 openai-chat gpt-4o-mini · in 50 · out 10 · stop"
    `)
  })
})

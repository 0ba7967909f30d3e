import { describe, expect, it } from 'vitest'
import { toBeCompensatedWith } from './to-be-compensated-with.js'
import { capitalsOutcome, messageOf } from './utils/test-outcome.js'
import { compensated, sagaParent, testCounterfactual, uncompensated } from './utils/test-counterfactual.js'

expect.extend({ toBeCompensatedWith })

describe('.toBeCompensatedWith', () => {
  it('passes when a call of the name runs after the fault', () => {
    expect(compensated()).toBeCompensatedWith('notify.send')
    expect(compensated()).toBeCompensatedWith('payments.void')
  })

  it('fails when the agent did not compensate, showing the trace after the fault', () => {
    expect(messageOf(() => expect(uncompensated()).toBeCompensatedWith('notify.send'))).toMatchInlineSnapshot(`
      "expect(counterfactual).toBeCompensatedWith(name)

      Expected: a call of notify.send after the fault at 3 tool#2 ledger.record (injectAt(3, error "disk full"))
      Received: no call of notify.send after step 3; calls after it: [] (the agent threw Error: disk full)

      Trace after the fault:
        2 tool#1 payments.refund {"orderId":"A-1001","amount":42} → {"refundId":"re_1"}
      › 3 tool#2 ledger.record {"refundId":"re_1","amount":42} ✗ Error: disk full
        final: """
    `)
  })

  it('fails when the only call of the name happened before the fault', () => {
    expect(messageOf(() => expect(compensated()).toBeCompensatedWith('payments.refund'))).toMatchInlineSnapshot(`
      "expect(counterfactual).toBeCompensatedWith(name)

      Expected: a call of payments.refund after the fault at 3 tool#2 ledger.record (injectAt(3, error "disk full"))
      Received: no call of payments.refund after step 3; calls after it: ["payments.void", "notify.send"]

      Trace after the fault:
        2 tool#1 payments.refund {"orderId":"A-1001","amount":42} → {"refundId":"re_1"}
      › 3 tool#2 ledger.record {"refundId":"re_1","amount":42} ✗ Error: disk full
        4 tool#3 payments.void {"refundId":"re_1"} → {"voided":true}
        5 tool#4 notify.send {"to":"ada@example.com","template":"refund-delayed"} → {"sent":true}
        6 model#2 openai-chat gpt-4o-mini · in 50 · out 10 · stop
            text: "Your refund is delayed; we emailed you."
        final: "Your refund is delayed; we emailed you.""
    `)
  })

  it('fails when the change never applied', () => {
    const never = testCounterfactual({ parent: sagaParent(), steps: sagaParent() })
    expect(messageOf(() => expect(never).toBeCompensatedWith('notify.send'))).toMatchInlineSnapshot(`
      "expect(counterfactual).toBeCompensatedWith(name)

      Expected: a call of notify.send after the fault
      Received: the change never applied (the run did not reach it), so nothing was compensated

      Trace:
        1 model#1 openai-chat gpt-4o-mini · in 50 · out 10 · tool_calls
            → issue_refund call_<1> {"orderId":"A-1001","amount":42}
        2 tool#1 payments.refund {"orderId":"A-1001","amount":42} → {"refundId":"re_1"}
        3 tool#2 ledger.record {"refundId":"re_1","amount":42} → {"entry":"L-77"}
        4 model#2 openai-chat gpt-4o-mini · in 50 · out 10 · stop
            text: "Refunded $42."
      › final: "Refunded $42.""
    `)
  })

  it('marks the counterfactual seen', () => {
    let seen = 0
    const cf = testCounterfactual({ parent: sagaParent(), steps: sagaParent(), onSeen: () => seen++ })
    expect(cf).not.toBeCompensatedWith('notify.send')
    expect(seen).toBe(1)
  })

  it('throws when received is not a counterfactual', () => {
    expect(() => expect(capitalsOutcome()).toBeCompensatedWith('notify.send')).toThrow(/toBeCompensatedWith expects the Counterfactual returned by/)
  })

  it('throws when the name is not a string', () => {
    expect(() => expect(compensated()).toBeCompensatedWith(42 as unknown as string)).toThrow(/`name` must be a tool name/)
  })
})

describe('.not.toBeCompensatedWith', () => {
  it('passes when the agent did not compensate', () => {
    expect(uncompensated()).not.toBeCompensatedWith('notify.send')
  })

  it('fails when the compensation ran, listing the calls', () => {
    expect(messageOf(() => expect(compensated()).not.toBeCompensatedWith('notify.send'))).toMatchInlineSnapshot(`
      "expect(counterfactual).not.toBeCompensatedWith(name)

      Expected: not a call of notify.send after the fault at 3 tool#2 ledger.record (injectAt(3, error "disk full"))
      Received:     1 call of notify.send after step 3:
        • {"template": "refund-delayed", "to": "ada@example.com"} (executed at tool#4 notify.send, not requested by the model)

      Trace after the fault:
        2 tool#1 payments.refund {"orderId":"A-1001","amount":42} → {"refundId":"re_1"}
      › 3 tool#2 ledger.record {"refundId":"re_1","amount":42} ✗ Error: disk full
        4 tool#3 payments.void {"refundId":"re_1"} → {"voided":true}
        5 tool#4 notify.send {"to":"ada@example.com","template":"refund-delayed"} → {"sent":true}
        6 model#2 openai-chat gpt-4o-mini · in 50 · out 10 · stop
            text: "Your refund is delayed; we emailed you."
        final: "Your refund is delayed; we emailed you.""
    `)
  })
})

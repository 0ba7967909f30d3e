/**
 * TEST-ONLY: builds Counterfactuals for the matcher unit tests without running a
 * scenario. No entry point imports this file, so it never ships in `dist/`.
 */
import type { TraceStep } from '../../golden/trace.js'
import { Counterfactual } from '../../scenario/counterfactual.js'
import type { AppliedChange, Halt } from '../../scenario/intervention.js'
import { model, tool } from './test-outcome.js'

/** Number cells the way a run numbers them. */
function numbered(steps: TraceStep[]): TraceStep[] {
  let m = 0
  let t = 0
  steps.forEach((s, i) => {
    s.cell.seq = i + 1
    s.cell.step = s.channel === 'model' ? `model#${++m}` : `tool#${++t}`
  })
  return steps
}

/** Mark a step as produced by the what-if (a fault or substitute). */
function injected(step: TraceStep, description: string): TraceStep {
  ;(step.cell as { injected?: string }).injected = description
  return step
}

export interface TestCounterfactualInput {
  parent: TraceStep[]
  steps: TraceStep[]
  applied?: AppliedChange[]
  halted?: Halt
  error?: unknown
  onSeen?: () => void
}

/** A Counterfactual of `refund` over the given parent and counterfactual steps. */
export function testCounterfactual(input: TestCounterfactualInput): Counterfactual {
  const steps = numbered(input.steps)
  return new Counterfactual({
    name: 'refund/forks/inject-3-error-disk-full-000000',
    parentName: 'refund',
    spec: { inject: [{ at: 3, fault: { error: 'disk full' } }] },
    result: undefined,
    error: input.error,
    steps: steps.map((s, i) => ({ seq: i + 1, ...s })),
    parentSteps: numbered(input.parent),
    divergences: [],
    modelLive: 0,
    acknowledge: input.onSeen ?? (() => {}),
    halted: input.halted,
    applied: input.applied ?? [],
    fork: { name: 'inject-3-error-disk-full-000000', dir: '/tmp/forks/x', status: 'replayed' },
  })
}

const ask = () => model({ toolCalls: [{ name: 'issue_refund', id: 'call_refund001', args: { orderId: 'A-1001', amount: 42 } }] })

/** The recorded saga: the model asks for a refund, the refund is paid and written to the ledger, the model confirms. */
export const sagaParent = (): TraceStep[] => [
  ask(),
  tool({ name: 'payments.refund', args: { orderId: 'A-1001', amount: 42 }, output: { refundId: 're_1' } }),
  tool({ name: 'ledger.record', args: { refundId: 're_1', amount: 42 }, output: { entry: 'L-77' } }),
  model({ text: 'Refunded $42.' }),
]

const diskFull = () => {
  const t = tool({ name: 'ledger.record', args: { refundId: 're_1', amount: 42 } })
  delete (t.cell as { output?: unknown }).output
  ;(t.cell as { error?: unknown }).error = { name: 'Error', message: 'disk full' }
  return injected(t, 'injectAt(3, error "disk full")')
}

/** The ledger write fails at step 3; the saga voids the refund and tells the customer. */
export function compensated(): Counterfactual {
  return testCounterfactual({
    parent: sagaParent(),
    steps: [
      ask(),
      tool({ name: 'payments.refund', args: { orderId: 'A-1001', amount: 42 }, output: { refundId: 're_1' } }),
      diskFull(),
      tool({ name: 'payments.void', args: { refundId: 're_1' }, output: { voided: true } }),
      tool({ name: 'notify.send', args: { to: 'ada@example.com', template: 'refund-delayed' }, output: { sent: true } }),
      model({ text: 'Your refund is delayed; we emailed you.' }),
    ],
    applied: [{ step: 'tool#2 ledger.record', description: 'injectAt(3, error "disk full")' }],
  })
}

/** The ledger write fails at step 3 and the agent just throws. */
export function uncompensated(): Counterfactual {
  return testCounterfactual({
    parent: sagaParent(),
    steps: [ask(), tool({ name: 'payments.refund', args: { orderId: 'A-1001', amount: 42 }, output: { refundId: 're_1' } }), diskFull()],
    applied: [{ step: 'tool#2 ledger.record', description: 'injectAt(3, error "disk full")' }],
    error: Object.assign(new Error('disk full'), { name: 'Error' }),
  })
}

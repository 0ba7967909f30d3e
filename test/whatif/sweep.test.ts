/**
 * whatIfOver: one change across a corpus of recorded scenarios. One row per
 * scenario; a scenario that cannot run is an error row, never an abort.
 */
import { whatIfOver } from 'fluxlab'
import { expect, test } from 'vitest'
import { SYSTEM_PROMPT } from '../../examples/refund-agent/agent.js'
import { tempDir, useEngineSandbox } from '../engine/helpers.js'
import { recordRefund, refund, supportModel } from './refund.js'

useEngineSandbox()

/** Orders of the corpus: the recordings escalate refunds over $100 (no refund call) and refund the rest. */
const ORDERS = [
  ['refund-a1001', 'A-1001', 42],
  ['refund-a1002', 'A-1002', 80],
  ['refund-a1003', 'A-1003', 150],
  ['refund-a1004', 'A-1004', 250],
  ['refund-a1005', 'A-1005', 30],
] as const

test('a policy sweep over five scenarios and one that cannot run: an error row, the rest reported', async () => {
  const model = await supportModel()
  const dir = tempDir()
  const system = `${SYSTEM_PROMPT} Escalate refunds over $100 to a specialist.`
  for (const [name, orderId, amount] of ORDERS)
    await recordRefund(model, name, { dir, amount, request: `Order ${orderId} arrived broken, please refund it.`, system })
  await model.close()

  const names = [...ORDERS.map(([name]) => name), 'refund-missing']
  const report = await whatIfOver(names, { policy: { deny: ['payments.refund'] } }, refund(model, { system }), { dir, concurrency: 3 })

  expect(report.total).toBe(6)
  expect(report.changed).toBe(3)
  expect(report.errors.map((r) => r.scenario)).toEqual(['refund-missing'])
  expect(report.spend).toBe(0)
  expect(
    report.rows.map((r) => [
      r.scenario,
      r.status,
      r.changed ?? null,
      r.hermetic ?? null,
      r.firstDivergence ? `${r.firstDivergence.index} ${r.firstDivergence.step}` : null,
    ]),
  ).toEqual([
    ['refund-a1001', 'ok', true, false, '3 tool#2 payments.refund'],
    ['refund-a1002', 'ok', true, false, '3 tool#2 payments.refund'],
    ['refund-a1003', 'ok', false, true, null],
    ['refund-a1004', 'ok', false, true, null],
    ['refund-a1005', 'ok', true, false, '3 tool#2 payments.refund'],
    ['refund-missing', 'error', null, null, null],
  ])
  expect(report.rows[5].error).toMatchObject({ code: 'FLUX_NO_RECORDING' })
  expect(report.rows[0].counterfactual?.halted).toMatchObject({ kind: 'denied' })
  expect(report.table().replace(/at \S+ to re-run/, 'at <dir> to re-run')).toMatchInlineSnapshot(`
    "scenario        status  changed  hermetic  first divergence                                              spend
    refund-a1001    ok      yes      no        3 tool#2 payments.refund                                      $0
    refund-a1002    ok      yes      no        3 tool#2 payments.refund                                      $0
    refund-a1003    ok      no       yes       —                                                             $0
    refund-a1004    ok      no       yes       —                                                             $0
    refund-a1005    ok      yes      no        3 tool#2 payments.refund                                      $0
    refund-missing  error   —        —         FLUX_NO_RECORDING: Failed to run a what-if of scenario "ref…  —
    changed 3/6 · 1 error · spent $0"
  `)
})

/**
 * s.check(agent): re-drive today's agent against the recording. Model requests
 * that match come from tape; a miss goes live to the provider (the scripted
 * support model on 127.0.0.1) and is counted; the tool channel stays pinned.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { scenario } from 'fluxlab'
import { expect, test } from 'vitest'
import { SYSTEM_PROMPT } from '../../examples/refund-agent/agent.js'
import { useEngineSandbox } from '../engine/helpers.js'
import { recordRefund, refund, supportModel } from './refund.js'

useEngineSandbox()

test('an unchanged agent is clean: everything from tape, nothing live', async () => {
  const model = await supportModel()
  const { s } = await recordRefund(model)
  const hits = model.hits
  const report = await s.check(refund(model))

  expect(report.isClean()).toBe(true)
  expect([report.planChanged, report.textChanged, report.leftWorld, report.modelLive, report.recorded]).toEqual([false, false, false, 0, false])
  expect(report.misses).toEqual([])
  expect(model.hits).toBe(hits)
  expect(report.outcome.hermetic).toBe(true)
  expect(report.outcome.traceSnapshot?.status).toBe('matched')
  expect(report.summary()).toBe('check of scenario "refund": clean\n  planChanged: false · textChanged: false · leftWorld: false · modelLive: 0')
})

test('a system prompt that changes the plan is served up to the first miss, which goes live once', async () => {
  const model = await supportModel()
  const { s } = await recordRefund(model)
  const hits = model.hits
  const report = await s.check(refund(model, { system: `${SYSTEM_PROMPT} Escalate refunds over $20 to a specialist.` }))

  expect(report.modelLive).toBe(1)
  expect(model.hits - hits).toBe(1)
  expect(report.planChanged).toBe(true)
  expect(report.textChanged).toBe(true)
  expect(report.leftWorld).toBe(false)
  expect(report.isClean()).toBe(false)
  expect(report.outcome.result).toEqual({ answer: 'Order A-1001 is over the $20 limit, so I have escalated it to a specialist.' })
  // step 1 (the order lookup) came from tape before the miss
  expect(report.outcome.trace().split('\n').slice(1, 3)).toEqual([
    '1 tool#1 orders.lookup {"orderId":"A-1001"} → {"orderId":"A-1001","amount":42,"customer":"ada@examp…',
    expect.stringMatching(/^2 model#1 openai-chat gpt-4o-mini-2024-07-18 · in \d+ · out \d+ · stop$/),
  ])
  expect(report.misses).toEqual([{ step: 'model#1', closest: 'model#1', diff: [expect.objectContaining({ path: 'messages[0].content', kind: 'changed' })] }])
  expect(report.summary()).toContain('• model#1 went live: not on the tape (closest recorded: model#1)')
})

test('a reworded prompt that keeps the plan goes live for each model call and reports the plan unchanged', async () => {
  const model = await supportModel()
  const { s } = await recordRefund(model)
  const report = await s.check(refund(model, { system: `${SYSTEM_PROMPT} Be warm.` }))

  expect(report.modelLive).toBe(2)
  expect(report.planChanged).toBe(false)
  expect(report.textChanged).toBe(false)
  expect(report.leftWorld).toBe(false)
  expect(report.misses.map((m) => m.step)).toEqual(['model#1', 'model#2'])
  expect(report.outcome.calls.map((c) => [c.name, c.executedAt])).toEqual([
    ['orders.lookup', 'tool#1 orders.lookup'],
    ['issue_refund', undefined],
    ['payments.refund', 'tool#2 payments.refund'],
    ['ledger.record', 'tool#3 ledger.record'],
  ])
})

test('under FLUX_OFFLINE=1 the first miss halts with a clear error', async () => {
  const model = await supportModel()
  const { s } = await recordRefund(model)
  process.env.FLUX_OFFLINE = '1'
  const offline = await scenario('refund', { dir: s.dir.replace(/[\\/]refund$/, '') })
  const hits = model.hits
  await expect(offline.check(refund(model, { system: `${SYSTEM_PROMPT} Be warm.` }))).rejects.toThrow(
    '[fluxlab] FLUX_OFFLINE: Failed to check model#1 of scenario "refund": no recorded call matches this request exactly, and FLUX_OFFLINE=1 forbids sending it to the provider. Unset FLUX_OFFLINE to let check send it live (it is counted in modelLive), or, if the change is intended, re-record: FLUX_GOLDEN=update npx vitest run test/whatif/check.test.ts -t \'^under FLUX_OFFLINE=1 the first miss halts with a clear error$\'.\n  • closest recorded model#1:\n  • messages[0].content differs at character 135:',
  )
  expect(model.hits).toBe(hits)
})

test('an off-tape tool call halts: the tool channel stays pinned to the recording', async () => {
  const model = await supportModel()
  const { s } = await recordRefund(model)
  const report = await s.check(refund(model, { request: 'Order A-2002 arrived broken, please refund it.' }))

  expect(report.leftWorld).toBe(true)
  expect(report.modelLive).toBe(0)
  expect(report.halted).toMatchObject({ step: 'tool#1 orders.lookup', reason: 'no recorded call of orders.lookup with these arguments' })
  expect(report.error).toMatchObject({ name: 'FluxError', code: 'FLUX_DIVERGED' })
  expect(report.isClean()).toBe(false)
})

test('under FLUX_GOLDEN=update, check re-records the fixture through the live client', async () => {
  const model = await supportModel()
  const { dir } = await recordRefund(model)
  const before = readFileSync(join(dir, 'refund', 'scenario.yaml'), 'utf8')
  process.env.FLUX_GOLDEN = 'update'
  const s = await scenario('refund', { dir })
  const hits = model.hits
  const report = await s.check(refund(model, { system: `${SYSTEM_PROMPT} Escalate refunds over $20 to a specialist.` }))
  delete process.env.FLUX_GOLDEN

  expect(report.recorded).toBe(true)
  expect(report.modelLive).toBe(1)
  expect(model.hits - hits).toBe(1)
  expect(report.planChanged).toBe(true)
  expect(readFileSync(join(dir, 'refund', 'scenario.yaml'), 'utf8')).not.toBe(before)
  expect((await scenario('refund', { dir })).fixture!.trace).toContain('escalated it to a specialist')
})

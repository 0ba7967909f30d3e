/**
 * Tool faults on a saga, and counterfactuals as fixtures: the refund agent's
 * ledger write fails at step 4; the compensating agent voids the payment and
 * notifies the customer. The new tail is recorded beside the parent under
 * FLUX_GOLDEN=update (live: the scripted support model and the real service
 * functions), then replays hermetically from the fork.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { scenario } from 'fluxlab'
import { matchers } from 'fluxlab/matchers'
import OpenAI from 'openai'
import { describe, expect, test, vi } from 'vitest'
import { demoServices, refundAgent } from '../../examples/refund-agent/agent.js'
import { listFiles, readJsonl, useEngineSandbox } from '../engine/helpers.js'
import { recordRefund, refund, REQUEST, supportModel } from './refund.js'

useEngineSandbox()
expect.extend(matchers)

const DISK_FULL = { error: 'disk full' }

test('the recorded saga: lookup, the model asks for a refund, pay out, write the ledger, confirm', async () => {
  const model = await supportModel()
  const { s } = await recordRefund(model)
  expect(s.fixture!.trace).toMatchInlineSnapshot(`
    "# fluxlab trace · refund
    1 tool#1 orders.lookup {"orderId":"A-1001"} → {"orderId":"A-1001","amount":42,"customer":"ada@examp…
    2 model#1 openai-chat gpt-4o-mini-2024-07-18 · in 87 · out 53 · tool_calls
        → issue_refund call_<1> {"amount":42,"orderId":"A-1001"}
    3 tool#2 payments.refund {"amount":42,"orderId":"A-1001"} → {"refundId":"re_a1001"}
    4 tool#3 ledger.record {"amount":42,"orderId":"A-1001","refundId":"re_a1001"} → {"entry":"L-1001"}
    5 model#2 openai-chat gpt-4o-mini-2024-07-18 · in 177 · out 26 · stop
        text: "Done: I refunded $42 for order A-1001 (refund re_a1001)."
    final: "Done: I refunded $42 for order A-1001 (refund re_a1001)."
    "
  `)
})

describe('a tool fault', () => {
  test('an agent without compensation fails toBeCompensatedWith, with the trace after the fault', async () => {
    const model = await supportModel()
    const { s } = await recordRefund(model)
    const cf = await s.injectAt(4, DISK_FULL).run(refund(model, { compensate: false }))

    expect((cf.error as Error).message).toBe('disk full')
    expect(cf).toBeHermetic() // it stopped on tape: the fault is the change, nothing went off tape
    expect(cf).toDivergeAt(4)
    expect(cf).toDivergeAt('tool#3 ledger.record')
    let message = ''
    try {
      expect(cf).toBeCompensatedWith('notify.send')
    } catch (e) {
      message = (e as Error).message.replace(/\u001b\[[0-9;]*m/g, '')
    }
    expect(message).toMatchInlineSnapshot(`
      "expect(counterfactual).toBeCompensatedWith(name)

      Expected: a call of notify.send after the fault at 4 tool#3 ledger.record (injectAt(4, error "disk full"))
      Received: no call of notify.send after step 4; calls after it: [] (the agent threw Error: disk full)

      Trace after the fault:
        3 tool#2 payments.refund {"amount":42,"orderId":"A-1001"} → {"refundId":"re_a1001"}
      › 4 tool#3 ledger.record {"amount":42,"orderId":"A-1001","refundId":"re_a1001"} ✗ Error: disk full
        final: """
    `)
  })

  test('halts where the compensation leaves the recorded world when there is no fork yet', async () => {
    const model = await supportModel()
    const { s } = await recordRefund(model)
    const hits = model.hits
    const cf = await s.injectAt(4, DISK_FULL).run(refund(model))

    expect(cf.hermetic).toBe(false)
    expect(cf.fork.status).toBe('absent')
    expect(cf.halted).toMatchObject({ step: 'tool#4 payments.void', kind: 'off-tape', reason: 'no recorded call of payments.void with these arguments' })
    expect(cf.firstDivergence).toMatchObject({ index: 4, step: 'tool#3 ledger.record', reason: 'change' })
    expect(cf.diff().map((r) => [r.kind, r.step ?? r.parentStep])).toEqual([
      ['changed', 'tool#3 ledger.record'],
      ['removed', 'model#2'],
      ['halted', 'tool#4 payments.void'],
    ])
    expect(cf.error).toMatchObject({ name: 'FluxError', code: 'FLUX_DIVERGED' })
    expect(model.hits).toBe(hits) // halt never spends
    expect(cf.spend().total).toBe(0)
  })

  test('records its fork under FLUX_GOLDEN=update, then replays it hermetically: the saga compensated', async () => {
    const model = await supportModel()
    const { dir } = await recordRefund(model)
    const parentBytes = readFileSync(join(dir, 'refund', 'model.jsonl'), 'utf8')

    process.env.FLUX_GOLDEN = 'update'
    const recording = await scenario('refund', { dir })
    expect(recording.mode).toBe('record') // the parent is read from disk: the what-if never re-records it
    const hits = model.hits
    const live = vi.fn(demoServices()['notify.send'])
    const rec = await recording.injectAt(4, DISK_FULL).run((lab) => {
      const services = { ...demoServices(), 'notify.send': live }
      return refundAgent(REQUEST, lab.tools(services), { client: clientFor(model.url) })
    })
    expect(rec.fork).toMatchObject({ status: 'written', name: expect.stringMatching(/^inject-4-error-disk-full-[0-9a-f]{6}$/) })
    expect(model.hits).toBe(hits + 1) // the new tail's model call went to the provider
    expect(live).toHaveBeenCalledTimes(1) // and the new tool calls ran for real
    expect(rec.modelLive).toBe(1)
    expect(rec.hermetic).toBe(false)
    expect(rec.spend().total).toBeGreaterThan(0)
    delete process.env.FLUX_GOLDEN

    const forkDir = join(dir, 'refund', 'forks', rec.fork.name)
    expect(rec.fork.dir).toBe(forkDir)
    expect(listFiles(forkDir)).toEqual(['model.jsonl', 'scenario.yaml', 'tools.jsonl', 'trace.snap'])
    expect(readFileSync(join(dir, 'refund', 'model.jsonl'), 'utf8')).toBe(parentBytes) // the parent is left as it is
    expect(readFileSync(join(forkDir, 'scenario.yaml'), 'utf8')).toContain('fork:\n  parent: refund\n')
    expect(readJsonl(join(forkDir, 'tools.jsonl')).map((c) => [c.step, c.name, c.injected ?? null])).toEqual([
      ['tool#1', 'orders.lookup', null],
      ['tool#2', 'payments.refund', null],
      ['tool#3', 'ledger.record', 'injectAt(4, error "disk full")'],
      ['tool#4', 'payments.void', null],
      ['tool#5', 'notify.send', null],
    ])
    await model.close()

    const s = await scenario('refund', { dir })
    const spy = vi.fn(demoServices()['notify.send'])
    const cf = await s
      .injectAt(4, DISK_FULL)
      .run((lab) => refundAgent(REQUEST, lab.tools({ ...demoServices(), 'notify.send': spy }), { client: clientFor(model.url) }))
    expect(cf.fork.status).toBe('replayed')
    expect(spy).not.toHaveBeenCalled()
    expect(cf).toBeHermetic()
    expect(cf).toReplayFaithfully()
    expect(cf).toDivergeAt(4)
    expect(cf).toBeCompensatedWith('notify.send')
    expect(cf).toBeCompensatedWith('payments.void')
    expect(cf).toMatchTraceSnapshot()
    expect(cf.result).toEqual({
      answer:
        'Sorry, the refund for order A-1001 could not be completed (disk full). The payment was voided and we emailed ada@example.com; a specialist will retry it.',
      refund: { status: 'failed', reason: 'disk full', compensated: ['payments.void', 'notify.send'] },
    })
    expect(cf.spend().total).toBe(0)
    expect(cf.cost().total).toBeGreaterThan(0) // what the counterfactual run costs at list prices
    expect(cf.trace()).toBe(readFileSync(join(forkDir, 'trace.snap'), 'utf8'))
    expect(cf.report()).toContain('~ 4 tool#3 ledger.record {"amount":42,"orderId":"A-1001","refundId":"re_a1001"} ✗ Error: disk full   (injected)')
    expect(cf.diff().map((r) => [r.kind, r.index ?? null, r.step ?? r.parentStep])).toEqual([
      ['changed', 4, 'tool#3 ledger.record'],
      ['added', 5, 'tool#4 payments.void'],
      ['added', 6, 'tool#5 notify.send'],
      ['changed', 7, 'model#2'],
    ])
    expect(cf.fork.stale).toBeUndefined()

    // a fork recorded from an older parent recording says so
    const manifest = join(forkDir, 'scenario.yaml')
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace(/parentRecordedAt: .*/, 'parentRecordedAt: 2020-01-01T00:00:00.000Z'))
    const stale = await (await scenario('refund', { dir })).injectAt(4, DISK_FULL).run(refund(model))
    expect(stale.fork).toMatchObject({ status: 'replayed', stale: true })
  })

  test('a fault at a step name and a thrown error with extra properties', async () => {
    const model = await supportModel()
    const { s } = await recordRefund(model)
    const cf = await s
      .injectAt('ledger.record', { error: { name: 'LedgerError', message: 'disk full', code: 'ENOSPC' } })
      .run(refund(model, { compensate: false }))
    expect(cf.error).toMatchObject({ name: 'LedgerError', message: 'disk full', code: 'ENOSPC' })
    expect(cf.trace()).toContain('4 tool#3 ledger.record {"amount":42,"orderId":"A-1001","refundId":"re_a1001"} ✗ LedgerError: disk f…')
  })

  test('an output fault answers the call instead of the tape', async () => {
    const model = await supportModel()
    const { s } = await recordRefund(model)
    const cf = await s
      .injectAt('tool#2', { output: { refundId: 're_other' } })
      .offTape('halt')
      .run(refund(model))
    expect(cf.trace()).toContain('3 tool#2 payments.refund {"amount":42,"orderId":"A-1001"} → {"refundId":"re_other"}')
    // the ledger is asked about another refund: the frozen world cannot explain that
    expect(cf.halted).toMatchObject({ step: 'tool#3 ledger.record' })
    expect(cf.hermetic).toBe(false)
  })
})

const clientFor = (url: string) => new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-local', maxRetries: 0 })

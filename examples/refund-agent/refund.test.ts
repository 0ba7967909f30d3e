import { scenario, type Lab } from 'fluxlab'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { demoServices, refundAgent } from './agent.js'
import { startSupportModel } from './support-model.js'

const REQUEST = 'Order A-1001 arrived broken, please refund it.'
/** `FLUX_GOLDEN=update` records the parent and each fork live; every other run replays them for $0. */
const recording = process.env.FLUX_GOLDEN === 'update'

/** The agent under test: the services go on the tape, so a replay never pays anyone out. */
const agent = (lab: Lab) => refundAgent(REQUEST, lab.tools(demoServices()))

// Recording (FLUX_GOLDEN=update) talks to the scripted support model on 127.0.0.1, so the
// fixtures re-record without a key. Set OPENAI_BASE_URL + OPENAI_API_KEY to record against a real provider.
let stopModel: (() => Promise<void>) | undefined
beforeAll(async () => {
  if (process.env.FLUX_GOLDEN !== 'update' || process.env.OPENAI_BASE_URL) return
  const model = await startSupportModel()
  process.env.OPENAI_BASE_URL = `${model.url}/v1`
  process.env.OPENAI_API_KEY ??= 'local-support-model'
  stopModel = async () => {
    await model.close()
    delete process.env.OPENAI_BASE_URL
  }
})
afterAll(() => stopModel?.())

test('refunds a damaged order: pay out, write the ledger, confirm', async () => {
  const s = await scenario('refund-agent', { input: { request: REQUEST } })
  const out = await s.run(agent)

  expect(out).toReplayFaithfully()
  expect(out).toCall(['orders.lookup', 'issue_refund', 'payments.refund', 'ledger.record'])
  expect(out.result.answer).toBe('Done: I refunded $42 for order A-1001 (refund re_a1001).')
  expect(out).toMatchTraceSnapshot()
})

test('the ledger write fails at step 4: the saga voids the payment and tells the customer', async () => {
  const s = await scenario('refund-agent')
  const cf = await s.injectAt(4, { error: 'disk full' }).run(agent)

  expect(cf).toDivergeAt(4) // nothing before the fault changed
  expect(cf).toBeCompensatedWith('payments.void')
  expect(cf).toBeCompensatedWith('notify.send')
  if (!recording) expect(cf).toBeHermetic() // replayed from its committed fork, for $0
  expect(cf.result.refund).toEqual({ status: 'failed', reason: 'disk full', compensated: ['payments.void', 'notify.send'] })
  console.log(cf.report())
})

test('the provider rate-limits the second model call: the SDK retries and the retry is served from tape', async () => {
  const s = await scenario('refund-agent')
  const rl = await s.injectAt('model#2', { status: 429, headers: { 'retry-after': '0' } }).run(agent)

  expect(rl).toReplayFaithfully()
  expect(rl.modelCalls.map((c) => c.status)).toEqual([200, 429, 200])
  expect(rl.result.answer).toBe('Done: I refunded $42 for order A-1001 (refund re_a1001).')
})

test('re-planned under another model, against the same frozen world', async () => {
  const s = await scenario('refund-agent')
  const m = await s.whatIf().model('gpt-4.1-mini').run(agent)

  if (!recording) expect(m).toBeHermetic() // its fork holds the gpt-4.1-mini answers
  expect(m).toDivergeAt('model#1')
  expect(m.modelCalls.map((c) => c.model)).toEqual(['gpt-4.1-mini-2025-04-14', 'gpt-4.1-mini-2025-04-14'])
  expect(m.result.answer).toBe('Done: I refunded $42 for order A-1001 (refund re_a1001).')
})

test('a tighter policy would have refused the payout: the run halts as a denial', async () => {
  const s = await scenario('refund-agent')
  const cf = await s.whatIf().policy({ deny: ['payments.refund'] }).run(agent)

  expect(cf.hermetic).toBe(false) // it left the recorded world: that is the answer
  expect(cf).toDivergeAt('tool#2 payments.refund')
  expect(cf.halted).toMatchObject({ kind: 'denied', step: 'tool#2 payments.refund' })
  expect(cf.fork.status).not.toBe('written')
})

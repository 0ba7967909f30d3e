/**
 * The what-if builder over real recordings: substitute (hermetic, exact diff),
 * turn, model() (halts, records its fork under FLUX_GOLDEN=update + live, then
 * replays hermetically), instructions(), policy() (a refusal halts as a denial),
 * spec() capture.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { scenario, type Lab } from 'fluxlab'
import { matchers } from 'fluxlab/matchers'
import OpenAI from 'openai'
import { describe, expect, test } from 'vitest'
import { SYSTEM_PROMPT } from '../../examples/refund-agent/agent.js'
import { openaiBaseURL } from '../support/index.js'
import { serve, tempDir, track, useEngineSandbox } from '../engine/helpers.js'
import { recordRefund, refund, supportModel } from './refund.js'

useEngineSandbox()
expect.extend(matchers)

/** A calculator service on 127.0.0.1 (a non-model host: an HTTP tool on the tape). */
async function calculator(): Promise<{ url: string; hits: () => number }> {
  let hits = 0
  const server = createServer((req, res) => {
    hits++
    const q = new URL(req.url ?? '/', 'http://x').searchParams
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ product: Number(q.get('a')) * Number(q.get('b')) }))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  track({ close: () => new Promise<void>((r) => (server.close(() => r()), server.closeAllConnections())) })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits }
}

/** OpenAI streaming tool loop whose multiply tool calls the calculator over HTTP; when it is down the agent answers from code. */
const calcAgent = (providerUrl: string, calcUrl: string) => async (_lab: Lab) => {
  const client = new OpenAI({ baseURL: openaiBaseURL({ url: providerUrl }), apiKey: 'sk-test', maxRetries: 0 })
  const tools: OpenAI.ChatCompletionTool[] = [
    { type: 'function', function: { name: 'multiply', parameters: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } } } } },
  ]
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is 1231 * 2331?' }]
  for (let i = 0; i < 2; i++) {
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools, stream: true, stream_options: { include_usage: true } })
    const turn = { text: '', id: '', args: '' }
    for await (const chunk of stream) {
      const call = chunk.choices[0]?.delta.tool_calls?.[0]
      turn.text += chunk.choices[0]?.delta.content ?? ''
      turn.id += call?.id ?? ''
      turn.args += call?.function?.arguments ?? ''
    }
    if (!turn.id) return turn.text
    const { a, b } = JSON.parse(turn.args) as { a: number; b: number }
    const res = await fetch(`${calcUrl}/multiply?a=${a}&b=${b}`)
    if (!res.ok) return 'The calculator is unavailable right now.'
    messages.push({ role: 'assistant', tool_calls: [{ id: turn.id, type: 'function', function: { name: 'multiply', arguments: turn.args } }] })
    messages.push({ role: 'tool', tool_call_id: turn.id, content: String(((await res.json()) as { product: number }).product) })
  }
  return ''
}

async function recordCalc() {
  const dir = tempDir()
  const provider = await serve(['openai-chat/test_tool_use_basic.yaml'])
  const calc = await calculator()
  await (await scenario('calc', { dir })).run(calcAgent(provider.url, calc.url))
  await provider.close()
  const s = await scenario('calc', { dir })
  return { s, agent: calcAgent(provider.url, calc.url), calc, dir }
}

describe('substitute', () => {
  test('is hermetic and its diff holds exactly the rows the substitution caused', async () => {
    const { s, agent, calc } = await recordCalc()
    const hits = calc.hits()
    const cf = await s.whatIf().substitute('http.request', { status: 503 }).run(agent)

    expect(cf.result).toBe('The calculator is unavailable right now.')
    expect(cf).toBeHermetic()
    expect(cf).toReplayFaithfully()
    expect(calc.hits()).toBe(hits) // no tool body, no model call
    expect(cf.spend().total).toBe(0)
    expect(cf).toDivergeAt(2)
    const host = new URL(calc.url).host
    expect(cf.diff()).toEqual([
      {
        kind: 'changed',
        index: 2,
        step: `tool#1 GET ${host}/multiply`,
        parentIndex: 2,
        parentStep: `tool#1 GET ${host}/multiply`,
        recorded: `tool#1 GET ${host}/multiply query {"a":"1231","b":"2331"} → 200`,
        actual: `tool#1 GET ${host}/multiply query {"a":"1231","b":"2331"} → 503`,
        injected: true,
      },
      {
        kind: 'removed',
        parentIndex: 3,
        parentStep: 'model#2',
        recorded:
          'model#2 openai-chat gpt-4o-mini-2024-07-18 · in 87 · out 26 · stop\n    text: "The result of \\\\( 1231 \\\\times 2331 \\\\) is \\\\( 2,869,461 \\\\)."',
      },
    ])
    expect(cf.applied).toEqual([{ step: `tool#1 GET ${host}/multiply`, description: 'substitute("http.request", {"status":503})' }])
  })

  test('with turn(n) answers only the tool calls of that model turn', async () => {
    const { s, agent } = await recordCalc()
    const other = await s.whatIf().turn(2).substitute('http.request', { status: 503 }).run(agent)
    expect(other.applied).toEqual([])
    expect(other.firstDivergence).toBeUndefined()
    expect(other.diff()).toEqual([])
    expect(other.result).toBe('The result of \\( 1231 \\times 2331 \\) is \\( 2,869,461 \\).')

    const first = await s.whatIf().turn(1).substitute('http.request', { status: 503 }).run(agent)
    expect(first.result).toBe('The calculator is unavailable right now.')
  })

  test('substituteAt answers one step, here with the same product the calculator gave', async () => {
    const { s, agent } = await recordCalc()
    const cf = await s.whatIf().substituteAt('tool#1', { product: 2869461 }).run(agent)
    expect(cf.result).toBe('The result of \\( 1231 \\times 2331 \\) is \\( 2,869,461 \\).')
    expect(cf).toBeHermetic()
    expect(cf.diff().map((r) => [r.kind, r.step, r.injected])).toEqual([['changed', expect.stringMatching(/^tool#1 GET /), true]])
  })
})

test('substituteAt on a model step answers a whole response instead of the recorded one', async () => {
  const model = await supportModel()
  const { s } = await recordRefund(model)
  const completion = {
    id: 'chatcmpl-substituted',
    object: 'chat.completion',
    created: 1767225600,
    model: 'gpt-4o-mini-2024-07-18',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Refund sent. Anything else?' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  }
  const cf = await s.whatIf().substituteAt('model#2', { status: 200, body: completion }).run(refund(model))
  expect(cf.result).toMatchObject({ answer: 'Refund sent. Anything else?' })
  expect(cf).toBeHermetic()
  expect(cf.modelCalls[1]).toMatchObject({ step: 'model#2', text: 'Refund sent. Anything else?', usage: { input: 10, output: 5 }, finishReason: 'stop' })
  expect(cf.diff()).toMatchObject([{ kind: 'changed', index: 5, step: 'model#2', injected: true }])
})

describe('HTTP tool faults', () => {
  test("a reset rejects the agent's fetch, a timeout holds it until the agent aborts", async () => {
    const { s, agent } = await recordCalc()
    const reset = await s.injectAt(2, { reset: true }).run(agent)
    expect([(reset.error as Error).name, (reset.error as Error).message]).toEqual(['TypeError', 'Failed to fetch'])
    expect(reset.trace()).toMatch(/2 tool#1 GET \S+ query \{"a":"1231","b":"2331"\} → ConnectionReset/)

    const slow = await s.injectAt('tool#1', { timeout: true }).run(async (lab) => {
      const url = s.fixture!.tools[0].url!
      return fetch(url, { signal: AbortSignal.timeout(100) }).then(
        () => 'answered',
        (e: Error) => e.name,
      )
    })
    expect(slow.result).toBe('TimeoutError')
  })

  test('an output fault answers 200 with the output as JSON', async () => {
    const { s, agent } = await recordCalc()
    const cf = await s.injectAt('tool#1', { output: { product: 1 } }).run(agent)
    expect(cf.trace()).toMatch(/2 tool#1 GET \S+ query \{"a":"1231","b":"2331"\} → 200/)
    // the model is told 1: a conversation the tape has never seen
    expect(cf.halted).toMatchObject({ step: 'model#2', kind: 'off-tape' })
  })
})

describe('model()', () => {
  test('halts at the first request the tape cannot explain, then records its fork under FLUX_GOLDEN=update + live and replays it hermetically', async () => {
    const model = await supportModel()
    const { s, dir } = await recordRefund(model)

    const halted = await s.whatIf().model('gpt-4.1-mini').offTape('halt').run(refund(model))
    expect(halted.hermetic).toBe(false)
    expect(halted.error).toBeInstanceOf(OpenAI.BadRequestError)
    expect(String((halted.error as Error).message)).toContain('model#1 of scenario "refund/forks/model-gpt-4-1-mini-')
    expect(halted.firstDivergence).toMatchObject({ index: 2, step: 'model#1', reason: 'halt', actual: 'halted: no recorded call matches this request exactly' })
    expect(halted.firstDivergence?.recorded).toMatch(/^model#1 openai-chat gpt-4o-mini-2024-07-18/)
    expect(halted.divergences).toMatchObject([
      { code: 'model_index_overflow', step: 'model#1', diff: [{ path: 'model', kind: 'changed', recorded: 'gpt-4o-mini', actual: 'gpt-4.1-mini' }] },
    ])
    expect(halted.diff().at(-1)).toEqual({ kind: 'halted', index: 2, step: 'model#1', actual: 'no recorded call matches this request exactly' })
    expect(halted.fork.status).toBe('absent')

    process.env.FLUX_GOLDEN = 'update'
    const hits = model.hits
    const rec = await (await scenario('refund', { dir })).whatIf().model('gpt-4.1-mini').offTape('live').run(refund(model))
    delete process.env.FLUX_GOLDEN
    expect(rec.fork.status).toBe('written')
    expect(model.hits - hits).toBe(2)
    expect(rec.modelLive).toBe(2)
    expect(rec.modelCalls.map((c) => c.model)).toEqual(['gpt-4.1-mini-2025-04-14', 'gpt-4.1-mini-2025-04-14'])
    await model.close()

    const cf = await (await scenario('refund', { dir })).whatIf().model('gpt-4.1-mini').run(refund(model))
    expect(cf.fork.status).toBe('replayed')
    expect(cf).toBeHermetic()
    expect(cf).toMatchTraceSnapshot()
    expect(cf).toDivergeAt('model#1')
    expect(cf.firstDivergence?.reason).toBe('change')
    expect(cf.result).toMatchObject({ answer: 'Done: I refunded $42 for order A-1001 (refund re_a1001).' })
    expect(cf.cost().byModel).toHaveProperty(['gpt-4.1-mini-2025-04-14'])
    expect(cf.spend().total).toBe(0)
  })

  test('an unchanged model id changes nothing', async () => {
    const model = await supportModel()
    const { s } = await recordRefund(model)
    const cf = await s.whatIf().model('gpt-4o-mini').run(refund(model))
    expect(cf.applied).toEqual([])
    expect(cf).toBeHermetic()
    expect(cf.diff()).toEqual([])
  })
})

test('instructions() rewrites the system prompt the provider receives; live, the new prompt changes the plan', async () => {
  const model = await supportModel()
  const { s } = await recordRefund(model)
  const cf = await s.whatIf().instructions(`${SYSTEM_PROMPT} Escalate refunds over $20 to a specialist.`).offTape('live').run(refund(model))

  expect(cf.result).toEqual({ answer: 'Order A-1001 is over the $20 limit, so I have escalated it to a specialist.' })
  expect(cf.modelLive).toBe(1)
  expect(cf.hermetic).toBe(false)
  expect(cf.fork.status).toBe('absent') // live without FLUX_GOLDEN=update writes nothing
  expect(cf.calls.map((c) => c.name)).toEqual(['orders.lookup']) // the lookup was served from tape; no refund was asked for
  expect(cf.diff().map((r) => [r.kind, r.step ?? r.parentStep])).toEqual([
    ['changed', 'model#1'],
    ['removed', 'tool#2 payments.refund'],
    ['removed', 'tool#3 ledger.record'],
    ['removed', 'model#2'],
  ])
})

describe('policy()', () => {
  test('a denied tool call records a refusal, halts the run as a denial, and is not hermetic', async () => {
    const model = await supportModel()
    const { s } = await recordRefund(model)
    const cf = await s
      .whatIf()
      .policy({ deny: ['payments.refund'] })
      .run(refund(model))

    expect(cf.hermetic).toBe(false)
    expect(cf.halted).toEqual({ step: 'tool#2 payments.refund', kind: 'denied', reason: 'the policy denied payments.refund (deny: "payments.refund")' })
    expect(cf.error).toMatchObject({ name: 'PolicyDenied', message: 'denied by the what-if policy (deny: "payments.refund")' })
    expect(cf).toDivergeAt(3)
    expect(cf.firstDivergence?.reason).toBe('change')
    expect(cf.divergences).toMatchObject([{ code: 'policy_denied', severity: 'failure', step: 'tool#2 payments.refund' }])
    expect(cf.trace()).toContain('3 tool#2 payments.refund {"amount":42,"orderId":"A-1001"} ✗ PolicyDenied: denied by the what-if pol…')
    expect(cf).not.toBeHermetic()
  })

  test('an allow-list denies what it does not list, and a policy function decides per call', async () => {
    const model = await supportModel()
    const { s } = await recordRefund(model)
    const allow = await s
      .whatIf()
      .policy({ allow: ['orders.lookup', /^payments\./] })
      .run(refund(model))
    expect(allow.halted).toMatchObject({
      step: 'tool#3 ledger.record',
      reason: 'the policy denied ledger.record (not in allow: ["orders.lookup", /^payments\\./])',
    })

    const fn = await s
      .whatIf()
      .policy(({ name }) => (name === 'ledger.record' ? 'the ledger is read-only during the drill' : true))
      .run(refund(model))
    expect(fn.halted).toMatchObject({ step: 'tool#3 ledger.record', kind: 'denied' })
    // the saga caught the refusal and tried to compensate; after a halt nothing is served
    expect(fn.error).toMatchObject({ name: 'FluxError', code: 'FLUX_DIVERGED' })
    expect((fn.error as Error).message).toContain('Failed to dispatch tool#4 payments.void in scenario "refund/forks/policy-fn-')
    expect((fn.error as Error).message).toContain(
      'the what-if halted at tool#3 ledger.record (the policy denied ledger.record (the ledger is read-only during the drill))',
    )
  })

  test('an equally permissive policy changes nothing and stays on tape', async () => {
    const model = await supportModel()
    const { s } = await recordRefund(model)
    const cf = await s
      .whatIf()
      .policy({ allow: ['orders.lookup', 'payments.refund', 'ledger.record'], deny: ['payments.void'] })
      .run(refund(model))
    expect(cf).toBeHermetic()
    expect(cf.applied).toEqual([])
    expect(cf.diff()).toEqual([])
  })
})

describe('spec()', () => {
  test('captures the builder, and s.whatIf(spec) starts from it', async () => {
    const model = await supportModel()
    const { s } = await recordRefund(model)
    const spec = s.whatIf().turn(1).model('gpt-4.1-mini').instructions('Be brief.').offTape('halt').named('brief').spec()
    expect(spec).toEqual({ turn: 1, model: 'gpt-4.1-mini', instructions: 'Be brief.', offTape: 'halt', name: 'brief' })
    const cf = await s.whatIf(spec).run(refund(model))
    expect(cf.fork.name).toBe('brief')
    expect(cf.scenario).toBe('refund/forks/brief')
    expect(cf.halted?.step).toBe('model#1')
  })

  test('builders are immutable, and an invalid offTape lists the valid values', async () => {
    const model = await supportModel()
    const { s } = await recordRefund(model)
    const base = s.whatIf().model('gpt-4.1-mini')
    base.offTape('live')
    expect(base.spec()).toEqual({ model: 'gpt-4.1-mini' })
    expect(() => base.offTape('maybe' as 'halt')).toThrow(
      `[fluxlab] FLUX_BAD_CONFIG: Failed to set offTape("maybe"): "maybe" is not a valid value. Use one of: 'halt', 'live'.`,
    )
    await expect(s.whatIf().run(refund(model))).rejects.toThrow('Failed to run a what-if of scenario "refund": it changes nothing.')
  })

  test('a what-if of a scenario with no recording is an error naming the fix', async () => {
    const model = await supportModel()
    const s = await scenario('never-recorded', { dir: tempDir() })
    await expect(s.injectAt(1, { error: 'x' }).run(refund(model))).rejects.toThrow(
      /FLUX_NO_RECORDING: Failed to run a what-if of scenario "never-recorded": there is no recording at .* to re-run\. Record the scenario first/,
    )
  })
})

import { stripVTControlCharacters } from 'node:util'
import { describe, expect, it } from 'vitest'
import type { ModelCell, ToolCell } from '../cassette/cell.js'
import { isFluxError } from '../errors.js'
import type { TraceStep } from '../golden/trace.js'
import type { NormalizedUsage } from '../providers/types.js'
import type { ProviderFamily } from '../providers/registry.js'
import { Outcome } from '../scenario/outcome.js'
import { toCostUnder, type CostUnderOptions } from './to-cost-under.js'

expect.extend({ toCostUnder })

interface CostAssertion {
  toCostUnder(usd: unknown, options?: CostUnderOptions): void
}

const assertion = (received: unknown, not = false) => (not ? expect(received).not : expect(received)) as unknown as CostAssertion

function failure(fn: () => void): string {
  try {
    fn()
  } catch (e) {
    return stripVTControlCharacters((e as Error).message)
  }
  throw new Error('expected the assertion to fail')
}

let seq = 0
function model(family: ProviderFamily, id: string | undefined, usage: Partial<NormalizedUsage>, extra: Partial<ModelCell> = {}): TraceStep {
  seq++
  const cell: ModelCell = {
    seq,
    step: `model#${seq}`,
    key: `key-${seq}`,
    family,
    url: 'https://provider.test/v1',
    request: { method: 'POST', path: '/v1', body: {} },
    response: { status: 200, headers: {}, chunks: [] },
    model: id,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, ...usage },
    finishReason: 'stop',
    text: '',
    toolCalls: [],
    durationMs: 5,
    truncated: false,
    ...extra,
  }
  return { channel: 'model', cell }
}

function tool(name: string, callId: string, args: unknown, output: unknown): TraceStep {
  const cell: ToolCell = { seq: ++seq, step: `tool ${name}`, kind: 'fn', name, callId, key: `key-${seq}`, args, output, durationMs: 1, truncated: false }
  return { channel: 'tool', cell }
}

function outcome(steps: TraceStep[]): Outcome {
  seq = 0
  return new Outcome({ scenario: 'weather', mode: 'replay', result: undefined, steps })
}

/**
 * Three providers, each with its own usage semantics:
 * model#1 gpt-4o-mini, 1000 in (400 cached) / 200 out: 600 × 0.15 + 400 × 0.075 + 200 × 0.60 = 240 → $0.000240
 * model#2 claude-haiku-4-5, 3000 in (2000 read, 500 written) / 100 out: 500 × 1 + 2000 × 0.10 + 500 × 1.25 + 100 × 5 = 1825 → $0.001825
 * model#3 gemini-2.5-flash, 1200 in / 1000 out (700 thinking): 1200 × 0.30 + 1000 × 2.50 = 2860 → $0.002860
 * Total $0.004925.
 */
function agentRun(): Outcome {
  seq = 0
  const steps = [
    model(
      'openai-chat',
      'gpt-4o-mini-2024-07-18',
      { input: 1000, cacheRead: 400, output: 200 },
      {
        finishReason: 'tool_calls',
        toolCalls: [{ id: 'call_weather0001', name: 'get_weather', args: { city: 'Paris' } }],
      },
    ),
    tool('get_weather', 'call_weather0001', { city: 'Paris' }, { tempC: 18 }),
    model('anthropic', 'claude-haiku-4-5-20251001', { input: 3000, cacheRead: 2000, cacheWrite: 500, output: 100 }),
    model('gemini', 'gemini-2.5-flash', { input: 1200, output: 1000, reasoning: 700 }, { text: 'It is 18°C in Paris.' }),
  ]
  return outcome(steps)
}

const cheapRun = () => outcome([model('openai-chat', 'my-model', { input: 1000 })])
const mine: CostUnderOptions = { pricing: { 'my-model': { input: 1, output: 1 } } }

describe('.toCostUnder', () => {
  it('passes when the recorded run costs less than the budget', () => {
    assertion(agentRun()).toCostUnder(0.005)
    assertion(cheapRun()).toCostUnder(0.0011, mine)
  })

  it('passes for a run with no model calls', () => {
    assertion(outcome([])).toCostUnder(0.01)
  })

  it('fails when the run costs exactly the budget', () => {
    // 1000 tokens at $1 per 1M = $0.001
    expect(failure(() => assertion(cheapRun()).toCostUnder(0.001, mine))).toContain('Expected: under $0.0010\nReceived: $0.00100\n')
  })

  it('fails when the run costs more, with the cost by model and the costliest call', () => {
    expect(failure(() => assertion(agentRun()).toCostUnder(0.004))).toMatchInlineSnapshot(`
      "expect(outcome).toCostUnder(0.004)

      Expected: under $0.0040
      Received: $0.00493

      Recorded usage at list prices as of 2026-10-24:
        • gemini-2.5-flash · 1 call · in 1,200 · out 1,000 (reasoning 700) → $0.00286
        • claude-haiku-4-5-20251001 · 1 call · in 3,000 (cache read 2,000, cache write 500) · out 100 → $0.00183
        • gpt-4o-mini-2024-07-18 · 1 call · in 1,000 (cache read 400) · out 200 → $0.000240

      Trace around model#3 (the costliest call: gemini-2.5-flash, $0.00286):
            → get_weather call_<1> {"city":"Paris"}
        2 tool#1 get_weather call_<1> {"city":"Paris"} → {"tempC":18}
        3 model#2 anthropic claude-haiku-4-5-20251001 · in 3000 · out 100 · cache read 2000 · cache write 500 · stop
      › 4 model#3 gemini gemini-2.5-flash · in 1200 · out 1000 (reasoning 700) · stop
            text: "It is 18°C in Paris."
        final: "It is 18°C in Paris.""
    `)
  })

  it('throws a FluxError for a model with no price instead of failing or counting it as $0', () => {
    let error: unknown
    try {
      assertion(cheapRun()).toCostUnder(0.05)
    } catch (e) {
      error = e
    }
    expect(isFluxError(error, 'FLUX_BAD_CONFIG')).toBe(true)
    expect((error as Error).message).toContain(`Failed to price model "my-model"`)
    expect((error as Error).message).toContain(`expect(out).toCostUnder(0.05, { pricing: { 'my-model': { input: 0.15, output: 0.6 } } })`)
  })

  it('throws when received is not an Outcome', () => {
    expect(failure(() => assertion({ text: 'hi' }).toCostUnder(0.05))).toMatchInlineSnapshot(`
      "expect(outcome).toCostUnder()

      [fluxlab] toCostUnder expects the Outcome returned by \`await s.run(...)\`.
      Received: Object {
        "text": "hi",
      }"
    `)
  })

  it('throws when the budget is not a positive number of dollars', () => {
    for (const usd of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '0.05', undefined])
      expect(failure(() => assertion(agentRun()).toCostUnder(usd))).toContain('[fluxlab] toCostUnder expects a budget in USD greater than 0')
  })
})

describe('.not.toCostUnder', () => {
  it('passes when the recorded run costs at least the budget', () => {
    assertion(agentRun(), true).toCostUnder(0.004)
    assertion(cheapRun(), true).toCostUnder(0.001, mine)
  })

  it('fails when the run costs less than the budget', () => {
    expect(failure(() => assertion(agentRun(), true).toCostUnder(0.05))).toMatchInlineSnapshot(`
      "expect(outcome).not.toCostUnder(0.05)

      Expected: at least $0.0500
      Received: $0.00493

      Recorded usage at list prices as of 2026-10-24:
        • gemini-2.5-flash · 1 call · in 1,200 · out 1,000 (reasoning 700) → $0.00286
        • claude-haiku-4-5-20251001 · 1 call · in 3,000 (cache read 2,000, cache write 500) · out 100 → $0.00183
        • gpt-4o-mini-2024-07-18 · 1 call · in 1,000 (cache read 400) · out 200 → $0.000240"
    `)
  })

  it('fails with a cost just under the budget printed apart from it', () => {
    // 49,996 tokens at $1 per 1M = $0.049996, which four decimals would round onto $0.0500.
    const run = outcome([model('openai-chat', 'my-model', { input: 49_996 })])
    expect(failure(() => assertion(run, true).toCostUnder(0.05, mine))).toContain('Expected: at least $0.0500\nReceived: $0.049996\n')
  })
})

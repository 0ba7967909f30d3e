import { describe, expect, it } from 'vitest'
import { type FluxError, isFluxError } from '../errors.js'
import { anthropicCodec } from '../providers/anthropic/index.js'
import { geminiCodec } from '../providers/gemini/index.js'
import { openaiChatCodec } from '../providers/openai-chat/index.js'
import type { NormalizedUsage } from '../providers/types.js'
import { costBreakdown, costOf } from './cost.js'
import { PRICES, PRICES_AS_OF } from './table.js'

const usage = (u: Partial<NormalizedUsage>): NormalizedUsage => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, ...u })

function thrown(fn: () => unknown): FluxError {
  try {
    fn()
  } catch (e) {
    if (isFluxError(e)) return e
    throw e
  }
  throw new Error('expected a FluxError')
}

describe('costOf', () => {
  it('prices OpenAI cached tokens as part of the prompt', () => {
    // gpt-4o-mini: $0.15 input, $0.075 cached input, $0.60 output per 1M.
    // 1000 prompt tokens of which 400 cached, 200 output:
    // 600 × 0.15 + 400 × 0.075 + 200 × 0.60 = 90 + 30 + 120 = 240 per 1M → $0.00024
    expect(costOf(usage({ input: 1000, cacheRead: 400, output: 200 }), PRICES['gpt-4o-mini'])).toBeCloseTo(0.00024, 12)
  })

  it('prices Anthropic cache reads and cache writes at their own rates', () => {
    // claude-sonnet-4-5: $3 input, $0.30 cache hit, $3.75 cache write, $15 output per 1M.
    // Wire: input_tokens 100, cache_read 5000, cache_creation 2000 → normalized input 7100.
    // 100 × 3 + 5000 × 0.30 + 2000 × 3.75 + 300 × 15 = 300 + 1500 + 7500 + 4500 = 13800 per 1M → $0.0138
    const u = usage({ input: 7100, cacheRead: 5000, cacheWrite: 2000, output: 300 })
    expect(costOf(u, PRICES['claude-sonnet-4-5'])).toBeCloseTo(0.0138, 12)
  })

  it('bills Gemini thinking tokens once, as output', () => {
    // gemini-2.5-flash: $0.30 input, $0.03 cached, $2.50 output per 1M.
    // promptTokenCount 1200 (1000 cached), candidates 300 + thoughts 700 → output 1000, reasoning 700.
    // 200 × 0.30 + 1000 × 0.03 + 1000 × 2.50 = 60 + 30 + 2500 = 2590 per 1M → $0.00259
    const u = usage({ input: 1200, cacheRead: 1000, output: 1000, reasoning: 700 })
    expect(costOf(u, PRICES['gemini-2.5-flash'])).toBeCloseTo(0.00259, 12)
  })

  it('charges cache tokens at the input rate when the price has no cache rates', () => {
    expect(costOf(usage({ input: 1000, cacheRead: 300, cacheWrite: 200, output: 0 }), { input: 1, output: 2 })).toBeCloseTo(0.001, 12)
  })

  it('switches a whole call to long-context rates past the threshold', () => {
    const pro = PRICES['gemini-2.5-pro']
    // At 200,000 prompt tokens the base rate holds: 200,000 × 1.25 per 1M = $0.25.
    expect(costOf(usage({ input: 200_000 }), pro)).toBeCloseTo(0.25, 12)
    // Past it, every token moves: 250,000 × 2.50 + 1,000 × 15 = $0.64.
    expect(costOf(usage({ input: 250_000, output: 1000 }), pro)).toBeCloseTo(0.64, 12)
  })
})

describe('costBreakdown', () => {
  it('prices usage parsed from each provider wire format', () => {
    const openai = openaiChatCodec.parseResponse(
      JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        model: 'gpt-4o-mini-2024-07-18',
        choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200, prompt_tokens_details: { cached_tokens: 400 } },
      }),
      'application/json',
      200,
      new URL('https://api.openai.com/v1/chat/completions'),
    )
    const anthropic = anthropicCodec.parseResponse(
      JSON.stringify({
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [{ type: 'text', text: 'hi' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 100, cache_read_input_tokens: 5000, cache_creation_input_tokens: 2000, output_tokens: 300 },
      }),
      'application/json',
      200,
      new URL('https://api.anthropic.com/v1/messages'),
    )
    const gemini = geminiCodec.parseResponse(
      JSON.stringify({
        candidates: [{ content: { role: 'model', parts: [{ text: 'hi' }] }, finishReason: 'STOP' }],
        usageMetadata: { promptTokenCount: 1200, cachedContentTokenCount: 1000, candidatesTokenCount: 300, thoughtsTokenCount: 700, totalTokenCount: 2200 },
        modelVersion: 'gemini-2.5-flash',
      }),
      'application/json',
      200,
      new URL('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent'),
    )
    const b = costBreakdown([openai, anthropic, gemini])
    expect(b.byModel['gpt-4o-mini-2024-07-18'].cost).toBeCloseTo(0.00024, 12)
    expect(b.byModel['claude-sonnet-4-5-20250929'].cost).toBeCloseTo(0.0138, 12)
    expect(b.byModel['gemini-2.5-flash'].cost).toBeCloseTo(0.00259, 12)
    expect(b.total).toBeCloseTo(0.00024 + 0.0138 + 0.00259, 12)
  })

  it('groups calls by recorded model id and sums their usage', () => {
    const b = costBreakdown([
      { model: 'gpt-4.1', usage: usage({ input: 1000, output: 100 }) },
      { model: 'gpt-4.1', usage: usage({ input: 2000, output: 300, reasoning: 50 }) },
      { model: 'gpt-4.1-mini', usage: usage({ input: 3000, output: 400 }) },
    ])
    expect(b).toEqual({
      total: expect.any(Number),
      currency: 'USD',
      pricesAsOf: PRICES_AS_OF,
      byModel: {
        'gpt-4.1': { usage: usage({ input: 3000, output: 400, reasoning: 50 }), price: PRICES['gpt-4.1'], cost: expect.any(Number), calls: 2 },
        'gpt-4.1-mini': { usage: usage({ input: 3000, output: 400 }), price: PRICES['gpt-4.1-mini'], cost: expect.any(Number), calls: 1 },
      },
    })
    // gpt-4.1 ($2 / $8): 3000 × 2 + 400 × 8 = 9200 per 1M; gpt-4.1-mini ($0.40 / $1.60): 3000 × 0.4 + 400 × 1.6 = 1840 per 1M.
    expect(b.byModel['gpt-4.1'].cost).toBeCloseTo(0.0092, 12)
    expect(b.byModel['gpt-4.1-mini'].cost).toBeCloseTo(0.00184, 12)
    expect(b.total).toBeCloseTo(0.01104, 12)
  })

  it('lets pricing entries win over the built-in table', () => {
    const b = costBreakdown([{ model: 'gpt-4o-mini-2024-07-18', usage: usage({ input: 1_000_000, output: 1_000_000 }) }], {
      'gpt-4o-mini': { input: 1, output: 2 },
    })
    expect(b.total).toBeCloseTo(3, 12)
  })

  it('throws a FluxError naming an unknown model and how to price it, never $0', () => {
    const e = thrown(() =>
      costBreakdown(
        [
          { model: 'gpt-4o-mini', usage: usage({ input: 10, output: 10 }), step: 'model#1' },
          { model: 'claude-sonet-4-5', usage: usage({ input: 10, output: 10 }), step: 'model#2' },
          { model: 'claude-sonet-4-5', usage: usage({ input: 10, output: 10 }), step: 'model#3' },
        ],
        { 'my-model': { input: 1, output: 1 } },
      ),
    )
    expect(e.code).toBe('FLUX_BAD_CONFIG')
    expect(e.message).toMatchInlineSnapshot(`
      "[fluxlab] FLUX_BAD_CONFIG: Failed to price model "claude-sonet-4-5": it is not in the built-in price table (list prices as of 2026-10-24) nor in the pricing option, and fluxlab never counts it as $0. Pass its price in USD per million tokens: expect(out).toCostUnder(0.05, { pricing: { 'claude-sonet-4-5': { input: 0.15, output: 0.6 } } }), or in the pricing option of fluxlab().
        • calls: model#2, model#3
        • closest priced model: claude-sonnet-4-5"
    `)
  })

  it('throws for a call that names no model unless the * key prices it', () => {
    const calls = [{ usage: usage({ input: 10, output: 10 }), step: 'model#1' }]
    expect(thrown(() => costBreakdown(calls)).message).toMatchInlineSnapshot(`
      "[fluxlab] FLUX_BAD_CONFIG: Failed to price model#1: the recorded call names no model, so no price applies, and fluxlab never counts a call as $0. Pass a price in USD per million tokens under the '*' key: expect(out).toCostUnder(0.05, { pricing: { '*': { input: 0.15, output: 0.6 } } }), or in the pricing option of fluxlab().
        • call: model#1"
    `)
    const b = costBreakdown(calls, { '*': { input: 1, output: 1 } })
    expect(b.byModel.unknown.calls).toBe(1)
    expect(b.total).toBeCloseTo(0.00002, 12)
  })

  it('needs no price for a call that used no tokens', () => {
    const b = costBreakdown([{ model: 'claude-sonet-4-5', usage: usage({}), step: 'model#1' }])
    expect(b).toEqual({ total: 0, currency: 'USD', byModel: {}, pricesAsOf: PRICES_AS_OF })
  })

  it('rejects pricing entries that are not prices', () => {
    const calls = [{ model: 'gpt-4o', usage: usage({ input: 1 }) }]
    const bad = (pricing: unknown) => thrown(() => costBreakdown(calls, pricing as never)).message
    expect(bad({ 'my-model': { input: '0.15', output: 0.6 } })).toMatchInlineSnapshot(
      `"[fluxlab] FLUX_BAD_CONFIG: Failed to read the price of "my-model": input must be a number of USD per million tokens (0 or more), got "0.15". Pass USD per million tokens, as in { pricing: { 'my-model': { input: 0.15, output: 0.6, cacheRead: 0.075 } } } (cacheRead, cacheWrite and longContext are optional)."`,
    )
    expect(bad({ 'my-model': { input: 0.15 } })).toContain('output must be a number of USD per million tokens (0 or more), got undefined')
    expect(bad({ 'my-model': { input: 0.15, output: 0.6, cacheRead: -1 } })).toContain('cacheRead must be a number')
    expect(bad({ 'my-model': { input: 1, output: 1, longContext: { threshold: 0, input: 1, output: 1 } } })).toContain('longContext.threshold')
    expect(bad({ 'my-model': { input: 1, output: 1, longContext: { threshold: 10, input: 1 } } })).toContain('longContext.output must be')
    expect(bad([])).toContain('expected an object of prices by model id, got []')
  })
})

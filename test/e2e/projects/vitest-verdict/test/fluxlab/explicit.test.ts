// Written for fluxlab, after adopting it (not part of the suite as it was): each agent run is an
// explicit scenario. This directory is outside the `include` of whole-suite mode, so its tests are
// not whole-suite scenarios: only what `scenario(name).run()` runs is recorded and replayed.
import Anthropic from '@anthropic-ai/sdk'
import { scenario } from 'fluxlab'
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'

// Built when the file loads: it throws there without OPENAI_API_KEY.
const openai = new OpenAI({ maxRetries: 0 })
const anthropic = new Anthropic({ maxRetries: 0 })

describe.skipIf(!process.env.OPENAI_API_KEY)('explicit openai', () => {
  it('replays Portugal from its own fixture', async () => {
    const s = await scenario('explicit-openai-portugal')
    const out = await s.run(async () => (await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'What is the capital of Portugal?' }] })).choices[0].message.content)
    expect(out.result).toBe('The capital of Portugal is Lisbon.')
    expect(out).toReplayFaithfully()
  })
})

describe.skipIf(!process.env.FIREWORKS_API_KEY)('explicit fireworks', () => {
  it('replays Germany from its own fixture', async () => {
    const fireworks = new OpenAI({ apiKey: process.env.FIREWORKS_API_KEY, baseURL: `${process.env.FIREWORKS_BASE_URL ?? 'https://api.fireworks.ai'}/inference/v1`, maxRetries: 0 })
    const s = await scenario('explicit-fireworks-germany')
    const out = await s.run(async () => (await fireworks.chat.completions.create({ model: 'accounts/fireworks/models/llama-v3p1-8b-instruct', messages: [{ role: 'user', content: 'What is the capital of Germany?' }] })).choices[0].message.content)
    expect(out.result).toContain('Berlin')
  })
})

describe.skipIf(!process.env.ANTHROPIC_API_KEY)('explicit anthropic', () => {
  it('replays Kenya from its own fixture', async () => {
    const s = await scenario('explicit-anthropic-kenya')
    const out = await s.run(async () => (await anthropic.messages.create({ model: 'claude-sonnet-4-0', max_tokens: 64, messages: [{ role: 'user', content: 'What is the capital of Kenya?' }] })).content)
    expect(out.result[0]).toMatchObject({ type: 'text', text: 'The capital of Kenya is Nairobi.' })
  })
})

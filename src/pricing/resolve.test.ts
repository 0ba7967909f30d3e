import { describe, expect, it } from 'vitest'
import { candidates, closestPriced, priceFor } from './resolve.js'
import { PRICES } from './table.js'

describe('priceFor', () => {
  it('finds an exact id', () => {
    expect(priceFor('gpt-4o-mini')).toBe(PRICES['gpt-4o-mini'])
    expect(priceFor('claude-sonnet-4-6')).toBe(PRICES['claude-sonnet-4-6'])
    expect(priceFor('gemini-3-pro-preview')).toBe(PRICES['gemini-3-pro-preview'])
  })

  it('prices dated snapshots as their model', () => {
    expect(priceFor('gpt-4o-mini-2024-07-18')).toBe(PRICES['gpt-4o-mini'])
    expect(priceFor('gpt-4.1-nano-2025-04-14')).toBe(PRICES['gpt-4.1-nano'])
    expect(priceFor('gpt-5.5-2026-04-23')).toBe(PRICES['gpt-5.5'])
    expect(priceFor('claude-haiku-4-5-20251001')).toBe(PRICES['claude-haiku-4-5'])
    expect(priceFor('claude-sonnet-4-20250514')).toBe(PRICES['claude-sonnet-4'])
    expect(priceFor('claude-3-5-haiku-20241022')).toBe(PRICES['claude-3-5-haiku'])
    expect(priceFor('claude-sonnet-4-5@20250929')).toBe(PRICES['claude-sonnet-4-5'])
    expect(priceFor('gemini-2.0-flash-001')).toBe(PRICES['gemini-2.0-flash'])
  })

  it('prices Claude on Bedrock (model ids, inference profiles, ARNs) as Claude', () => {
    expect(priceFor('anthropic.claude-3-5-haiku-20241022-v1:0')).toBe(PRICES['claude-3-5-haiku'])
    expect(priceFor('us.anthropic.claude-haiku-4-5-20251001-v1:0')).toBe(PRICES['claude-haiku-4-5'])
    expect(priceFor('global.anthropic.claude-sonnet-4-20250514-v1:0')).toBe(PRICES['claude-sonnet-4'])
    expect(priceFor('arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0')).toBe(PRICES['claude-3-haiku'])
    expect(priceFor('amazon.nova-micro-v1:0')).toBeUndefined()
  })

  it('keeps a snapshot that has its own price', () => {
    expect(priceFor('gpt-4o-2024-05-13')).toEqual({ input: 5, output: 15 })
    expect(priceFor('gpt-4o-2024-08-06')).toBe(PRICES['gpt-4o'])
  })

  it('reads Claude versions with dots or dashes', () => {
    expect(priceFor('claude-haiku-4.5')).toBe(PRICES['claude-haiku-4-5'])
    expect(priceFor('claude-3.5-haiku')).toBe(PRICES['claude-3-5-haiku'])
    const mine = { input: 1, output: 2 }
    expect(priceFor('claude-haiku-4-5-20251001', { 'claude-haiku-4.5': mine })).toBe(mine)
  })

  it('drops provider prefixes, -latest and letter case', () => {
    expect(priceFor('openai/gpt-4.1-mini')).toBe(PRICES['gpt-4.1-mini'])
    expect(priceFor('models/gemini-2.5-flash')).toBe(PRICES['gemini-2.5-flash'])
    expect(priceFor('anthropic/claude-3-5-haiku-latest')).toBe(PRICES['claude-3-5-haiku'])
    expect(priceFor('projects/p/locations/global/publishers/google/models/gemini-2.5-pro')).toBe(PRICES['gemini-2.5-pro'])
    expect(priceFor('GPT-4o')).toBe(PRICES['gpt-4o'])
    expect(priceFor('chatgpt-4o-latest')).toEqual({ input: 5, output: 15 })
  })

  it('prices gpt-4.1 and gpt-4.1-mini differently', () => {
    expect(priceFor('gpt-4.1')).toEqual({ input: 2, output: 8, cacheRead: 0.5 })
    expect(priceFor('gpt-4.1-mini')).toEqual({ input: 0.4, output: 1.6, cacheRead: 0.1 })
    expect(priceFor('gpt-4.1-mini-2025-04-14')).toBe(PRICES['gpt-4.1-mini'])
  })

  it('never borrows a sibling model price', () => {
    for (const id of [
      'gpt-4.1-micro',
      'gpt-4o-realtime-preview',
      'o4-mini-deep-research',
      'ft:gpt-4o-mini-2024-07-18:acme::abc123',
      'gemini-2.5-flash-lite-preview-06-17',
      'gemini-flash-latest',
      'claude-sonet-4-5',
      'my-model',
    ])
      expect(priceFor(id), id).toBeUndefined()
  })

  it('lets overrides win over the built-in table', () => {
    const mine = { input: 1, output: 2 }
    expect(priceFor('gpt-4o-mini', { 'gpt-4o-mini': mine })).toBe(mine)
    expect(priceFor('gpt-4o-mini-2024-07-18', { 'gpt-4o-mini': mine })).toBe(mine)
    expect(priceFor('my-model', { 'my-model': mine })).toBe(mine)
  })

  it('uses the * key only for ids nothing else prices', () => {
    const any = { input: 9, output: 9 }
    expect(priceFor('gpt-4o', { '*': any })).toBe(PRICES['gpt-4o'])
    expect(priceFor('my-model', { '*': any })).toBe(any)
  })
})

describe('candidates', () => {
  it('lists the id, then each recognized suffix stripped', () => {
    expect(candidates('anthropic/claude-3-5-haiku-latest')).toEqual(['claude-3-5-haiku-latest', 'claude-3-5-haiku'])
    expect(candidates('gpt-4o-mini-2024-07-18')).toEqual(['gpt-4o-mini-2024-07-18', 'gpt-4o-mini'])
    expect(candidates('gpt-4.1-mini')).toEqual(['gpt-4.1-mini'])
  })
})

describe('closestPriced', () => {
  it('suggests the nearest priced id for a typo', () => {
    expect(closestPriced('claude-sonet-4-5')).toBe('claude-sonnet-4-5')
    expect(closestPriced('gpt4o-mini')).toBe('gpt-4o-mini')
    expect(closestPriced('my-model', { 'my-modle': { input: 1, output: 1 } })).toBe('my-modle')
  })

  it('suggests nothing for an unrelated id', () => {
    expect(closestPriced('llama-3.3-70b-instruct')).toBeUndefined()
  })
})

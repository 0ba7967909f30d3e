import { describe, expect, it } from 'vitest'
import { judgeKey, textDigest, type CanonicalJudgeRequest } from './key.js'

const base: CanonicalJudgeRequest = { templateVersion: 1, model: 'openai/gpt-4.1-mini', criterion: 'cites the policy', text: 'Refunds within 30 days.' }

describe('judgeKey', () => {
  it('is a stable sha256 of the canonical request, whatever the key order', () => {
    const k = judgeKey(base)
    expect(k).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(judgeKey({ text: base.text, criterion: base.criterion, model: base.model, templateVersion: 1 })).toBe(k)
  })

  it('changes with each part of the request', () => {
    const keys = [
      base,
      { ...base, criterion: 'cites the policy.' },
      { ...base, text: 'Refunds within 14 days.' },
      { ...base, model: 'openai/gpt-4.1' },
      { ...base, instructions: 'Be strict.' },
      { ...base, threshold: 0.7 },
      { ...base, templateVersion: 2 },
    ].map(judgeKey)
    expect(new Set(keys).size).toBe(keys.length)
  })
})

describe('textDigest', () => {
  it('is 16 hex digits of the sha256 of the text', () => {
    expect(textDigest('Paris')).toMatch(/^sha256:[0-9a-f]{16}$/)
    expect(textDigest('Paris')).not.toBe(textDigest('paris'))
  })
})

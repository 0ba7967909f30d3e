import { describe, expect, it, vi } from 'vitest'
import { OpenAIProvider } from '../provider'

describe('OpenAIProvider', () => {
  it('should answer from a fake fetch', async () => {
    const fetch = vi.fn(async () => Response.json({ choices: [{ message: { content: 'Paris' } }] }))
    expect(await new OpenAIProvider({ apiKey: 'test-api-key', fetch }).chat('What is the capital of France?')).toBe('Paris')
    expect(fetch).toHaveBeenCalledTimes(1)
  })

  it('should read the status page over fetch', async () => {
    const res = await fetch(`${process.env.STATUS_URL}/status`)
    expect(await res.json()).toEqual({ ok: true })
  })
})

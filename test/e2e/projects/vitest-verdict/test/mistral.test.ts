import { describe, expect, it } from 'vitest'

const hasKey = Boolean(process.env.MISTRAL_API_KEY)
const BASE = process.env.MISTRAL_BASE_URL ?? 'https://api.mistral.ai'

describe.runIf(hasKey)('mistral over fetch', () => {
  it('answers Norway', async () => {
    const res = await fetch(`${BASE}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${process.env.MISTRAL_API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mistral-small-latest', messages: [{ role: 'user', content: 'What is the capital of Norway?' }] }),
    })
    expect(res.status).toBe(200)
    expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0].message.content).toContain('Oslo')
  })
})

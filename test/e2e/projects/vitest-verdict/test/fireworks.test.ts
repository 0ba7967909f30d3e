import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'

// Fireworks speaks the OpenAI API; the client is built at import, so this file needs its key to load.
const fireworks = new OpenAI({ apiKey: process.env.FIREWORKS_API_KEY, baseURL: `${process.env.FIREWORKS_BASE_URL ?? 'https://api.fireworks.ai'}/inference/v1` })
const MODEL = 'accounts/fireworks/models/llama-v3p1-8b-instruct'

;(process.env.FIREWORKS_API_KEY ? describe : describe.skip)('fireworks', () => {
  it('answers Italy', async () => {
    const res = await fireworks.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'What is the capital of Italy?' }] })
    expect(res.choices[0].message.content).toBe('The capital of Italy is Rome.')
  })

  it('streams Spain', { retry: 3 }, async () => {
    const stream = await fireworks.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'What is the capital of Spain?' }], stream: true })
    let text = ''
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? ''
    expect(text).toContain('Madrid')
  })
})

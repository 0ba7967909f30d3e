import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'

describe.skipIf(!process.env.GROQ_API_KEY)('groq', () => {
  const groq = new OpenAI({ apiKey: process.env.GROQ_API_KEY ?? '', baseURL: `${process.env.GROQ_BASE_URL ?? 'https://api.groq.com'}/openai/v1`, maxRetries: 0 })

  it('answers Egypt', async () => {
    const res = await groq.chat.completions.create({ model: 'llama-3.3-70b-versatile', messages: [{ role: 'user', content: 'What is the capital of Egypt?' }] })
    expect(res.choices[0].message.content).toContain('Cairo')
  })
})

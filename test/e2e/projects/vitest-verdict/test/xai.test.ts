import { createOpenAI } from '@ai-sdk/openai'
import { streamText } from 'ai'
import { describe, expect, it } from 'vitest'

const xai = createOpenAI({ apiKey: process.env.XAI_API_KEY, baseURL: `${process.env.XAI_BASE_URL ?? 'https://api.x.ai'}/v1` })
const hasKey = !!process.env.XAI_API_KEY

describe.skipIf(!hasKey)('xai', () => {
  it('streams Greece', async () => {
    const result = streamText({ model: xai.chat('grok-3-mini'), prompt: 'What is the capital of Greece?', maxRetries: 0 })
    expect(await result.text).toContain('Athens')
  })
})

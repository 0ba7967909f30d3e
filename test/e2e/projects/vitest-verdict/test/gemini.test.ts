import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { generateText, streamText } from 'ai'
import { describe, expect, it } from 'vitest'

const google = createGoogleGenerativeAI({ apiKey: process.env.GEMINI_API_KEY, baseURL: `${process.env.GEMINI_BASE_URL ?? 'https://generativelanguage.googleapis.com'}/v1beta` })

describe('gemini', () => {
  it.skipIf(!process.env.GEMINI_API_KEY)('answers Canada', async () => {
    const { text } = await generateText({ model: google('gemini-2.5-flash'), prompt: 'What is the capital of Canada?', maxRetries: 0 })
    expect(text).toContain('Ottawa')
  })

  it.skipIf(!process.env.GEMINI_API_KEY)('streams Chile', async () => {
    const result = streamText({ model: google('gemini-2.5-flash'), prompt: 'What is the capital of Chile?', maxRetries: 0 })
    expect(await result.text).toContain('Santiago')
  })
})

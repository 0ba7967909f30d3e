const { createAnthropic } = require('@ai-sdk/anthropic')
const { generateText } = require('ai')

const anthropic = createAnthropic({ apiKey: process.env.ANTHROPIC_API_KEY, baseURL: `${process.env.ANTHROPIC_BASE_URL || 'https://api.anthropic.com'}/v1` })
const hasKey = !!process.env.ANTHROPIC_API_KEY
const itIfKey = hasKey ? it : it.skip

describe('anthropic with the AI SDK', () => {
  itIfKey('answers Kenya', async () => {
    const { text } = await generateText({ model: anthropic('claude-sonnet-4-0'), prompt: 'What is the capital of Kenya?', maxRetries: 0 })
    expect(text).toContain('Nairobi')
  })

  itIfKey('answers Peru', async () => {
    const { text } = await generateText({ model: anthropic('claude-sonnet-4-0'), prompt: 'What is the capital of Peru?', maxRetries: 0 })
    expect(text).toContain('Lima')
  })
})

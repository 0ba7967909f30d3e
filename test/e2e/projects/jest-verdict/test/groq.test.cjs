const { createOpenAI } = require('@ai-sdk/openai')
const { streamText } = require('ai')

const groq = createOpenAI({ apiKey: process.env.GROQ_API_KEY, baseURL: `${process.env.GROQ_BASE_URL || 'https://api.groq.com'}/openai/v1` })

;(process.env.GROQ_API_KEY ? describe : describe.skip)('groq', () => {
  it('streams Egypt', async () => {
    const result = streamText({ model: groq.chat('llama-3.3-70b-versatile'), prompt: 'What is the capital of Egypt?', maxRetries: 0 })
    expect(await result.text).toContain('Cairo')
  })
})

const { OpenAI } = require('openai')

const fireworks = new OpenAI({ apiKey: process.env.FIREWORKS_API_KEY || 'unset', baseURL: `${process.env.FIREWORKS_BASE_URL || 'https://api.fireworks.ai'}/inference/v1`, maxRetries: 0 })

;(process.env.FIREWORKS_API_KEY ? describe : describe.skip)('fireworks', () => {
  it('answers Spain', async () => {
    const res = await fireworks.chat.completions.create({ model: 'accounts/fireworks/models/llama-v3p1-8b-instruct', messages: [{ role: 'user', content: 'What is the capital of Spain?' }] })
    expect(res.choices[0].message.content).toContain('Madrid')
  })
})

const { OpenAI } = require('openai')

const hasKey = !!process.env.XAI_API_KEY

;(hasKey ? describe : describe.skip)('xai', () => {
  let xai
  beforeAll(() => {
    xai = new OpenAI({ apiKey: process.env.XAI_API_KEY, baseURL: `${process.env.XAI_BASE_URL || 'https://api.x.ai'}/v1`, maxRetries: 0 })
  })

  it('answers Greece', async () => {
    const res = await xai.chat.completions.create({ model: 'grok-3-mini', messages: [{ role: 'user', content: 'What is the capital of Greece?' }] })
    expect(res.choices[0].message.content).toContain('Athens')
  })
})

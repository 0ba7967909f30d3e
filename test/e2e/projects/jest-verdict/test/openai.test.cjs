const { OpenAI } = require('openai')

const openai = process.env.OPENAI_API_KEY ? new OpenAI({ maxRetries: 0 }) : undefined

;(process.env.OPENAI_API_KEY ? describe : describe.skip)('openai', () => {
  it('answers Italy', async () => {
    const res = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'What is the capital of Italy?' }] })
    expect(res.choices[0].message.content).toContain('Rome')
  })
})

const { OpenAI } = require('openai')
const { ask } = require('../src/gateway.cjs')

const hasKey = !!process.env.MY_GATEWAY_TOKEN
const describeIfKey = hasKey ? describe : describe.skip

describeIfKey('gateway agent', () => {
  jest.retryTimes(3)

  // A warm-up call outside every test: whole-suite mode records it into the file's own scenario.
  beforeAll(async () => {
    expect(await ask('What is the capital of Spain?')).toContain('Madrid')
  })

  it('lists the models of the gateway, and nothing else', async () => {
    const res = await fetch(`${process.env.MY_GATEWAY_URL}/v1/models`, { headers: { authorization: `Bearer ${process.env.MY_GATEWAY_TOKEN}` } })
    expect((await res.json()).data.map((m) => m.id)).toContain('gpt-4o-mini')
  })

  it('answers France', async () => {
    expect(await ask('What is the capital of France?')).toBe('The capital of France is Paris.')
  })

  it('answers Japan with a client built for the call', async () => {
    const c = new OpenAI({ apiKey: process.env.MY_GATEWAY_TOKEN, baseURL: `${process.env.MY_GATEWAY_URL}/v1`, maxRetries: 0 })
    const res = await c.chat.completions.create({ model: 'default', messages: [{ role: 'user', content: 'What is the capital of Japan?' }] })
    expect(res.choices[0].message.content).toContain('Tokyo')
  })
})

test('counts words without any model call', () => {
  expect('one two three'.split(' ')).toHaveLength(3)
})

test.todo('answers in the language of the question')

import OpenAI from 'openai'
import { beforeAll, describe, expect, it, test } from 'vitest'
import { ask } from '../src/agent'

const hasKey = !!process.env.OPENAI_API_KEY

describe.skipIf(!hasKey)('openai agent', () => {
  // A warm-up call outside every test: whole-suite mode records it into the file's own scenario.
  beforeAll(async () => {
    expect(await ask('What is the capital of Spain?')).toContain('Madrid')
  })

  it('lists the models it can use, and nothing else', async () => {
    const c = new OpenAI({ apiKey: process.env.OPENAI_API_KEY, maxRetries: 0 })
    const ids: string[] = []
    for await (const m of c.models.list()) ids.push(m.id)
    expect(ids).toContain('gpt-4o-mini')
  })

  it('answers France', { retry: 3 }, async () => {
    expect(await ask('What is the capital of France?')).toBe('The capital of France is Paris.')
  })

  it('answers Japan with a client built for the call', async () => {
    const c = new OpenAI({ apiKey: process.env.OPENAI_API_KEY, maxRetries: 0 })
    const res = await c.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'What is the capital of Japan?' }] })
    expect(res.choices[0].message.content).toContain('Tokyo')
  })
})

test('counts words without any model call', () => {
  expect('one two three'.split(' ')).toHaveLength(3)
})

test.todo('answers in the language of the question')

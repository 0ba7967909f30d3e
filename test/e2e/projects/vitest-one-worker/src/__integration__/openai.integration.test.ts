import { beforeAll, describe, expect, it } from 'vitest'
import { OpenAIProvider } from '../provider'

describe.skipIf(!process.env.OPENAI_API_KEY)('OpenAI Integration', () => {
  let provider: OpenAIProvider

  beforeAll(() => {
    provider = new OpenAIProvider({ apiKey: process.env.OPENAI_API_KEY! })
  })

  it('should complete a simple chat', async () => {
    expect(await provider.chat('What is the capital of France?')).toContain('Paris')
  })

  it('should stream a chat completion', async () => {
    expect(await provider.stream('What is the capital of Japan?')).toContain('Tokyo')
  })
})

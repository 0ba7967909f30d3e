import Anthropic from '@anthropic-ai/sdk'
import { describe, expect, it } from 'vitest'

// Reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL when the file loads.
const anthropic = new Anthropic({ maxRetries: 0 })

describe.skipIf(!process.env.ANTHROPIC_API_KEY)('anthropic', () => {
  it('answers Kenya', async () => {
    const msg = await anthropic.messages.create({ model: 'claude-sonnet-4-0', max_tokens: 64, messages: [{ role: 'user', content: 'What is the capital of Kenya?' }] })
    expect(msg.content[0]).toMatchObject({ type: 'text', text: 'The capital of Kenya is Nairobi.' })
  })

  it('streams Peru', async () => {
    const stream = anthropic.messages.stream({ model: 'claude-sonnet-4-0', max_tokens: 64, messages: [{ role: 'user', content: 'What is the capital of Peru?' }] })
    expect(await stream.finalText()).toContain('Lima')
  })
})

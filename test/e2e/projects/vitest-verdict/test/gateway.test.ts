import { describe, expect, it } from 'vitest'

// The company's LLM gateway: OpenAI-shaped, its own token sent as a bearer token.
const GATEWAY = process.env.MY_GATEWAY_URL ?? 'https://llm-gateway.internal.example'

;(process.env.MY_GATEWAY_TOKEN ? describe : describe.skip)('llm gateway', () => {
  it('streams Poland', async () => {
    const res = await fetch(`${GATEWAY}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${process.env.MY_GATEWAY_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'default', stream: true, messages: [{ role: 'user', content: 'What is the capital of Poland?' }] }),
    })
    let text = ''
    for (const line of (await res.text()).split('\n'))
      if (line.startsWith('data: {')) text += (JSON.parse(line.slice(6)) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta.content ?? ''
    expect(text).toContain('Warsaw')
  })
})

const BASE = process.env.MISTRAL_BASE_URL || 'https://api.mistral.ai'
const itWithKey = process.env.MISTRAL_API_KEY ? it : it.skip

describe('mistral over fetch', () => {
  itWithKey('answers Norway', async () => {
    const res = await fetch(`${BASE}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${process.env.MISTRAL_API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mistral-small-latest', messages: [{ role: 'user', content: 'What is the capital of Norway?' }] }),
    })
    expect((await res.json()).choices[0].message.content).toContain('Oslo')
  })
})

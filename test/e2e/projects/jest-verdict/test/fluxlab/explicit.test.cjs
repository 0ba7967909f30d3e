// Written for fluxlab, after adopting it (not part of the suite as it was): each agent run is an
// explicit scenario, inside a test that whole-suite mode also covers (its own scenario records nothing
// here: every call of the test is the explicit scenario's).
const { scenario } = require('fluxlab')
const { OpenAI } = require('openai')
const { ask } = require('../../src/gateway.cjs')

;(process.env.MY_GATEWAY_TOKEN ? describe : describe.skip)('explicit gateway', () => {
  it('replays Portugal from its own fixture', async () => {
    const s = await scenario('explicit-gateway-portugal')
    const out = await s.run(() => ask('What is the capital of Portugal?'))
    expect(out.result).toBe('The capital of Portugal is Lisbon.')
    expect(out).toReplayFaithfully()
  })
})

;(process.env.GEMINI_API_KEY ? describe : describe.skip)('explicit gemini', () => {
  it('replays Germany from its own fixture', async () => {
    const s = await scenario('explicit-gemini-germany')
    const out = await s.run(async () => {
      const url = `${process.env.GEMINI_BASE_URL}/v1beta/models/gemini-2.5-flash:generateContent?key=${process.env.GEMINI_API_KEY}`
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'What is the capital of Germany?' }] }] }) })
      return (await res.json()).candidates[0].content.parts[0].text
    })
    expect(out.result).toContain('Berlin')
  })
})

;(process.env.OPENAI_API_KEY ? describe : describe.skip)('explicit openai', () => {
  it('replays Kenya from its own fixture', async () => {
    const s = await scenario('explicit-openai-kenya')
    const out = await s.run(async () => (await new OpenAI({ maxRetries: 0 }).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'What is the capital of Kenya?' }] })).choices[0].message.content)
    expect(out.result).toContain('Nairobi')
  })
})

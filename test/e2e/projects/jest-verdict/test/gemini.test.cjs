// Gemini over its REST API, the key in the query string as Google's own samples send it.
const BASE = `${process.env.GEMINI_BASE_URL || 'https://generativelanguage.googleapis.com'}/v1beta/models/gemini-2.5-flash`
const body = (question) => JSON.stringify({ contents: [{ role: 'user', parts: [{ text: question }] }] })
const textOf = (r) => r.candidates[0].content.parts.map((p) => p.text).join('')

;(process.env.GEMINI_API_KEY ? describe : describe.skip)('gemini over REST', () => {
  it('answers Canada', async () => {
    const res = await fetch(`${BASE}:generateContent?key=${process.env.GEMINI_API_KEY}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body('What is the capital of Canada?') })
    expect(res.status).toBe(200)
    expect(textOf(await res.json())).toBe('The capital of Canada is Ottawa.')
  })

  it('streams Chile', async () => {
    const res = await fetch(`${BASE}:streamGenerateContent?alt=sse&key=${process.env.GEMINI_API_KEY}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body('What is the capital of Chile?') })
    let text = ''
    for (const line of (await res.text()).split(/\r?\n/)) if (line.startsWith('data: ')) text += textOf(JSON.parse(line.slice(6)))
    expect(text).toContain('Santiago')
  })
})

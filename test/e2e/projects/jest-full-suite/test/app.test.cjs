const { randomUUID } = require('node:crypto')
const { tmpdir } = require('node:os')
const { join } = require('node:path')
const { http, HttpResponse } = require('msw')
const { setupServer } = require('msw/node')
const { OpenAI } = require('openai')
const { OPENAI_API_KEY, PROVIDER_URL } = require('../src/env.cjs')
const { ask, getCapital } = require('../src/agent.cjs')
const { capitalFromApp, GEO_API } = require('../src/geo-app.cjs')
const { askRaw } = require('../src/raw-agent.cjs')

// The app's own geography API, mocked for the whole file; anything else goes through.
const CAPITALS = { Italy: 'Rome', Japan: 'Tokyo' }
const geo = setupServer(http.get(GEO_API, ({ request }) => HttpResponse.json({ capital: CAPITALS[new URL(request.url).searchParams.get('country')] })))
beforeAll(() => geo.listen({ onUnhandledRequest: 'bypass' }))
afterAll(() => geo.close())

const describeIfKey = process.env.OPENAI_API_KEY ? describe : describe.skip

describeIfKey('app agent', () => {
  // One client for the whole file.
  const shared = new OpenAI({ baseURL: `${PROVIDER_URL}/v1`, apiKey: OPENAI_API_KEY, maxRetries: 0 })

  it('answers Italy with the app geo API', async () => {
    expect(await ask('What is the capital of Italy? Use the tool, then answer.', shared, capitalFromApp)).toContain('Rome')
  })

  it('answers Japan and names the report file', async () => {
    const report = join(tmpdir(), `capital-${randomUUID()}.txt`)
    expect(await ask(`What is the capital of Japan? Use the tool, then answer. Write it to ${report}.`, shared, capitalFromApp)).toContain('Tokyo')
  })

  it('answers the UK over undici', async () => {
    expect(await askRaw('What is the capital of the UK? Use the tool, then answer.', getCapital)).toBe('The capital of the UK is London.')
  })
})

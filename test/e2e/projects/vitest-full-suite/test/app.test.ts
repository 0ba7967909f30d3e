import { randomUUID } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OPENAI_API_KEY, PROVIDER_URL } from '../src/env'
import { ask, getCapital } from '../src/agent'
import { capitalFromApp, GEO_API } from '../src/geo-app'
import { askRaw } from '../src/raw-agent'

// The app's own geography API, mocked for the whole file; anything else goes through.
const geo = setupServer(http.get(GEO_API, ({ request }) => HttpResponse.json({ capital: ({ Italy: 'Rome', Japan: 'Tokyo' } as Record<string, string>)[new URL(request.url).searchParams.get('country') ?? ''] })))
beforeAll(() => geo.listen({ onUnhandledRequest: 'bypass' }))
afterAll(() => geo.close())

describe.skipIf(!process.env.OPENAI_API_KEY)('app agent', () => {
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

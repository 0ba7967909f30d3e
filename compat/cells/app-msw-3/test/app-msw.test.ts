// The app's own msw 3 setupServer (its feature-flag service mocked), next to fluxlab recording the model calls.
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ask } from '../src/agent.js'

const server = setupServer(http.get('http://127.0.0.1:9/flags', () => HttpResponse.json({ tools: true })))
beforeAll(() => server.listen({ onUnhandledRequest: 'bypass' }))
afterAll(() => server.close())

describe.skipIf(!process.env.OPENAI_API_KEY)('app with its own msw', () => {
  it('reads its mocked flags, then asks the agent', async () => {
    const flags = (await (await fetch('http://127.0.0.1:9/flags')).json()) as { tools: boolean }
    expect(flags.tools).toBe(true)
    expect(await ask('What is the capital of Japan? Use the tool, then answer.')).toContain('Tokyo')
  })
})

it('the app mock answers without any model call', async () => {
  expect(await (await fetch('http://127.0.0.1:9/flags')).json()).toEqual({ tools: true })
})

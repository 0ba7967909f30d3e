// The app's own msw 3 setupServer (its feature-flag service mocked), next to fluxlab recording the model calls.
// @note not 127.0.0.1:9: port 9 is on fetch's bad-port list, which Node's fetch refuses before it opens a socket, and msw 3
// intercepts at the socket (msw 2 replaced fetch itself, so it answered there). `.test` never resolves (RFC 2606).
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ask } from '../src/agent.js'

const server = setupServer(http.get('http://flags.app.test/flags', () => HttpResponse.json({ tools: true })))
beforeAll(() => server.listen())
afterAll(() => server.close())

describe.skipIf(!process.env.OPENAI_API_KEY)('app with its own msw', () => {
  it('reads its mocked flags, then asks the agent', async () => {
    const flags = (await (await fetch('http://flags.app.test/flags')).json()) as { tools: boolean }
    expect(flags.tools).toBe(true)
    expect(await ask('What is the capital of Japan? Use the tool, then answer.')).toContain('Tokyo')
  })
})

it('the app mock answers without any model call', async () => {
  expect(await (await fetch('http://flags.app.test/flags')).json()).toEqual({ tools: true })
})

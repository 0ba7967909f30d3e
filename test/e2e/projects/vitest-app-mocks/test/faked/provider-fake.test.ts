// A file whole-suite mode leaves out (`include`): the suite fakes the provider with its own msw handler here, and the
// fake answers every model call (at load, in a beforeAll, in a test), as without fluxlab. Nothing listens at the fake's
// address, so a call the fake did not answer fails.
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import OpenAI from 'openai'
import { afterAll, beforeAll, expect, test } from 'vitest'

const FAKE = 'http://127.0.0.1:9/v1'
const fake = setupServer(
  http.post(`${FAKE}/chat/completions`, () =>
    HttpResponse.json({
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      created: 0,
      model: 'gpt-4o-mini',
      choices: [{ index: 0, message: { role: 'assistant', content: 'a faked answer' }, finish_reason: 'stop', logprobs: null }],
    }),
  ),
)
const client = new OpenAI({ apiKey: 'sk-faked-provider', baseURL: FAKE, maxRetries: 0 })
const ask = async () => (await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).choices[0]?.message.content

let inBeforeAll: string | null | undefined
beforeAll(async () => {
  fake.listen({ onUnhandledRequest: 'error' })
  inBeforeAll = await ask()
})
afterAll(() => fake.close())

test('the suite fake answers a model call in a beforeAll', () => {
  expect(inBeforeAll).toBe('a faked answer')
})

test('the suite fake answers a model call in a test', async () => {
  expect(await ask()).toBe('a faked answer')
})

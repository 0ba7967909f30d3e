// The jest copy of provider-fake.test.ts: test/e2e/include-left-out.test.ts puts it into a copy of jest-full-suite, as a
// file whole-suite mode leaves out (`include`). The fake answers every model call (in a beforeAll, in a test), as
// without fluxlab. Nothing listens at the fake's address, so a call the fake did not answer fails.
const { http, HttpResponse } = require('msw')
const { setupServer } = require('msw/node')
const { OpenAI } = require('openai')

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
const ask = async () => (await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).choices[0].message.content

let inBeforeAll
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

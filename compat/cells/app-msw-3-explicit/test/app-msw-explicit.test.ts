// Explicit mode next to the app's own msw 3 `setupServer` (issue 24): the server listens first (beforeAll, strict: an
// unhandled request is an error), and fluxlab's interception is applied over it at `s.run()`. The app's mocked host
// never resolves (`.test`, RFC 2606): only the app's mock can answer it, over fetch and over node:http.
// @note msw 3 names the option `onUnhandledFrame`; it ignores msw 2's `onUnhandledRequest` (and warns by default).
// @note `http.get` on the module object: msw patches it there (an ESM named import keeps the original).
import http from 'node:http'
import { scenario } from 'fluxlab'
import { http as mock, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import OpenAI from 'openai'
import { afterAll, beforeAll, expect, test } from 'vitest'

const CRM = 'https://crm.example.test/customers/42'
const CRM_HTTP = 'http://crm.example.test/customers/42'
const unhandled: string[] = []
const server = setupServer(
  mock.get(CRM, () => HttpResponse.json({ id: 42, city: 'Paris' })),
  mock.get(CRM_HTTP, () => HttpResponse.json({ id: 42, city: 'Paris' })),
)
beforeAll(() =>
  server.listen({
    onUnhandledFrame({ frame, defaults }) {
      const { request } = frame.data as { request?: Request }
      unhandled.push(request ? `${request.method} ${request.url}` : frame.protocol)
      defaults.error()
    },
  }),
)
afterAll(() => server.close())

const customer = async (): Promise<{ id: number; city: string }> => (await fetch(CRM)).json() as Promise<{ id: number; city: string }>

function customerOverHttp(): Promise<{ id: number; city: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(CRM_HTTP, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => (body += c))
        res.on('end', () => resolve(JSON.parse(body) as { id: number; city: string }))
        res.on('error', reject)
      })
      .on('error', reject)
  })
}

/** One streamed chat completion; the local provider answers its first turn with a get_capital call. */
async function askModel(city: string): Promise<string> {
  const client = new OpenAI({ baseURL: `${process.env.PROVIDER_URL}/v1`, maxRetries: 0 })
  const stream = await client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: `The customer lives in ${city}. What is the capital of France? Use the tool.` }],
    stream: true,
    tools: [{ type: 'function', function: { name: 'get_capital', description: '', parameters: { type: 'object', properties: { country: { type: 'string' } }, required: ['country'], additionalProperties: false }, strict: true } }],
  })
  let args = ''
  for await (const chunk of stream) for (const tc of chunk.choices[0]?.delta?.tool_calls ?? []) args += tc.function?.arguments ?? ''
  return args
}

test('outside a scenario the app mock answers', async () => {
  expect(await customer()).toEqual({ id: 42, city: 'Paris' })
})

test('inside a scenario the app mock answers fetch, then the model call is recorded or replayed', async () => {
  const s = await scenario('msw3')
  const out = await s.run(async () => {
    const c = await customer()
    return { city: c.city, args: await askModel(c.city) }
  })
  expect(out.result).toEqual({ city: 'Paris', args: '{"country":"France"}' })
  expect(out).toReplayFaithfully()
})

test('inside a scenario the app mock answers node:http', async () => {
  const s = await scenario('msw3-node-http')
  const out = await s.run(async () => {
    const c = await customerOverHttp()
    return { city: c.city, args: await askModel(c.city) }
  })
  expect(out.result).toEqual({ city: 'Paris', args: '{"country":"France"}' })
  expect(out).toReplayFaithfully()
})

test("the app's strict onUnhandledFrame never fired", () => {
  expect(unhandled).toEqual([])
})

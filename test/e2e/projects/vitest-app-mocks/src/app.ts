// The app: it reads its feature flags and the user from its own services (over fetch and over node:http), then asks a
// model, which calls the app's geography tool over HTTP. The tests mock the flags and users APIs themselves.
// @note `http.get` on the module object: msw and nock patch it there (an ESM named import keeps the original).
import http from 'node:http'
import OpenAI from 'openai'

export const USERS = 'https://users.app.test/me'
export const USERS_HTTP = 'http://users.app.test/me'
export const FLAGS = 'https://flags.app.test/flags'

export async function me(): Promise<{ name: string }> {
  const res = await fetch(USERS)
  if (!res.ok) throw new Error(`users API answered ${res.status}`)
  return (await res.json()) as { name: string }
}

/** The app's feature flags, from its flags service (the tests mock it with their own `fetch` wrapper). */
export async function flags(): Promise<{ tools: boolean }> {
  const res = await fetch(FLAGS)
  if (!res.ok) throw new Error(`flags service answered ${res.status}`)
  return (await res.json()) as { tools: boolean }
}

export function meOverHttp(): Promise<{ name: string }> {
  return new Promise((resolve, reject) => {
    http.get(USERS_HTTP, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (body += c))
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(body) as { name: string }) : reject(new Error(`users API answered ${res.statusCode}`))))
      res.on('error', reject)
    }).on('error', reject)
  })
}

async function turn(c: OpenAI, messages: OpenAI.ChatCompletionMessageParam[]) {
  const res = await c.chat.completions.create({
    model: 'gpt-4o-mini',
    messages,
    stream: true,
    tools: [{ type: 'function', function: { name: 'get_capital', description: '', parameters: { type: 'object', properties: { country: { type: 'string' } }, required: ['country'], additionalProperties: false }, strict: true } }],
  })
  let text = ''
  const calls: Array<{ id: string; name: string; args: string }> = []
  for await (const chunk of res) {
    const delta = chunk.choices[0]?.delta
    if (delta?.content) text += delta.content
    for (const tc of delta?.tool_calls ?? []) {
      calls[tc.index] ??= { id: '', name: '', args: '' }
      if (tc.id) calls[tc.index].id = tc.id
      if (tc.function?.name) calls[tc.index].name = tc.function.name
      if (tc.function?.arguments) calls[tc.index].args += tc.function.arguments
    }
  }
  return { text, calls }
}

async function getCapital(country: string): Promise<string> {
  const res = await fetch(`${process.env.PROVIDER_URL}/geo/capital?country=${encodeURIComponent(country)}`)
  if (!res.ok) throw new Error(`geo service answered ${res.status}`)
  return ((await res.json()) as { capital: string }).capital
}

/** The model's answer to the user's question, after the geography tool it asks for. */
export async function answer(user: string): Promise<string> {
  const c = new OpenAI({ baseURL: `${process.env.PROVIDER_URL}/v1`, maxRetries: 0 })
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: `I am ${user}. What is the capital of the UK? Use the tool, then answer.` }]
  const first = await turn(c, messages)
  messages.push({ role: 'assistant', content: first.text || null, tool_calls: first.calls.map((x) => ({ id: x.id, type: 'function' as const, function: { name: x.name, arguments: x.args } })) })
  for (const call of first.calls) messages.push({ role: 'tool', tool_call_id: call.id, content: await getCapital((JSON.parse(call.args) as { country: string }).country) })
  return (await turn(c, messages)).text
}

/** One greeting: the user from the app's API (both transports), then the model's answer. */
export async function greet(): Promise<{ user: string; overHttp: string; answer: string }> {
  const user = await me()
  const overHttp = await meOverHttp()
  return { user: user.name, overHttp: overHttp.name, answer: await answer(user.name) }
}

export const GREETING = { user: 'Ada', overHttp: 'Ada', answer: 'The capital of the UK is London.' }

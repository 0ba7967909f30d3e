// The same agent over a bare HTTP client (fetch, node:http, axios, got, undici): the app posts to the
// chat-completions endpoint itself and reads the SSE stream. A cell's src/agent.ts passes its `post`.
export type Post = (url: string, body: string, headers: Record<string, string>) => Promise<string>
interface Call {
  id: string
  name: string
  args: string
}
interface Chunk {
  choices: Array<{ delta?: { content?: string | null; tool_calls?: Array<{ index: number; id?: string; function?: { name?: string; arguments?: string } }> } }>
}
export interface RawClient {
  apiKey: string
}

const TOOLS = [{ type: 'function', function: { name: 'get_capital', description: '', parameters: { type: 'object', properties: { country: { type: 'string' } }, required: ['country'], additionalProperties: false }, strict: true } }]

export function rawAgent(post: Post) {
  // As the OpenAI SDK does: a client without a key throws where it is built.
  const createClient = (apiKey = process.env.OPENAI_API_KEY): RawClient => {
    if (!apiKey) throw new Error('The OPENAI_API_KEY environment variable is missing or empty')
    return { apiKey }
  }
  const client = createClient()

  async function turn(c: RawClient, messages: unknown[]) {
    const sse = await post(`${process.env.PROVIDER_URL}/v1/chat/completions`, JSON.stringify({ model: 'gpt-4o-mini', messages, stream: true, tools: TOOLS }), {
      'content-type': 'application/json',
      authorization: `Bearer ${c.apiKey}`,
    })
    let text = ''
    const calls: Call[] = []
    for (const line of sse.split('\n')) {
      if (!line.startsWith('data: ') || line === 'data: [DONE]') continue
      const delta = (JSON.parse(line.slice(6)) as Chunk).choices[0]?.delta
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

  async function ask(question: string, c: RawClient = client): Promise<string> {
    const messages: unknown[] = [{ role: 'user', content: question }]
    const first = await turn(c, messages)
    messages.push({ role: 'assistant', content: first.text || null, tool_calls: first.calls.map((x) => ({ id: x.id, type: 'function', function: { name: x.name, arguments: x.args } })) })
    for (const call of first.calls) messages.push({ role: 'tool', tool_call_id: call.id, content: await getCapital((JSON.parse(call.args) as { country: string }).country) })
    return (await turn(c, messages)).text
  }

  return { client, createClient, ask }
}

// The same agent written against the provider's HTTP API with the npm undici package, no SDK.
import { request } from 'undici'
import { OPENAI_API_KEY, PROVIDER_URL } from './env'

interface Call {
  id: string
  name: string
  args: string
}
type Message = { role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string }

const TOOLS = [{ type: 'function', function: { name: 'get_capital', description: '', parameters: { type: 'object', properties: { country: { type: 'string' } }, required: ['country'], additionalProperties: false }, strict: true } }]

async function turn(messages: Message[]): Promise<{ text: string; calls: Call[] }> {
  const res = await request(`${PROVIDER_URL}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${OPENAI_API_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages, stream: true, tools: TOOLS }),
  })
  const body = await res.body.text()
  if (res.statusCode !== 200) throw new Error(`provider answered ${res.statusCode}: ${body}`)
  let text = ''
  const calls: Call[] = []
  for (const line of body.split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue
    const delta = (JSON.parse(line.slice(6)) as { choices: Array<{ delta?: { content?: string; tool_calls?: Array<{ index: number; id?: string; function?: { name?: string; arguments?: string } }> } }> }).choices[0]?.delta
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

export async function askRaw(question: string, tool: (country: string) => Promise<string>): Promise<string> {
  const messages: Message[] = [{ role: 'user', content: question }]
  const first = await turn(messages)
  messages.push({ role: 'assistant', content: first.text || null, tool_calls: first.calls.map((x) => ({ id: x.id, type: 'function', function: { name: x.name, arguments: x.args } })) })
  for (const call of first.calls) messages.push({ role: 'tool', tool_call_id: call.id, content: await tool((JSON.parse(call.args) as { country: string }).country) })
  return (await turn(messages)).text
}

// The agent: a client built when the module loads (it throws there without a key, as the OpenAI
// SDK does), and a tool that calls the geography service over HTTP.
import OpenAI from 'openai'

export const client = new OpenAI({ baseURL: `${process.env.PROVIDER_URL}/v1` })

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

export async function ask(question: string, c: OpenAI = client): Promise<string> {
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: question }]
  const first = await turn(c, messages)
  messages.push({ role: 'assistant', content: first.text || null, tool_calls: first.calls.map((x) => ({ id: x.id, type: 'function' as const, function: { name: x.name, arguments: x.args } })) })
  for (const call of first.calls) messages.push({ role: 'tool', tool_call_id: call.id, content: await getCapital((JSON.parse(call.args) as { country: string }).country) })
  return (await turn(c, messages)).text
}

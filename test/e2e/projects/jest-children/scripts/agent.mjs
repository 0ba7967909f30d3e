// The agent for scripts that run under plain node: one question, the geography tool, the answer.
import OpenAI from 'openai'

const tools = [{ type: 'function', function: { name: 'get_capital', description: '', parameters: { type: 'object', properties: { country: { type: 'string' } }, required: ['country'], additionalProperties: false }, strict: true } }]

async function turn(client, messages) {
  const res = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true, tools })
  let text = ''
  const calls = []
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

async function getCapital(country) {
  const res = await fetch(`${process.env.PROVIDER_URL}/geo/capital?country=${encodeURIComponent(country)}`)
  if (!res.ok) throw new Error(`geo service answered ${res.status}`)
  return (await res.json()).capital
}

export async function ask(question) {
  const client = new OpenAI({ baseURL: `${process.env.PROVIDER_URL}/v1` })
  const messages = [{ role: 'user', content: question }]
  const first = await turn(client, messages)
  messages.push({ role: 'assistant', content: first.text || null, tool_calls: first.calls.map((x) => ({ id: x.id, type: 'function', function: { name: x.name, arguments: x.args } })) })
  for (const call of first.calls) messages.push({ role: 'tool', tool_call_id: call.id, content: await getCapital(JSON.parse(call.args).country) })
  return (await turn(client, messages)).text
}

// Ask the agent, routed as the first argument says:  node scripts/ask.mjs dispatcher UK
import OpenAI from 'openai'
import { route } from './route.mjs'

const [how, country] = process.argv.slice(2)
const client = new OpenAI({ baseURL: `${process.env.VENDOR_URL}/v1`, fetch: route(how), maxRetries: 0 })
const tools = [{ type: 'function', function: { name: 'get_capital', description: '', parameters: { type: 'object', properties: { country: { type: 'string' } }, required: ['country'], additionalProperties: false }, strict: true } }]

async function turn(messages) {
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

const messages = [{ role: 'user', content: `What is the capital of ${country}? Use the tool, then answer.` }]
const first = await turn(messages)
messages.push({ role: 'assistant', content: first.text || null, tool_calls: first.calls.map((x) => ({ id: x.id, type: 'function', function: { name: x.name, arguments: x.args } })) })
for (const call of first.calls) {
  const res = await fetch(`${process.env.GEO_URL}/geo/capital?country=${encodeURIComponent(JSON.parse(call.args).country)}`)
  messages.push({ role: 'tool', tool_call_id: call.id, content: (await res.json()).capital })
}
console.log((await turn(messages)).text)

// The same agent written against the provider's HTTP API with the npm undici package, no SDK.
const { request } = require('undici')
const { OPENAI_API_KEY, PROVIDER_URL } = require('./env.cjs')

const TOOLS = [{ type: 'function', function: { name: 'get_capital', description: '', parameters: { type: 'object', properties: { country: { type: 'string' } }, required: ['country'], additionalProperties: false }, strict: true } }]

async function turn(messages) {
  const res = await request(`${PROVIDER_URL}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${OPENAI_API_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages, stream: true, tools: TOOLS }),
  })
  const body = await res.body.text()
  if (res.statusCode !== 200) throw new Error(`provider answered ${res.statusCode}: ${body}`)
  let text = ''
  const calls = []
  for (const line of body.split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue
    const choice = JSON.parse(line.slice(6)).choices[0]
    const delta = choice && choice.delta
    if (!delta) continue
    if (delta.content) text += delta.content
    for (const tc of delta.tool_calls || []) {
      calls[tc.index] = calls[tc.index] || { id: '', name: '', args: '' }
      if (tc.id) calls[tc.index].id = tc.id
      if (tc.function && tc.function.name) calls[tc.index].name = tc.function.name
      if (tc.function && tc.function.arguments) calls[tc.index].args += tc.function.arguments
    }
  }
  return { text, calls }
}

async function askRaw(question, tool) {
  const messages = [{ role: 'user', content: question }]
  const first = await turn(messages)
  messages.push({ role: 'assistant', content: first.text || null, tool_calls: first.calls.map((x) => ({ id: x.id, type: 'function', function: { name: x.name, arguments: x.args } })) })
  for (const call of first.calls) messages.push({ role: 'tool', tool_call_id: call.id, content: await tool(JSON.parse(call.args).country) })
  return (await turn(messages)).text
}

module.exports = { askRaw }

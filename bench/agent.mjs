// The capital agent of examples/capital-agent/agent.ts, re-implemented in plain
// ESM: the OpenAI SDK in a streaming tool loop, one HTTP tool. The requests it
// makes are the ones recorded in examples/scenarios/capital-agent/.
import OpenAI from 'openai'

export const QUESTION = 'What is the capital of the UK? Use the tool, then answer.'

const tools = [
  {
    type: 'function',
    function: {
      name: 'get_capital',
      description: '',
      parameters: {
        type: 'object',
        properties: { country: { type: 'string' } },
        required: ['country'],
        additionalProperties: false,
      },
      strict: true,
    },
  },
]

const GEO_API = 'http://127.0.0.1:4010'

async function getCapital(country, geo) {
  const res = await fetch(`${geo}/capital?country=${encodeURIComponent(country)}`)
  if (!res.ok) throw new Error(`geo service answered ${res.status}`)
  const body = await res.json()
  return body.capital
}

/**
 * Ask a question; loop while the model requests tools. A fresh client per run,
 * like the example agent (`client = new OpenAI()`); the key is a placeholder and
 * the base URL the public one: nothing leaves the process under interception.
 * `geo` is the tool's base URL (bench/polly-nock.mjs records from a local server on another port); `capital`, the
 * tool itself: by default the HTTP call, or an in-process function (bench/run.mjs's tool-on-tape rows pass
 * `lab.tool('get_capital', fn)`).
 */
export async function capitalAgent(
  question = QUESTION,
  client = new OpenAI({ apiKey: 'bench-placeholder', baseURL: 'https://api.openai.com/v1', maxRetries: 0 }),
  geo = GEO_API,
  capital = ({ country }) => getCapital(country, geo),
) {
  const messages = [{ role: 'user', content: question }]
  for (let step = 1; step <= 5; step++) {
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages,
      tools,
      tool_choice: 'auto',
      stream: true,
      stream_options: { include_usage: true },
    })
    let text = ''
    const calls = []
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta
      if (delta?.content) text += delta.content
      for (const tc of delta?.tool_calls ?? []) {
        calls[tc.index] ??= { id: '', name: '', args: '' }
        if (tc.id) calls[tc.index].id = tc.id
        if (tc.function?.name) calls[tc.index].name = tc.function.name
        if (tc.function?.arguments) calls[tc.index].args += tc.function.arguments
      }
    }
    if (calls.length === 0) return { answer: text, steps: step }
    messages.push({
      role: 'assistant',
      content: text || null,
      tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } })),
    })
    for (const call of calls) {
      const { country } = JSON.parse(call.args)
      messages.push({ role: 'tool', tool_call_id: call.id, content: await capital({ country }) })
    }
  }
  throw new Error('the agent did not finish in 5 steps')
}

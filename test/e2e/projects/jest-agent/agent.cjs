/**
 * The agent under test: the OpenAI SDK (default retries) in a streaming tool loop. Turn 1 asks for
 * `get_capital`, the tool calls a geography HTTP service, turn 2 answers. It knows nothing of fluxlab.
 * Every HTTP attempt it makes is appended to $AGENT_LOG, so the parent test can count retries.
 * The model is at $PROVIDER_URL, the geography service at $GEO_URL (default: the same server).
 */
const { appendFileSync } = require('node:fs')
const { OpenAI } = require('openai')

const tools = [
  {
    type: 'function',
    function: {
      name: 'get_capital',
      description: '',
      parameters: { type: 'object', properties: { country: { type: 'string' } }, required: ['country'], additionalProperties: false },
      strict: true,
    },
  },
]

function log(entry) {
  if (process.env.AGENT_LOG) appendFileSync(process.env.AGENT_LOG, `${JSON.stringify(entry)}\n`)
}

/** `fetch` that logs each attempt: the SDK calls it once per try. */
async function loggingFetch(input, init) {
  const url = new URL(input instanceof Request ? input.url : String(input))
  const retry = new Headers(init && init.headers).get('x-stainless-retry-count')
  const path = url.pathname + url.search
  try {
    const res = await fetch(input, init)
    log({ event: 'fetch', path, retry, status: res.status, offTape: res.headers.get('x-fluxlab') === 'off-tape' })
    return res
  } catch (e) {
    log({ event: 'fetch', path, retry, error: String(e) })
    throw e
  }
}

async function turn(client, messages) {
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
    const delta = chunk.choices[0] && chunk.choices[0].delta
    if (delta && delta.content) text += delta.content
    for (const tc of (delta && delta.tool_calls) || []) {
      calls[tc.index] = calls[tc.index] || { id: '', name: '', args: '' }
      if (tc.id) calls[tc.index].id = tc.id
      if (tc.function && tc.function.name) calls[tc.index].name = tc.function.name
      if (tc.function && tc.function.arguments) calls[tc.index].args += tc.function.arguments
    }
  }
  return { text, calls }
}

async function getCapital(country) {
  const url = new URL(`${process.env.GEO_URL || process.env.PROVIDER_URL}/geo/capital?country=${encodeURIComponent(country)}`)
  const res = await fetch(url)
  log({ event: 'fetch', path: url.pathname + url.search, status: res.status })
  if (!res.ok) throw new Error(`geo service answered ${res.status}`)
  return (await res.json()).capital
}

/**
 * Ask a question; run the requested tool; return the final answer.
 * Options: `extraTurn` asks one more question after the answer; `swallow` catches its error.
 */
async function runAgent(question, opts = {}) {
  const client = new OpenAI({ baseURL: `${process.env.PROVIDER_URL}/v1`, apiKey: 'sk-e2e-not-a-real-key', fetch: loggingFetch })
  const messages = [{ role: 'user', content: question }]
  const first = await turn(client, messages)
  messages.push({
    role: 'assistant',
    content: first.text || null,
    tool_calls: first.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } })),
  })
  for (const call of first.calls) {
    const { country } = JSON.parse(call.args)
    messages.push({ role: 'tool', tool_call_id: call.id, content: await getCapital(country) })
  }
  const answer = await turn(client, messages)
  if (opts.extraTurn) {
    messages.push({ role: 'assistant', content: answer.text }, { role: 'user', content: 'And its population?' })
    try {
      await turn(client, messages)
    } catch (e) {
      if (!opts.swallow) throw e
      log({ event: 'swallowed', message: String(e.message) })
    }
  }
  return answer.text
}

module.exports = { runAgent, log }

/**
 * The agent under test: the OpenAI SDK (default retries) in a streaming tool loop. Turn 1 asks for
 * `get_capital`, the tool calls a geography HTTP service, turn 2 answers. It knows nothing of fluxlab.
 * Every HTTP attempt it makes is appended to $AGENT_LOG, so the parent test can count retries.
 * The model is at $PROVIDER_URL, the geography service at $GEO_URL (default: the same server).
 */
import { appendFileSync } from 'node:fs'
import OpenAI from 'openai'
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'

const tools: ChatCompletionTool[] = [
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

function log(entry: Record<string, unknown>): void {
  if (process.env.AGENT_LOG) appendFileSync(process.env.AGENT_LOG, `${JSON.stringify(entry)}\n`)
}

/** `fetch` that logs each attempt: the SDK calls it once per try. */
const loggingFetch: typeof fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input))
  const retry = new Headers(init?.headers).get('x-stainless-retry-count')
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

export interface AgentOptions {
  /** After the answer, ask one more question (one model call more than recorded). */
  extraTurn?: boolean
  /** Catch the extra turn's error, as a careless agent would. */
  swallow?: boolean
}

async function turn(client: OpenAI, messages: ChatCompletionMessageParam[]) {
  const stream = await client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages,
    tools,
    tool_choice: 'auto',
    stream: true,
    stream_options: { include_usage: true },
  })
  let text = ''
  const calls: Array<{ id: string; name: string; args: string }> = []
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
  return { text, calls }
}

async function getCapital(country: string): Promise<string> {
  const url = `${process.env.GEO_URL ?? process.env.PROVIDER_URL}/geo/capital?country=${encodeURIComponent(country)}`
  const res = await fetch(url)
  log({ event: 'fetch', path: new URL(url).pathname + new URL(url).search, status: res.status })
  if (!res.ok) throw new Error(`geo service answered ${res.status}`)
  return ((await res.json()) as { capital: string }).capital
}

/**
 * Ask a question; run the requested tool; return the final answer.
 * @example
 * await runAgent('What is the capital of the UK? Use the tool, then answer.')
 */
export async function runAgent(question: string, opts: AgentOptions = {}): Promise<string> {
  const client = new OpenAI({ baseURL: `${process.env.PROVIDER_URL}/v1`, apiKey: 'sk-e2e-not-a-real-key', fetch: loggingFetch })
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: question }]
  const first = await turn(client, messages)
  messages.push({
    role: 'assistant',
    content: first.text || null,
    tool_calls: first.calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.args } })),
  })
  for (const call of first.calls) {
    const { country } = JSON.parse(call.args) as { country: string }
    messages.push({ role: 'tool', tool_call_id: call.id, content: await getCapital(country) })
  }
  const answer = await turn(client, messages)
  if (opts.extraTurn) {
    messages.push({ role: 'assistant', content: answer.text }, { role: 'user', content: 'And its population?' })
    try {
      await turn(client, messages)
    } catch (e) {
      if (!opts.swallow) throw e
      log({ event: 'swallowed', message: String((e as Error).message) })
    }
  }
  return answer.text
}

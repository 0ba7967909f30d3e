/**
 * A small but real agent: the OpenAI SDK in a streaming tool loop. The model
 * asks for `get_capital`, the tool calls a geography HTTP service, the model
 * answers. Nothing here knows fluxlab exists.
 */
import OpenAI from 'openai'
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'

const tools: ChatCompletionTool[] = [
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

/** The geography service the tool calls (a non-model host: fluxlab records it on the tool channel). */
const GEO_API = process.env.GEO_API_URL ?? 'http://127.0.0.1:4010'

async function getCapital(country: string): Promise<string> {
  const res = await fetch(`${GEO_API}/capital?country=${encodeURIComponent(country)}`)
  if (!res.ok) throw new Error(`geo service answered ${res.status}`)
  const body = (await res.json()) as { capital: string }
  return body.capital
}

export interface AgentResult {
  answer: string
  steps: number
}

/**
 * Ask a question; loop while the model requests tools.
 * @example
 * const { answer } = await capitalAgent('What is the capital of the UK? Use the tool, then answer.')
 */
export async function capitalAgent(question: string, client = new OpenAI()): Promise<AgentResult> {
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: question }]
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
    if (calls.length === 0) return { answer: text, steps: step }
    messages.push({
      role: 'assistant',
      content: text || null,
      tool_calls: calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.args } })),
    })
    for (const call of calls) {
      const { country } = JSON.parse(call.args) as { country: string }
      messages.push({ role: 'tool', tool_call_id: call.id, content: await getCapital(country) })
    }
  }
  throw new Error('the agent did not finish in 5 steps')
}

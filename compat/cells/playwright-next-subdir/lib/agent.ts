// The app's agent: one question answered by the model, with the get_capital tool called over HTTP in between.
import OpenAI from 'openai'
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'

const PROVIDER_URL = process.env.PROVIDER_URL ?? 'http://127.0.0.1:9'
// Built at import, as apps do, from the environment: OPENAI_API_KEY, and OPENAI_BASE_URL, the vendor's address
// (`next build` imports this module too). The way to it is the server's own (lib/route-vendor.ts).
const openai = new OpenAI()

const tools: ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_capital', description: 'The capital of a country', parameters: { type: 'object', properties: { country: { type: 'string' } }, required: ['country'], additionalProperties: false }, strict: true } },
]

interface Call {
  id: string
  name: string
  args: string
}

/** One model turn, streamed: `onText` gets each content delta; the tool calls come back whole. */
async function turn(messages: ChatCompletionMessageParam[], onText: (text: string) => void): Promise<Call[]> {
  const stream = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true, tools })
  const calls: Call[] = []
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta
    if (delta?.content) onText(delta.content)
    for (const tc of delta?.tool_calls ?? []) {
      calls[tc.index] ??= { id: '', name: '', args: '' }
      if (tc.id) calls[tc.index].id = tc.id
      if (tc.function?.name) calls[tc.index].name = tc.function.name
      if (tc.function?.arguments) calls[tc.index].args += tc.function.arguments
    }
  }
  return calls
}

async function getCapital(country: string): Promise<string> {
  const res = await fetch(`${PROVIDER_URL}/geo/capital?country=${encodeURIComponent(country)}`, { cache: 'no-store' })
  if (!res.ok) throw new Error(`the geography service answered ${res.status}`)
  return ((await res.json()) as { capital: string }).capital
}

/** The question answered: model, tool, model; each text delta to `onText`. */
export async function answer(question: string, onText: (text: string) => void): Promise<void> {
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: question }]
  const calls = await turn(messages, onText)
  messages.push({ role: 'assistant', content: null, tool_calls: calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.args } })) })
  for (const c of calls) messages.push({ role: 'tool', tool_call_id: c.id, content: await getCapital((JSON.parse(c.args) as { country: string }).country) })
  await turn(messages, onText)
}

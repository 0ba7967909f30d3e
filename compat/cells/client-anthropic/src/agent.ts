// The agent on @anthropic-ai/sdk: messages.stream with a tool, against the provider's Anthropic messages route.
import Anthropic from '@anthropic-ai/sdk'

export const createClient = (apiKey?: string) => new Anthropic({ baseURL: process.env.PROVIDER_URL, apiKey: apiKey ?? process.env.ANTHROPIC_API_KEY })
export const client = createClient()

const tools: Anthropic.Tool[] = [{ name: 'get_capital', description: '', input_schema: { type: 'object', properties: { country: { type: 'string' } }, required: ['country'] } }]

async function getCapital(country: string): Promise<string> {
  const res = await fetch(`${process.env.PROVIDER_URL}/geo/capital?country=${encodeURIComponent(country)}`)
  if (!res.ok) throw new Error(`geo service answered ${res.status}`)
  return ((await res.json()) as { capital: string }).capital
}

const turn = (c: Anthropic, messages: Anthropic.MessageParam[]) => c.messages.stream({ model: 'claude-sonnet-4-20250514', max_tokens: 256, messages, tools }).finalMessage()

export async function ask(question: string, c: Anthropic = client): Promise<string> {
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: question }]
  const first = await turn(c, messages)
  messages.push({ role: 'assistant', content: first.content })
  const results: Anthropic.ToolResultBlockParam[] = []
  for (const b of first.content) if (b.type === 'tool_use') results.push({ type: 'tool_result', tool_use_id: b.id, content: await getCapital((b.input as { country: string }).country) })
  messages.push({ role: 'user', content: results })
  const second = await turn(c, messages)
  return second.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
}

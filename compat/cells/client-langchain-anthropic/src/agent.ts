// The agent on LangChain (@langchain/anthropic 1.5.11): ChatAnthropic streaming messages with a bound tool,
// and the tool loop the app runs itself (an AIMessage's tool_calls answered by ToolMessages).
import { ChatAnthropic } from '@langchain/anthropic'
import { HumanMessage, ToolMessage, type AIMessageChunk, type BaseMessage } from '@langchain/core/messages'

const TOOL = { name: 'get_capital', description: 'The capital of a country', input_schema: { type: 'object' as const, properties: { country: { type: 'string' } }, required: ['country'] } }

export const createClient = (apiKey?: string) =>
  new ChatAnthropic({ model: 'claude-sonnet-4-20250514', apiKey: apiKey ?? process.env.ANTHROPIC_API_KEY, streaming: true, maxRetries: 0, anthropicApiUrl: process.env.PROVIDER_URL })
export const client = createClient()

async function getCapital(country: string): Promise<string> {
  const res = await fetch(`${process.env.PROVIDER_URL}/geo/capital?country=${encodeURIComponent(country)}`)
  if (!res.ok) throw new Error(`geo service answered ${res.status}`)
  return ((await res.json()) as { capital: string }).capital
}

/** One streamed turn, its chunks concatenated. (`invoke` with `streaming: true` would also count the prompt's tokens
 * with js-tiktoken, which downloads its encoding from a public CDN on first use.) */
async function turn(model: { stream: (m: BaseMessage[]) => Promise<AsyncIterable<AIMessageChunk>> }, messages: BaseMessage[]): Promise<AIMessageChunk> {
  let out: AIMessageChunk | undefined
  for await (const chunk of await model.stream(messages)) out = out ? out.concat(chunk) : chunk
  if (!out) throw new Error('the model streamed nothing')
  return out
}

export async function ask(question: string, c: ChatAnthropic = client): Promise<string> {
  const model = c.bindTools([TOOL])
  const messages: BaseMessage[] = [new HumanMessage(question)]
  const first = await turn(model, messages)
  messages.push(first)
  for (const call of first.tool_calls ?? []) messages.push(new ToolMessage({ tool_call_id: call.id ?? '', content: await getCapital(String(call.args.country)) }))
  return (await turn(model, messages)).text
}

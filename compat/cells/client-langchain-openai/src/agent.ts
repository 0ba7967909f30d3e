// The agent on LangChain (@langchain/openai 1.6.0): ChatOpenAI streaming chat completions with a bound tool,
// and the tool loop the app runs itself (an AIMessage's tool_calls answered by ToolMessages).
import { HumanMessage, ToolMessage, type AIMessageChunk, type BaseMessage } from '@langchain/core/messages'
import { ChatOpenAI } from '@langchain/openai'

const TOOL = { type: 'function' as const, function: { name: 'get_capital', description: '', parameters: { type: 'object', properties: { country: { type: 'string' } }, required: ['country'], additionalProperties: false } } }

export const createClient = (apiKey?: string) =>
  new ChatOpenAI({ model: 'gpt-4o-mini', apiKey: apiKey ?? process.env.OPENAI_API_KEY, streaming: true, maxRetries: 0, configuration: { baseURL: `${process.env.PROVIDER_URL}/v1` } })
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

export async function ask(question: string, c: ChatOpenAI = client): Promise<string> {
  const model = c.bindTools([TOOL])
  const messages: BaseMessage[] = [new HumanMessage(question)]
  const first = await turn(model, messages)
  messages.push(first)
  for (const call of first.tool_calls ?? []) messages.push(new ToolMessage({ tool_call_id: call.id ?? '', content: await getCapital(String(call.args.country)) }))
  return (await turn(model, messages)).text
}

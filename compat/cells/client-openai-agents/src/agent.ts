// The agent on the OpenAI Agents SDK (@openai/agents 0.20.0): an Agent with a function tool, run streamed over
// the chat-completions model (the local provider has no Responses API route). Tracing is off: its exporter
// would post to the public API.
import { Agent, OpenAIChatCompletionsModel, run, setTracingDisabled, tool } from '@openai/agents'
import OpenAI from 'openai'
import { z } from 'zod'

setTracingDisabled(true)

export const createClient = (apiKey?: string) => new OpenAI({ baseURL: `${process.env.PROVIDER_URL}/v1`, apiKey: apiKey ?? process.env.OPENAI_API_KEY, maxRetries: 0 })
export const client = createClient()

async function getCapital(country: string): Promise<string> {
  const res = await fetch(`${process.env.PROVIDER_URL}/geo/capital?country=${encodeURIComponent(country)}`)
  if (!res.ok) throw new Error(`geo service answered ${res.status}`)
  return ((await res.json()) as { capital: string }).capital
}

const getCapitalTool = tool({ name: 'get_capital', description: '', parameters: z.object({ country: z.string() }), execute: async ({ country }) => getCapital(country) })

export async function ask(question: string, c: OpenAI = client): Promise<string> {
  const agent = new Agent({ name: 'capitals', instructions: 'Answer with the tool.', tools: [getCapitalTool], model: new OpenAIChatCompletionsModel(c, 'gpt-4o-mini') })
  const result = await run(agent, question, { stream: true, maxTurns: 2 })
  await result.completed
  return String(result.finalOutput ?? '')
}

// The agent on Mastra (@mastra/core 1.71.0): an Agent with a createTool tool, streamed, over Mastra's own
// model router pointed at an OpenAI-compatible URL (chat completions).
// (An @ai-sdk/openai 4.0.118 model does not type-check here: its LanguageModelV4 is newer than the
// @ai-sdk/provider 4.0.17 types Mastra 1.71 pins, TS2322, with or without fluxlab.)
import { Agent } from '@mastra/core/agent'
import { createTool } from '@mastra/core/tools'
import { z } from 'zod'

export const createClient = (apiKey?: string) => ({ id: 'openai/gpt-4o-mini' as const, url: `${process.env.PROVIDER_URL}/v1`, apiKey: apiKey ?? process.env.OPENAI_API_KEY, api: 'chat' as const })
export const client = createClient()

async function getCapital(country: string): Promise<string> {
  const res = await fetch(`${process.env.PROVIDER_URL}/geo/capital?country=${encodeURIComponent(country)}`)
  if (!res.ok) throw new Error(`geo service answered ${res.status}`)
  return ((await res.json()) as { capital: string }).capital
}

const getCapitalTool = createTool({
  id: 'get_capital',
  description: 'The capital of a country',
  inputSchema: z.object({ country: z.string() }),
  execute: async ({ country }) => getCapital(country),
})

export async function ask(question: string, c = client): Promise<string> {
  const agent = new Agent({ id: 'capitals', name: 'capitals', instructions: 'Answer with the tool.', model: c, tools: { get_capital: getCapitalTool } })
  const stream = await agent.stream(question, { maxSteps: 2 })
  return await stream.text
}

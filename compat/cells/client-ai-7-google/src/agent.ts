// The agent on the AI SDK (ai 7.0.173): streamText with a tool, over @ai-sdk/google's Gemini model
// (streamGenerateContent?alt=sse).
import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { stepCountIs, streamText, tool } from 'ai'
import { z } from 'zod'

export const createClient = (apiKey?: string) => createGoogleGenerativeAI({ baseURL: `${process.env.PROVIDER_URL}/v1beta`, apiKey: apiKey ?? process.env.GOOGLE_GENERATIVE_AI_API_KEY })
export const client = createClient()

async function getCapital(country: string): Promise<string> {
  const res = await fetch(`${process.env.PROVIDER_URL}/geo/capital?country=${encodeURIComponent(country)}`)
  if (!res.ok) throw new Error(`geo service answered ${res.status}`)
  return ((await res.json()) as { capital: string }).capital
}

export async function ask(question: string, c = client): Promise<string> {
  const result = streamText({
    model: c('gemini-2.0-flash'),
    prompt: question,
    tools: { get_capital: tool({ description: '', inputSchema: z.object({ country: z.string() }), execute: async ({ country }) => getCapital(country) }) },
    stopWhen: stepCountIs(2),
    onError: ({ error }) => {
      throw error
    },
  })
  const steps = await result.steps
  return steps[steps.length - 1]?.text ?? ''
}

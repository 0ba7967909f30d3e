/**
 * Shared agents and recording helpers for the what-if tests: each agent is a
 * real SDK client in a two-model-call tool loop (model#1 asks a tool, tool#1
 * runs it, model#2 answers), recorded once against the local provider server.
 */
import Anthropic from '@anthropic-ai/sdk'
import { createOpenAI } from '@ai-sdk/openai'
import { generateText, stepCountIs, streamText, tool } from 'ai'
import { scenario, type Lab, type Scenario } from 'fluxlab'
import OpenAI from 'openai'
import { expect } from 'vitest'
import { z } from 'zod'
import { anthropicBaseURL, openaiBaseURL, type ProviderServer } from '../support/index.js'
import { serve, tempDir } from '../engine/helpers.js'

/** How the agent's client is configured (the recording does not depend on it). */
export interface ClientOptions {
  maxRetries: number
  /** Client timeout in ms (OpenAI/Anthropic `timeout`; AI SDK `abortSignal: AbortSignal.timeout`). */
  timeout?: number
}

export type AgentFactory = (url: string, opts: ClientOptions) => (lab: Lab) => Promise<unknown>

/** OpenAI SDK: chat.completions streaming, multiply tool, two turns (openai-chat/test_tool_use_basic.yaml). */
export const openaiAgent: AgentFactory = (url, opts) => async (lab) => {
  const client = new OpenAI({
    baseURL: openaiBaseURL({ url }),
    apiKey: 'sk-test',
    maxRetries: opts.maxRetries,
    ...(opts.timeout ? { timeout: opts.timeout } : {}),
  })
  const multiply = lab.tool('multiply', async ({ a, b }: { a: number; b: number }, _o: { toolCallId: string }) => a * b)
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is 1231 * 2331?' }]
  const tools: OpenAI.ChatCompletionTool[] = [
    {
      type: 'function',
      function: {
        name: 'multiply',
        description: 'Multiply two numbers.',
        parameters: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } } },
      },
    },
  ]
  let text = ''
  for (let i = 0; i < 2; i++) {
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools, stream: true, stream_options: { include_usage: true } })
    const turn = { id: '', name: '', args: '' }
    text = ''
    for await (const chunk of stream) {
      const call = chunk.choices[0]?.delta.tool_calls?.[0]
      text += chunk.choices[0]?.delta.content ?? ''
      turn.id += call?.id ?? ''
      turn.name += call?.function?.name ?? ''
      turn.args += call?.function?.arguments ?? ''
    }
    if (!turn.id) break
    messages.push({ role: 'assistant', tool_calls: [{ id: turn.id, type: 'function', function: { name: turn.name, arguments: turn.args } }] })
    messages.push({ role: 'tool', tool_call_id: turn.id, content: String(await multiply(JSON.parse(turn.args), { toolCallId: turn.id })) })
  }
  return text
}

/** Anthropic SDK: messages.stream asks get_weather, messages.create answers (tool_use_response.txt + anthropic-text.json). */
export const anthropicAgent: AgentFactory = (url, opts) => async (lab) => {
  const client = new Anthropic({
    baseURL: anthropicBaseURL({ url }),
    apiKey: 'sk-ant-test',
    maxRetries: opts.maxRetries,
    ...(opts.timeout ? { timeout: opts.timeout } : {}),
  })
  const getWeather = lab.tool('get_weather', async (_args: unknown, _o: { toolCallId: string }) => '18°C')
  const ask: Anthropic.MessageParam = { role: 'user', content: 'Weather in Paris?' }
  const first = await client.messages.stream({ model: 'claude-sonnet-4-20250514', max_tokens: 1024, messages: [ask] }).finalMessage()
  const use = first.content.find((b) => b.type === 'tool_use')
  const weather = use?.type === 'tool_use' ? await getWeather(use.input, { toolCallId: use.id }) : ''
  const second = await client.messages.create({
    model: 'claude-sonnet-4-20250514',
    max_tokens: 1024,
    messages: [
      ask,
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use?.type === 'tool_use' ? use.id : '', content: String(weather) }] },
    ],
  })
  return second.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('')
}

/** AI SDK: @ai-sdk/openai chat, streamText tool loop of two steps (openai-chat/test_tool_use_basic.yaml). Stream errors are rethrown as they arrive. */
export const aiSdkAgent: AgentFactory = (url, opts) => async (lab) => {
  const provider = createOpenAI({ baseURL: openaiBaseURL({ url }), apiKey: 'sk-test' })
  const multiply = tool({ inputSchema: z.object({ a: z.number(), b: z.number() }), execute: async ({ a, b }) => a * b })
  let streamError: unknown
  const result = streamText({
    model: provider.chat('gpt-4o-mini'),
    prompt: 'What is 1231 * 2331?',
    tools: lab.tools({ multiply }),
    stopWhen: stepCountIs(2),
    maxRetries: opts.maxRetries,
    ...(opts.timeout ? { abortSignal: AbortSignal.timeout(opts.timeout) } : {}),
    onError: ({ error }) => {
      streamError ??= error
    },
  })
  let text: string
  try {
    text = await result.text
  } catch (e) {
    throw streamError ?? e
  }
  if (streamError) throw streamError
  return text
}

/**
 * AI SDK: @ai-sdk/openai chat, generateText over a three-call JSON tool chain
 * (openai-chat/test_tool_use_chain_of_two_calls.yaml). `generateText` rejects with the
 * abort reason when its `abortSignal` fires, so a timeout surfaces as an error.
 */
export const aiSdkGenerateAgent: AgentFactory = (url, opts) => async (lab) => {
  const provider = createOpenAI({ baseURL: openaiBaseURL({ url }), apiKey: 'sk-test' })
  const tools = lab.tools({
    lookup_population: tool({ inputSchema: z.object({ country: z.string() }), execute: async () => 123124 }),
    can_have_dragons: tool({ inputSchema: z.object({ population: z.number() }), execute: async () => true }),
  })
  const r = await generateText({
    model: provider.chat('gpt-4o-mini'),
    prompt: 'Can the country of Crumpet have dragons? Answer with only YES or NO',
    tools,
    stopWhen: stepCountIs(3),
    maxRetries: opts.maxRetries,
    ...(opts.timeout ? { abortSignal: AbortSignal.timeout(opts.timeout) } : {}),
  })
  return r.text
}

export const SDKS = {
  openai: {
    agent: openaiAgent,
    files: ['openai-chat/test_tool_use_basic.yaml'],
    chunking: 'events' as const,
    text: 'The result of \\( 1231 \\times 2331 \\) is \\( 2,869,461 \\).',
  },
  anthropic: {
    agent: anthropicAgent,
    files: ['anthropic/tool_use_response.txt', 'anthropic/anthropic-text.json'],
    chunking: 4,
    text: "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?",
  },
  'ai-sdk': {
    agent: aiSdkAgent,
    files: ['openai-chat/test_tool_use_basic.yaml'],
    chunking: 'bytes' as const,
    text: 'The result of \\( 1231 \\times 2331 \\) is \\( 2,869,461 \\).',
  },
}
export type SdkName = keyof typeof SDKS

export interface Recorded {
  /** The scenario reopened after recording: replay mode. */
  s: Scenario
  /** The provider server's URL (closed by now: every request must be served by fluxlab). */
  url: string
  dir: string
  server: ProviderServer
  /** Requests the server had received when recording ended. */
  hits: number
}

/**
 * Record `agent` against the local provider server serving `files`, close the
 * server, and reopen the scenario in replay mode.
 */
export async function record(
  name: string,
  files: string[],
  makeAgent: AgentFactory,
  serveOpts: { chunking?: 'events' | 'bytes' | number } = {},
): Promise<Recorded> {
  const dir = tempDir()
  const server = await serve(files, serveOpts)
  const first = await scenario(name, { dir })
  expect(first.mode).toBe('record')
  await first.run(makeAgent(server.url, { maxRetries: 0 }))
  const hits = server.hits
  await server.close()
  const s = await scenario(name, { dir })
  expect(s.mode).toBe('replay')
  return { s, url: server.url, dir, server, hits }
}

/** Record one of the SDK agents. */
export function recordSdk(sdk: SdkName): Promise<Recorded> {
  const x = SDKS[sdk]
  return record(`${sdk}-loop`, x.files, x.agent, { chunking: x.chunking })
}

/** Class name of an error (through `cause` for wrapped errors), for readable assertions. */
export const errorName = (e: unknown): string => (e as Error)?.constructor?.name ?? typeof e

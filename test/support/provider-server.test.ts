/**
 * Real, unmodified SDK clients against the local provider server, fed with recorded traffic.
 * Every expected value below is copied from the recorded data files.
 */
import Anthropic from '@anthropic-ai/sdk'
import { createAnthropic } from '@ai-sdk/anthropic'
import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { createOpenAI } from '@ai-sdk/openai'
import { generateText, stepCountIs, streamText, tool } from 'ai'
import OpenAI from 'openai'
import { afterEach, describe, expect, test } from 'vitest'
import { z } from 'zod'
import {
  aiSdkAnthropicBaseURL,
  anthropicBaseURL,
  googleBaseURL,
  loadExchanges,
  openaiBaseURL,
  splitBody,
  startProviderServer,
  type ProviderServer,
  type ProviderServerOptions,
} from './index.js'

let server: ProviderServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function start(files: string[], opts: Omit<ProviderServerOptions, 'script'> = {}): Promise<ProviderServer> {
  server = await startProviderServer({ ...opts, script: files.flatMap((f) => loadExchanges(f)) })
  return server
}
const openai = (s: ProviderServer) => new OpenAI({ baseURL: openaiBaseURL(s), apiKey: 'sk-test', maxRetries: 0 })
const anthropic = (s: ProviderServer) => new Anthropic({ baseURL: anthropicBaseURL(s), apiKey: 'sk-ant-test', maxRetries: 0 })
const user = [{ role: 'user' as const, content: 'What is 1231 * 2331?' }]

/** Concatenated `delta.content` of the OpenAI chat chunk file, computed from the data itself. */
function chatChunkText(): string {
  const { body } = loadExchanges('openai-chat/openai-text.chunks.txt')[0]
  return body
    .split('\n\n')
    .filter((e) => e.startsWith('data: {'))
    .map((e) => (JSON.parse(e.slice(6)) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta.content ?? '')
    .join('')
}

describe('openai SDK', () => {
  test.each<[string, ProviderServerOptions['chunking']]>([
    ['one write per event', 'events'],
    ['3-byte writes', 3],
  ])('streams a chat tool call and usage from test_tool_use_basic (%s)', async (_, chunking) => {
    const s = await start(['openai-chat/test_tool_use_basic.yaml'], { chunking })
    const stream = await openai(s).chat.completions.create({ model: 'gpt-4o-mini', messages: user, stream: true, stream_options: { include_usage: true } })
    let name = ''
    let args = ''
    let usage: OpenAI.CompletionUsage | undefined
    for await (const chunk of stream) {
      const call = chunk.choices[0]?.delta.tool_calls?.[0]
      name += call?.function?.name ?? ''
      args += call?.function?.arguments ?? ''
      usage = chunk.usage ?? usage
    }
    expect(name).toBe('multiply')
    expect(JSON.parse(args)).toEqual({ a: 1231, b: 2331 })
    expect(usage).toMatchObject({ prompt_tokens: 54, completion_tokens: 20, total_tokens: 74 })
    expect(s.requests[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions', json: { model: 'gpt-4o-mini', stream: true } })
  })

  test('reassembles multi-byte text from byte slices of openai-text.chunks.txt that cut a UTF-8 character', async () => {
    const { body } = loadExchanges('openai-chat/openai-text.chunks.txt')[0]
    const cutsChar = (n: number) => splitBody(body, n).some((b) => b.toString('utf8').includes('\uFFFD'))
    const size = [11, 13, 17, 19, 23, 29, 31].find(cutsChar) // larger than 'bytes' to keep 100 KB fast
    expect(size).toBeDefined()
    const s = await start(['openai-chat/openai-text.chunks.txt'], { chunking: size })
    const final = await openai(s).chat.completions.stream({ model: 'gpt-4.1-nano', messages: user }).finalChatCompletion()
    expect(final.choices[0].message.content).toBe(chatChunkText())
    expect(final.choices[0].message.content).toContain('—')
    expect(final.choices[0].message.content?.startsWith('**Holiday Name:** Harmony Day')).toBe(true)
    expect(final.usage).toMatchObject({ prompt_tokens: 16, completion_tokens: 300, total_tokens: 316 })
  })

  test('parses non-streaming chat completions, also gzip-encoded', async () => {
    const s = await start(['openai-chat/openai-text.json', 'openai-chat/test_tool_use_chain_of_two_calls.yaml'], { gzip: true })
    const text = await openai(s).chat.completions.create({ model: 'gpt-4.1-nano', messages: user })
    expect(text.id).toBe('chatcmpl-D8Z5f52zQqikDBEKQMQoYcWMcWPeU')
    expect(text.choices[0].message.content?.startsWith('**Holiday Name:** Galaxy Day')).toBe(true)
    expect(text.usage).toMatchObject({ prompt_tokens: 16, completion_tokens: 363, total_tokens: 379 })
    const call = await openai(s).chat.completions.create({ model: 'gpt-4o-mini', messages: user })
    const fn = call.choices[0].message.tool_calls?.[0]
    expect(fn?.type === 'function' && fn.function.name).toBe('lookup_population')
  })

  test('streams a Responses function call, then the final text, from test_openai_responses_stream', async () => {
    const s = await start(['openai-responses/test_openai_responses_stream.yaml'], { chunking: 5 })
    const first = await openai(s).responses.stream({ model: 'gpt-4o', input: 'What is the capital of France?' }).finalResponse()
    expect(first.output[0]).toMatchObject({
      type: 'function_call',
      name: 'get_capital',
      arguments: '{"country":"France"}',
      call_id: 'call_kL0PCQV7M2WMoVX8V8OtYSAL',
    })
    expect(first.usage).toMatchObject({ input_tokens: 255, output_tokens: 16, total_tokens: 271 })
    const deltas: string[] = []
    const stream = await openai(s).responses.create({ model: 'gpt-4o', input: 'x', stream: true })
    for await (const event of stream) if (event.type === 'response.output_text.delta') deltas.push(event.delta)
    expect(deltas.join('')).toBe('The capital of France is Paris.')
    expect(s.requests.map((r) => r.path)).toEqual(['/v1/responses', '/v1/responses'])
  })

  test('streams the simonw/llm Responses recording with its non-ASCII answer', async () => {
    const s = await start(['openai-responses/test_responses_tool_use_streaming.yaml'], { chunking: 'bytes' })
    const first = await openai(s).responses.stream({ model: 'gpt-5.5', input: 'x' }).finalResponse()
    expect(first.output.find((o) => o.type === 'function_call')).toMatchObject({ name: 'multiply', arguments: '{"a":1231,"b":2331}' })
    const second = await openai(s).responses.stream({ model: 'gpt-5.5', input: 'x' }).finalResponse()
    const message = second.output.find((o) => o.type === 'message')
    expect(message?.type === 'message' && message.content[0].type === 'output_text' && message.content[0].text).toBe('1231 × 2331 = **2,869,461**')
    expect(second.usage).toMatchObject({ input_tokens: 94, output_tokens: 18, total_tokens: 112 })
  })
})

describe('@anthropic-ai/sdk', () => {
  test.each<[string, ProviderServerOptions['chunking']]>([
    ['one write per event', 'events'],
    ['1-byte writes', 1],
  ])('messages.stream parses text, tool_use and usage from tool_use_response.txt (%s)', async (_, chunking) => {
    const s = await start(['anthropic/tool_use_response.txt'], { chunking })
    const message = await anthropic(s)
      .messages.stream({ model: 'claude-sonnet-4-20250514', max_tokens: 1024, messages: [{ role: 'user', content: 'Weather in Paris?' }] })
      .finalMessage()
    expect(message.content).toEqual([
      { type: 'text', text: "I'll check the current weather in Paris for you." },
      { type: 'tool_use', id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', name: 'get_weather', input: { location: 'Paris' } },
    ])
    expect(message.stop_reason).toBe('tool_use')
    expect(message.usage).toMatchObject({ input_tokens: 377, output_tokens: 65 })
    expect(s.requests[0]).toMatchObject({ path: '/v1/messages', headers: { authorization: 'Bearer sk-ant-test' } }) // SDK 1.x sends apiKey as a Bearer token
  })

  test('messages.create parses a text message and a nock-recorded tool_use message', async () => {
    const s = await start(['anthropic/anthropic-text.json'])
    s.queue(loadExchanges('anthropic/ToolRunner.json')[0])
    const text = await anthropic(s).messages.create({ model: 'claude-sonnet-4-0', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] })
    expect(text.content).toEqual([
      { type: 'text', text: "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?" },
    ])
    expect(text.usage).toMatchObject({ input_tokens: 12, output_tokens: 29 })
    const call = await anthropic(s).messages.create({ model: 'claude-sonnet-4-0', max_tokens: 1000, messages: [{ role: 'user', content: 'x' }] })
    expect(call.content[1]).toEqual({ type: 'tool_use', id: 'toolu_011LF2VkWpAfJnTKJcmh1PNf', name: 'test_tool', input: { value: 'test' } })
    expect(call.usage).toMatchObject({ input_tokens: 415, output_tokens: 76 })
  })
})

describe('AI SDK (ai + @ai-sdk/*)', () => {
  test('openai.chat runs a two-step tool loop over test_tool_use_basic and a generateText over openai-text.json', async () => {
    const s = await start(['openai-chat/test_tool_use_basic.yaml', 'openai-chat/openai-text.json'], { chunking: 'bytes' })
    const provider = createOpenAI({ baseURL: openaiBaseURL(s), apiKey: 'sk-test' })
    const multiply = tool({ inputSchema: z.object({ a: z.number(), b: z.number() }), execute: async ({ a, b }) => a * b })
    const result = streamText({ model: provider.chat('gpt-4o-mini'), prompt: user[0].content, tools: { multiply }, stopWhen: stepCountIs(2), maxRetries: 0 })
    expect(await result.text).toBe('The result of \\( 1231 \\times 2331 \\) is \\( 2,869,461 \\).')
    const steps = await result.steps
    expect(steps[0].toolCalls[0]).toMatchObject({ toolName: 'multiply', input: { a: 1231, b: 2331 }, toolCallId: 'call_1EYWDzueHEp8OsB8jJSEp7WB' })
    expect(steps.map((st) => st.usage.inputTokens)).toEqual([54, 87])
    expect(JSON.stringify(s.requests[1].json)).toContain('2869461')
    const text = await generateText({ model: provider.chat('gpt-4.1-nano'), prompt: 'x', maxRetries: 0 })
    expect(text.text.startsWith('**Holiday Name:** Galaxy Day')).toBe(true)
    expect(text.usage).toMatchObject({ inputTokens: 16, outputTokens: 363, totalTokens: 379 })
  })

  test('openai.responses streams the final text of test_openai_responses_stream', async () => {
    const s = await start(['openai-responses/test_openai_responses_stream.yaml'])
    const provider = createOpenAI({ baseURL: openaiBaseURL(s), apiKey: 'sk-test' })
    const getCapital = tool({ inputSchema: z.object({ country: z.string() }), execute: async () => 'Paris' })
    const result = streamText({
      model: provider.responses('gpt-4o'),
      prompt: 'What is the capital of France?',
      tools: { get_capital: getCapital },
      stopWhen: stepCountIs(2),
      maxRetries: 0,
    })
    expect(await result.text).toBe('The capital of France is Paris.')
    expect((await result.steps)[0].toolCalls[0]).toMatchObject({ toolName: 'get_capital', input: { country: 'France' } })
    expect(await result.totalUsage).toMatchObject({ inputTokens: 255 + 278, outputTokens: 16 + 9 })
  })

  test('anthropic streams a tool call from tool_use_response.txt and generates text from anthropic-text.json', async () => {
    const s = await start(['anthropic/tool_use_response.txt', 'anthropic/anthropic-text.json'], { chunking: 4 })
    const provider = createAnthropic({ baseURL: aiSdkAnthropicBaseURL(s), apiKey: 'sk-ant-test' })
    const getWeather = tool({ inputSchema: z.object({ location: z.string() }) })
    const result = streamText({ model: provider('claude-sonnet-4-20250514'), prompt: 'Weather in Paris?', tools: { get_weather: getWeather }, maxRetries: 0 })
    expect(await result.text).toBe("I'll check the current weather in Paris for you.")
    expect(await result.toolCalls).toMatchObject([{ toolCallId: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', toolName: 'get_weather', input: { location: 'Paris' } }])
    expect(await result.usage).toMatchObject({ inputTokens: 377, outputTokens: 65 })
    expect(await result.finishReason).toBe('tool-calls')
    const text = await generateText({ model: provider('claude-sonnet-4-0'), prompt: 'Hi', maxRetries: 0 })
    expect(text.text).toBe("Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?")
    expect(s.requests.map((r) => [r.path, r.headers['x-api-key']])).toEqual([
      ['/v1/messages', 'sk-ant-test'],
      ['/v1/messages', 'sk-ant-test'],
    ])
  })

  test('google runs the three-step tool loop of test_google_model_iter_stream with 1-byte writes', async () => {
    const s = await start(['gemini/test_google_model_iter_stream.yaml'], { chunking: 1 })
    const provider = createGoogleGenerativeAI({ baseURL: googleBaseURL(s), apiKey: 'test-key' })
    const tools = {
      get_capital: tool({ inputSchema: z.object({ country: z.string() }), execute: async () => 'Paris' }),
      get_temperature: tool({ inputSchema: z.object({ city: z.string() }), execute: async () => '30°C' }),
    }
    const result = streamText({
      model: provider('gemini-2.0-flash'),
      prompt: 'What is the temperature of the capital of France?',
      tools,
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    })
    expect(await result.text).toBe('The temperature in Paris is 30°C.\n')
    const steps = await result.steps
    expect(steps.map((st) => st.toolCalls.map((c) => [c.toolName, c.input]))).toEqual([
      [['get_capital', { country: 'France' }]],
      [['get_temperature', { city: 'Paris' }]],
      [],
    ])
    expect(steps.map((st) => st.usage.inputTokens)).toEqual([52, 64, 79])
    expect(s.requests.map((r) => r.path)).toEqual(Array(3).fill('/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse'))
    expect(s.requests[0].headers['x-goog-api-key']).toBe('test-key')
  })

  test('google generates from google-text.json and streams google-text.chunks.txt', async () => {
    const s = await start(['gemini/google-text.json', 'gemini/google-text.chunks.txt'], { chunking: 'bytes' })
    const provider = createGoogleGenerativeAI({ baseURL: googleBaseURL(s), apiKey: 'test-key' })
    const text = await generateText({ model: provider('gemini-3-pro-preview'), prompt: 'x', maxRetries: 0 })
    expect(text.text).toBe("There are **3** r's in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.")
    expect(text.usage).toMatchObject({ inputTokens: 9, totalTokens: 281, reasoningTokens: 244 })
    const stream = streamText({ model: provider('gemini-3-pro-preview'), prompt: 'x', maxRetries: 0 })
    expect(await stream.text).toBe('There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y')
    expect(await stream.usage).toMatchObject({ inputTokens: 9, totalTokens: 217, reasoningTokens: 185 })
  })
})

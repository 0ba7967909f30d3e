/**
 * Real, unmodified SDK clients: record a multi-step exchange against the local
 * provider server, close it, replay from the fixture, and compare what the
 * client parsed. Every expected value is copied from the recorded traffic files.
 */
import Anthropic from '@anthropic-ai/sdk'
import { createAnthropic } from '@ai-sdk/anthropic'
import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { createOpenAI } from '@ai-sdk/openai'
import { generateText, stepCountIs, streamText, tool } from 'ai'
import OpenAI from 'openai'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { aiSdkAnthropicBaseURL, anthropicBaseURL, googleBaseURL, openaiBaseURL } from '../support/index.js'
import type { Lab } from 'fluxlab'
import { recordThenReplay, serve, useEngineSandbox, type RecordReplay } from './helpers.js'

useEngineSandbox()

const usage = (input: number, output: number, more: { cacheRead?: number; reasoning?: number } = {}) => ({
  input,
  output,
  cacheRead: more.cacheRead ?? 0,
  cacheWrite: 0,
  reasoning: more.reasoning ?? 0,
})

/** The replay answered everything from tape, exactly as recorded. */
function expectFaithful<R>(rr: RecordReplay<R>, modelCalls: number): void {
  expect(rr.recordHits).toBe(modelCalls)
  expect(rr.replayHits).toBe(0)
  expect(rr.recorded.hermetic).toBe(false)
  expect(rr.replayed.hermetic).toBe(true)
  expect(rr.recorded.divergences).toEqual([])
  expect(rr.replayed.divergences).toEqual([])
  expect(rr.replayed.result).toEqual(rr.recorded.result)
  expect(rr.replayed.modelCalls).toEqual(rr.recorded.modelCalls)
  expect(rr.replayed.modelCalls).toHaveLength(modelCalls)
}

const multiplyTool: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'multiply',
    description: 'Multiply two numbers.',
    parameters: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } } },
  },
}

describe('openai SDK', () => {
  test('chat.completions streams a tool call, then the answer, identically in replay', async () => {
    const server = await serve(['openai-chat/test_tool_use_basic.yaml'])
    const agent = async (lab: Lab) => {
      const client = new OpenAI({ baseURL: openaiBaseURL(server), apiKey: 'sk-test', maxRetries: 0 })
      const multiply = lab.tool('multiply', async ({ a, b }: { a: number; b: number }, _opts: { toolCallId: string }) => a * b)
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is 1231 * 2331?' }]
      const turns = []
      for (let i = 0; i < 2; i++) {
        const stream = await client.chat.completions.create({
          model: 'gpt-4o-mini',
          messages,
          tools: [multiplyTool],
          stream: true,
          stream_options: { include_usage: true },
        })
        const turn = { text: '', id: '', name: '', args: '', usage: undefined as OpenAI.CompletionUsage | undefined }
        for await (const chunk of stream) {
          const call = chunk.choices[0]?.delta.tool_calls?.[0]
          turn.text += chunk.choices[0]?.delta.content ?? ''
          turn.id += call?.id ?? ''
          turn.name += call?.function?.name ?? ''
          turn.args += call?.function?.arguments ?? ''
          turn.usage = chunk.usage ?? turn.usage
        }
        turns.push(turn)
        if (turn.id) {
          messages.push({ role: 'assistant', tool_calls: [{ id: turn.id, type: 'function', function: { name: turn.name, arguments: turn.args } }] })
          messages.push({ role: 'tool', tool_call_id: turn.id, content: String(await multiply(JSON.parse(turn.args), { toolCallId: turn.id })) })
        }
      }
      return turns
    }
    const rr = await recordThenReplay('openai-chat-stream', server, agent)
    expectFaithful(rr, 2)
    const [first, second] = rr.replayed.result
    expect([first.id, first.name, JSON.parse(first.args)]).toEqual(['call_1EYWDzueHEp8OsB8jJSEp7WB', 'multiply', { a: 1231, b: 2331 }])
    expect(first.usage).toMatchObject({ prompt_tokens: 54, completion_tokens: 20, total_tokens: 74 })
    expect(second.text).toBe('The result of \\( 1231 \\times 2331 \\) is \\( 2,869,461 \\).')
    expect(second.usage).toMatchObject({ prompt_tokens: 87, completion_tokens: 26, total_tokens: 113 })
    expect(rr.replayed.modelCalls).toMatchObject([
      { step: 'model#1', family: 'openai-chat', model: 'gpt-4o-mini-2024-07-18', finishReason: 'tool_calls', usage: usage(54, 20) },
      { step: 'model#2', model: 'gpt-4o-mini-2024-07-18', toolCalls: [], usage: usage(87, 26), text: second.text },
    ])
    expect(rr.replayed.modelCalls[0].toolCalls).toEqual([{ id: 'call_1EYWDzueHEp8OsB8jJSEp7WB', name: 'multiply', args: { a: 1231, b: 2331 } }])
    expect(rr.replayed.usage).toMatchObject({ input: 141, output: 46 })
    expect(rr.replayed.calls).toEqual([
      { name: 'multiply', id: 'call_1EYWDzueHEp8OsB8jJSEp7WB', args: { a: 1231, b: 2331 }, requestedAt: 'model#1', executedAt: 'tool#1 multiply' },
    ])
  })

  test('chat.completions without streaming replays a three-step tool chain', async () => {
    const server = await serve(['openai-chat/test_tool_use_chain_of_two_calls.yaml'])
    const agent = async (lab: Lab) => {
      const tools = lab.tools({ lookup_population: async () => 123124, can_have_dragons: async () => true }) as Record<
        string,
        (args: unknown, o: { toolCallId: string }) => Promise<unknown>
      >
      const client = new OpenAI({ baseURL: openaiBaseURL(server), apiKey: 'sk-test', maxRetries: 0 })
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Can the country of Crumpet have dragons? Answer with only YES or NO' }]
      const turns = []
      for (let i = 0; i < 3; i++) {
        const res = await client.chat.completions.create({ model: 'gpt-4o-mini', messages })
        const msg = res.choices[0].message
        const calls = (msg.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [{ id: c.id, name: c.function.name, args: c.function.arguments }] : []))
        turns.push({ content: msg.content, calls, usage: res.usage })
        messages.push(msg)
        for (const c of calls)
          messages.push({ role: 'tool', tool_call_id: c.id, content: String(await tools[c.name](JSON.parse(c.args), { toolCallId: c.id })) })
      }
      return turns
    }
    const rr = await recordThenReplay('openai-chat-json', server, agent)
    expectFaithful(rr, 3)
    expect(rr.replayed.result.map((t) => t.calls)).toEqual([
      [{ id: 'call_TTY8UFNo7rNCaOBUNtlRSvMG', name: 'lookup_population', args: '{"country":"Crumpet"}' }],
      [{ id: 'call_aq9UyiSFkzX6W8Ydc33DoI9Y', name: 'can_have_dragons', args: '{"population":123124}' }],
      [],
    ])
    expect(rr.replayed.result[2].content).toBe('YES')
    expect(rr.replayed.modelCalls.map((c) => [c.usage, c.toolCalls.map((t) => t.name), c.model])).toEqual([
      [usage(92, 17), ['lookup_population'], 'gpt-4o-mini-2024-07-18'],
      [usage(118, 18), ['can_have_dragons'], 'gpt-4o-mini-2024-07-18'],
      [usage(146, 3), [], 'gpt-4o-mini-2024-07-18'],
    ])
    expect(rr.replayed.text).toBe('YES')
    expect(rr.replayed.calls.map((c) => [c.name, c.requestedAt, c.executedAt])).toEqual([
      ['lookup_population', 'model#1', 'tool#1 lookup_population'],
      ['can_have_dragons', 'model#2', 'tool#2 can_have_dragons'],
    ])
  })

  test('responses streams a function call, then the final text, identically in replay', async () => {
    const server = await serve(['openai-responses/test_openai_responses_stream.yaml'])
    const agent = async (lab: Lab) => {
      const getCapital = lab.tool('get_capital', async (_args: { country: string }, _o: { toolCallId: string }) => 'Paris')
      const client = new OpenAI({ baseURL: openaiBaseURL(server), apiKey: 'sk-test', maxRetries: 0 })
      const first = await client.responses.stream({ model: 'gpt-4o', input: 'What is the capital of France?' }).finalResponse()
      const call = first.output.find((o) => o.type === 'function_call')
      const output = call?.type === 'function_call' ? await getCapital(JSON.parse(call.arguments), { toolCallId: call.call_id }) : ''
      const deltas: string[] = []
      let final: OpenAI.Responses.ResponseUsage | undefined
      const stream = await client.responses.create({
        model: 'gpt-4o',
        input: [
          { role: 'user', content: 'What is the capital of France?' },
          { type: 'function_call_output', call_id: call?.type === 'function_call' ? call.call_id : '', output },
        ],
        stream: true,
      })
      for await (const e of stream) {
        if (e.type === 'response.output_text.delta') deltas.push(e.delta)
        if (e.type === 'response.completed') final = e.response.usage
      }
      return { call, firstUsage: first.usage, deltas, final }
    }
    const rr = await recordThenReplay('openai-responses-stream', server, agent)
    expectFaithful(rr, 2)
    const { call, firstUsage, deltas, final } = rr.replayed.result
    expect(call).toMatchObject({ type: 'function_call', name: 'get_capital', arguments: '{"country":"France"}', call_id: 'call_kL0PCQV7M2WMoVX8V8OtYSAL' })
    expect(firstUsage).toMatchObject({ input_tokens: 255, output_tokens: 16, total_tokens: 271 })
    expect(deltas.join('')).toBe('The capital of France is Paris.')
    expect(final).toMatchObject({ input_tokens: 278, output_tokens: 9 })
    expect(rr.replayed.modelCalls.map((c) => [c.family, c.usage, c.toolCalls])).toEqual([
      ['openai-responses', usage(255, 16), [{ id: 'call_kL0PCQV7M2WMoVX8V8OtYSAL', name: 'get_capital', args: { country: 'France' } }]],
      ['openai-responses', usage(278, 9), []],
    ])
  })
})

describe('@anthropic-ai/sdk', () => {
  test('messages.stream then messages.create replay the tool_use and the answer', async () => {
    const server = await serve(['anthropic/tool_use_response.txt', 'anthropic/anthropic-text.json'], { chunking: 4 })
    const agent = async (lab: Lab) => {
      const getWeather = lab.tool('get_weather', async (_args: unknown, _o: { toolCallId: string }) => '18°C')
      const client = new Anthropic({ baseURL: anthropicBaseURL(server), apiKey: 'sk-ant-test', maxRetries: 0 })
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
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use?.type === 'tool_use' ? use.id : '', content: weather }] },
        ],
      })
      return { first: { content: first.content, usage: first.usage, stop: first.stop_reason }, second: { content: second.content, usage: second.usage } }
    }
    const rr = await recordThenReplay('anthropic-sdk', server, agent)
    expectFaithful(rr, 2)
    const { first, second } = rr.replayed.result
    expect(first.content).toEqual([
      { type: 'text', text: "I'll check the current weather in Paris for you." },
      { type: 'tool_use', id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', name: 'get_weather', input: { location: 'Paris' } },
    ])
    expect([first.stop, first.usage.input_tokens, first.usage.output_tokens]).toEqual(['tool_use', 377, 65])
    expect(second.content).toEqual([
      { type: 'text', text: "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?" },
    ])
    expect([second.usage.input_tokens, second.usage.output_tokens]).toEqual([12, 29])
    expect(rr.replayed.modelCalls.map((c) => [c.family, c.model, c.usage, c.toolCalls])).toEqual([
      ['anthropic', 'claude-sonnet-4-20250514', usage(377, 65), [{ id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', name: 'get_weather', args: { location: 'Paris' } }]],
      ['anthropic', 'claude-sonnet-4-5-20250929', usage(12, 29), []],
    ])
  })
})

describe('AI SDK (ai + @ai-sdk/*)', () => {
  /** What an AI SDK run exposes: per-step tool calls and usage, and the text. */
  const summary = async (result: {
    text: PromiseLike<string>
    steps: PromiseLike<
      Array<{ toolCalls: Array<{ toolCallId: string; toolName: string; input: unknown }>; usage: { inputTokens?: number; outputTokens?: number } }>
    >
  }) => ({
    text: await result.text,
    steps: (await result.steps).map((s) => ({
      calls: s.toolCalls.map((c) => [c.toolCallId, c.toolName, c.input]),
      usage: [s.usage.inputTokens, s.usage.outputTokens],
    })),
  })

  test('@ai-sdk/openai streamText runs a tool loop and generateText a completion, identically in replay', async () => {
    const server = await serve(['openai-chat/test_tool_use_basic.yaml', 'openai-chat/openai-text.json'], { chunking: 'bytes' })
    const agent = async (lab: Lab) => {
      const provider = createOpenAI({ baseURL: openaiBaseURL(server), apiKey: 'sk-test' })
      const multiply = tool({ inputSchema: z.object({ a: z.number(), b: z.number() }), execute: async ({ a, b }) => a * b })
      const loop = await summary(
        streamText({
          model: provider.chat('gpt-4o-mini'),
          prompt: 'What is 1231 * 2331?',
          tools: lab.tools({ multiply }),
          stopWhen: stepCountIs(2),
          maxRetries: 0,
        }),
      )
      const gen = await generateText({ model: provider.chat('gpt-4.1-nano'), prompt: 'Invent a holiday.', maxRetries: 0 })
      return { loop, gen: { text: gen.text, usage: [gen.usage.inputTokens, gen.usage.outputTokens] } }
    }
    const rr = await recordThenReplay('ai-sdk-openai', server, agent)
    expectFaithful(rr, 3)
    const { loop, gen } = rr.replayed.result
    expect(loop.text).toBe('The result of \\( 1231 \\times 2331 \\) is \\( 2,869,461 \\).')
    expect(loop.steps).toEqual([
      { calls: [['call_1EYWDzueHEp8OsB8jJSEp7WB', 'multiply', { a: 1231, b: 2331 }]], usage: [54, 20] },
      { calls: [], usage: [87, 26] },
    ])
    expect(gen.text.startsWith('**Holiday Name:** Galaxy Day')).toBe(true)
    expect(gen.usage).toEqual([16, 363])
    expect(rr.replayed.modelCalls.map((c) => [c.model, c.usage])).toEqual([
      ['gpt-4o-mini-2024-07-18', usage(54, 20)],
      ['gpt-4o-mini-2024-07-18', usage(87, 26)],
      ['gpt-4.1-nano-2025-04-14', usage(16, 363)],
    ])
  })

  test('@ai-sdk/anthropic streamText reports the tool call and generateText the answer, identically in replay', async () => {
    const server = await serve(['anthropic/tool_use_response.txt', 'anthropic/anthropic-text.json'], { chunking: 4 })
    const agent = async (lab: Lab) => {
      const provider = createAnthropic({ baseURL: aiSdkAnthropicBaseURL(server), apiKey: 'sk-ant-test' })
      const getWeather = tool({ inputSchema: z.object({ location: z.string() }), execute: async () => '18°C' })
      const stream = await summary(
        streamText({ model: provider('claude-sonnet-4-20250514'), prompt: 'Weather in Paris?', tools: lab.tools({ get_weather: getWeather }), maxRetries: 0 }),
      )
      const gen = await generateText({ model: provider('claude-sonnet-4-0'), prompt: 'Hi', maxRetries: 0 })
      return { stream, gen: gen.text }
    }
    const rr = await recordThenReplay('ai-sdk-anthropic', server, agent)
    expectFaithful(rr, 2)
    expect(rr.replayed.result.stream).toEqual({
      text: "I'll check the current weather in Paris for you.",
      steps: [{ calls: [['toolu_01NRLabsLyVHZPKxbKvkfSMn', 'get_weather', { location: 'Paris' }]], usage: [377, 65] }],
    })
    expect(rr.replayed.result.gen).toBe("Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?")
    expect(rr.replayed.modelCalls.map((c) => [c.family, c.usage, c.toolCalls.map((t) => t.id)])).toEqual([
      ['anthropic', usage(377, 65), ['toolu_01NRLabsLyVHZPKxbKvkfSMn']],
      ['anthropic', usage(12, 29), []],
    ])
  })

  test('@ai-sdk/google streamText over alt=sse replays a three-step tool loop', async () => {
    const server = await serve(['gemini/test_google_model_iter_stream.yaml'], { chunking: 'bytes' })
    const agent = async (lab: Lab) => {
      const provider = createGoogleGenerativeAI({ baseURL: googleBaseURL(server), apiKey: 'test-key' })
      const tools = lab.tools({
        get_capital: tool({ inputSchema: z.object({ country: z.string() }), execute: async () => 'Paris' }),
        get_temperature: tool({ inputSchema: z.object({ city: z.string() }), execute: async () => '30°C' }),
      })
      const result = streamText({
        model: provider('gemini-2.0-flash'),
        prompt: 'What is the temperature of the capital of France?',
        tools,
        stopWhen: stepCountIs(3),
        maxRetries: 0,
      })
      const s = await summary(result)
      return { text: s.text, steps: s.steps.map((st) => ({ calls: st.calls.map(([, name, input]) => [name, input]), usage: st.usage })) }
    }
    const rr = await recordThenReplay('ai-sdk-google', server, agent)
    expectFaithful(rr, 3)
    expect(rr.replayed.result).toEqual({
      text: 'The temperature in Paris is 30°C.\n',
      steps: [
        { calls: [['get_capital', { country: 'France' }]], usage: [52, 5] },
        { calls: [['get_temperature', { city: 'Paris' }]], usage: [64, 5] },
        { calls: [], usage: [79, 12] },
      ],
    })
    expect(rr.replayed.modelCalls.map((c) => [c.family, c.model, c.usage, c.toolCalls.map((t) => [t.name, t.args])])).toEqual([
      ['gemini', 'gemini-2.0-flash', usage(52, 5), [['get_capital', { country: 'France' }]]],
      ['gemini', 'gemini-2.0-flash', usage(64, 5), [['get_temperature', { city: 'Paris' }]]],
      ['gemini', 'gemini-2.0-flash', usage(79, 12), []],
    ])
    expect(rr.replayed.text).toBe('The temperature in Paris is 30°C.\n')
  })
})

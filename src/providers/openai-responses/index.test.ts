import { describe, expect, it } from 'vitest'
import { openaiResponsesCodec as codec } from './index.js'
import { chunksToSse, loadExchanges, readTraffic, splitChunks, truncate, type RecordedExchange } from '../test-helpers.js'

const url = new URL('https://api.openai.com/v1/responses')
const parse = (e: RecordedExchange) => codec.parseResponse(e.responseBody, e.contentType, e.status, e.url)
const reasoningSteps = () => splitChunks(readTraffic('openai-responses/openai-reasoning-encrypted-content.1.chunks.txt'), 'response.created')

describe('openai-responses detect', () => {
  it('accepts POST …/responses only', () => {
    expect(codec.detect('POST', url)).toBe(true)
    expect(codec.detect('post', new URL('https://r.openai.azure.com/openai/v1/responses'))).toBe(true)
    expect(codec.detect('GET', url)).toBe(false)
    expect(codec.detect('POST', new URL('https://api.openai.com/v1/responses/resp_1/cancel'))).toBe(false)
    expect(codec.detect('POST', new URL('https://api.openai.com/v1/chat/completions'))).toBe(false)
  })
})

describe('openai-responses parseResponse', () => {
  it('reads a function_call item of a JSON response, by call_id', () => {
    const r = parse(loadExchanges('openai-responses/test_openai_responses_model_simple_response_with_tool_call.yaml')[0])
    expect(r.toolCalls).toEqual([{ id: 'call_YfwRsW8sUxDKipwyhWTzOXCA', name: 'get_capital', args: { country: 'PotatoLand' } }])
    expect(r.usage).toEqual({ input: 40, output: 18, cacheRead: 0, cacheWrite: 0, reasoning: 0 })
    expect(r.model).toBe('gpt-4o-2024-08-06')
    expect(r.finishReason).toBe('completed')
  })

  it('reads the message text of a JSON response and skips reasoning items', () => {
    const r = codec.parseResponse(readTraffic('openai-responses/openai-reasoning-encrypted-content.1.json'), 'application/json', 200, url)
    expect(r.text).toBe('12 + 7 = 19\n19 × 3 = 57\n57 × 10 = 570\n\nFinal result: 570')
    expect(r.usage).toEqual({ input: 865, output: 163, cacheRead: 0, cacheWrite: 0, reasoning: 128 })
  })

  it('reads five parallel calls of one response', () => {
    const r = parse(loadExchanges('openai-responses/test_responses_interleaved_reasoning_between_tool_calls.yaml')[3])
    expect(r.toolCalls.map((c) => c.args)).toEqual([
      { key: 'begin' },
      { key: 'value' },
      { key: 'the value 7' },
      { key: 'Begin with the value 7.' },
      { key: 'start2' },
    ])
    expect(r.toolCalls[0].id).toBe('call_WbWwKw4J6EXQ7Sn93fgmuZe3')
    expect(r.usage.reasoning).toBe(17)
  })

  it('reads a streamed tool call and the streamed answer after it', () => {
    const [call, answer] = loadExchanges('openai-responses/test_responses_tool_use_streaming.yaml').map(parse)
    expect(call.toolCalls).toEqual([{ id: 'call_sVidsfFJ6zlzRpelrPkTPlpd', name: 'multiply', args: { a: 1231, b: 2331 } }])
    expect(call.usage).toEqual({ input: 58, output: 23, cacheRead: 0, cacheWrite: 0, reasoning: 0 })
    expect(answer.text).toBe('1231 × 2331 = **2,869,461**')
    expect(answer.model).toBe('gpt-5.5-2026-04-23')
  })

  it('reads a rebuilt stream the same with and without event lines', () => {
    const step = reasoningSteps()[0]
    const withEvents = codec.parseResponse(chunksToSse(step, { events: true }), 'text/event-stream', 200, url)
    const dataOnly = codec.parseResponse(chunksToSse(step), 'text/event-stream', 200, url)
    expect(withEvents).toEqual(dataOnly)
    expect(withEvents.toolCalls).toEqual([{ id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn', name: 'calculator', args: { a: 12, b: 7, op: 'add' } }])
    expect(withEvents.usage).toEqual({ input: 134, output: 28, cacheRead: 0, cacheWrite: 0, reasoning: 0 })
  })

  it('keeps reasoning summaries out of the text', () => {
    const step = reasoningSteps()[0]
    expect(step).toContain('"type":"response.reasoning_summary_text.delta"')
    expect(codec.parseResponse(chunksToSse(step), undefined, 200, url).text).toBe('')
  })

  it('reads each of four recorded steps of an agent loop', () => {
    const results = reasoningSteps().map((s) => codec.parseResponse(chunksToSse(s, { events: true }), 'text/event-stream', 200, url))
    expect(results.map((r) => r.toolCalls.map((c) => c.args))).toEqual([
      [{ a: 12, b: 7, op: 'add' }],
      [{ a: 19, b: 3, op: 'multiply' }],
      [{ a: 57, b: 10, op: 'multiply' }],
      [],
    ])
    expect(results[3].text).toBe('The final result is **570**.')
    expect(results.map((r) => r.usage.input)).toEqual([134, 221, 260, 299])
  })

  it('reads cached and reasoning tokens as parts of input and output', () => {
    const r = codec.parseResponse(chunksToSse(readTraffic('openai-responses/openai-web-search-tool.1.chunks.txt')), 'text/event-stream', 200, url)
    expect(r.usage).toEqual({ input: 31073, output: 4416, cacheRead: 3712, cacheWrite: 0, reasoning: 3712 })
    expect(r.text.startsWith('I checked today’s tech headlines (today = December 5, 2025)')).toBe(true)
    expect(r.toolCalls).toEqual([])
  })

  it('reports a mid-stream error event and the failed status', () => {
    const r = codec.parseResponse(chunksToSse(readTraffic('errors/openai-error.1.chunks.txt'), { events: true }), 'text/event-stream', 200, url)
    expect(r.error?.type).toBe('insufficient_quota')
    expect(r.error?.message.startsWith('You exceeded your current quota')).toBe(true)
    expect(r.finishReason).toBe('failed')
    expect(r.model).toBe('gpt-5-nano-2025-08-07')
  })

  it('reports an error body', () => {
    const r = parse(loadExchanges('errors/test_openai_responses_model_http_error.yaml')[0])
    expect(r.error).toEqual({
      type: 'invalid_request_error',
      message: "Invalid 'temperature': decimal below minimum value. Expected a value >= 0, but got -1 instead.",
    })
  })

  it('rebuilds a tool call from its deltas when the stream ends before response.completed', () => {
    const e = loadExchanges('openai-responses/test_openai_responses_stream.yaml')[0]
    const r = codec.parseResponse(e.responseBody.slice(0, e.responseBody.indexOf('event: response.completed')), e.contentType, 200, url)
    expect(r.toolCalls).toEqual([{ id: 'call_kL0PCQV7M2WMoVX8V8OtYSAL', name: 'get_capital', args: { country: 'France' } }])
    expect(r.usage.input).toBe(0)
    expect(r.finishReason).toBeUndefined()
    expect(r.model).toBe('gpt-4o-2024-08-06')
  })

  it('keeps the text that arrived before a stream was cut', () => {
    const e = loadExchanges('openai-responses/test_openai_responses_stream.yaml')[1]
    const full = parse(e).text
    expect(full).toBe('The capital of France is Paris.')
    const cut = codec.parseResponse(truncate(e.responseBody, 0.6), e.contentType, 200, url)
    expect(cut.text.length).toBeGreaterThan(0)
    expect(full.startsWith(cut.text)).toBe(true)
    expect(cut.error).toBeUndefined()
  })

  it('returns an error instead of throwing on garbage', () => {
    expect(codec.parseResponse('\u0000\u0001garbage', undefined, 200, url).error?.type).toBe('parse_error')
  })
})

describe('openai-responses parseRequest', () => {
  it('reads model, stream, tools and function_call_output ids', () => {
    const r = codec.parseRequest(loadExchanges('openai-responses/test_responses_tool_use_streaming.yaml')[1].requestBody, url)
    expect(r).toEqual({ model: 'gpt-5.5', stream: true, system: undefined, tools: ['multiply'], toolResults: [{ id: 'call_sVidsfFJ6zlzRpelrPkTPlpd' }] })
  })

  it('reads call ids exactly as the request sends them', () => {
    // pydantic-ai (2025-03) sent the item id `fc_…` back as `call_id`.
    const r = codec.parseRequest(loadExchanges('openai-responses/test_openai_responses_stream.yaml')[1].requestBody, url)
    expect(r.toolResults).toEqual([{ id: 'fc_67e554a1de488191af0831d35cbe082e0794405d35281ae2' }])
    expect(r.system).toBeUndefined()
  })

  it('joins instructions and system/developer input items into the system prompt', () => {
    const body = loadExchanges('openai-responses/test_tool_choice_matrix[auto-openai_responses].yaml')[0].requestBody as Record<string, unknown>
    const input = [{ role: 'developer', content: [{ type: 'input_text', text: 'Answer in French.' }] }, ...(body.input as unknown[])]
    const r = codec.parseRequest({ ...body, instructions: 'Be brief.', input }, url)
    expect(r.system).toBe('Be brief.\n\nAnswer in French.')
    expect(r.tools).toEqual(['get_weather'])
  })
})

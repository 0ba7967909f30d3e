import { describe, expect, it } from 'vitest'
import { openaiChatCodec as codec } from './index.js'
import { chunksToSse, loadExchanges, readTraffic, truncate, type RecordedExchange } from '../test-helpers.js'

const url = new URL('https://api.openai.com/v1/chat/completions')
const parse = (e: RecordedExchange) => codec.parseResponse(e.responseBody, e.contentType, e.status, e.url)
const request = (e: RecordedExchange) => codec.parseRequest(e.requestBody, e.url)

describe('openai-chat detect', () => {
  it('accepts chat and legacy completions paths of OpenAI and its compatible twins', () => {
    for (const u of [
      'https://api.openai.com/v1/chat/completions',
      'https://api.openai.com/v1/completions',
      'https://api.groq.com/openai/v1/chat/completions',
      'https://openrouter.ai/api/v1/chat/completions',
      'http://127.0.0.1:11434/v1/chat/completions',
      'https://my-res.openai.azure.com/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21',
    ])
      expect(codec.detect('POST', new URL(u)), u).toBe(true)
  })

  it('rejects other methods and paths', () => {
    expect(codec.detect('GET', url)).toBe(false)
    expect(codec.detect('POST', new URL('https://api.openai.com/v1/models'))).toBe(false)
    expect(codec.detect('POST', new URL('https://api.openai.com/v1/responses'))).toBe(false)
    expect(codec.detect('POST', new URL('https://api.openai.com/v1/chat/completions/chatcmpl-1/messages'))).toBe(false)
  })
})

describe('openai-chat parseResponse', () => {
  it('reads text, model, finish reason and final usage from a rebuilt stream', () => {
    const sse = chunksToSse(readTraffic('openai-chat/openai-text.chunks.txt'), { done: true })
    const r = codec.parseResponse(sse, 'text/event-stream', 200, url)
    expect(r.text.startsWith('**Holiday Name:** Harmony Day\n\n**Date:** Celebrate')).toBe(true)
    expect(r.text.endsWith('ed human experiences and mutual respect.')).toBe(true)
    expect(r.model).toBe('gpt-4.1-nano-2025-04-14')
    expect(r.finishReason).toBe('stop')
    expect(r.usage).toEqual({ input: 16, output: 300, cacheRead: 0, cacheWrite: 0, reasoning: 0 })
    expect(r.error).toBeUndefined()
  })

  it('reads a non-streaming completion body', () => {
    const r = codec.parseResponse(readTraffic('openai-chat/openai-text.json'), 'application/json', 200, url)
    expect(r.text.startsWith('**Holiday Name:** Galaxy Day')).toBe(true)
    expect(r.text.endsWith('inspiring individuals to look up and dream beyond our world.')).toBe(true)
    expect(r.usage).toEqual({ input: 16, output: 363, cacheRead: 0, cacheWrite: 0, reasoning: 0 })
    expect(r.toolCalls).toEqual([])
  })

  it('assembles a streamed tool call from argument pieces keyed by index', () => {
    const r = parse(loadExchanges('openai-chat/test_tool_use_basic.yaml')[0])
    expect(r.toolCalls).toEqual([{ id: 'call_1EYWDzueHEp8OsB8jJSEp7WB', name: 'multiply', args: { a: 1231, b: 2331 } }])
    expect(r.text).toBe('')
    expect(r.finishReason).toBe('tool_calls')
    expect(r.usage).toEqual({ input: 54, output: 20, cacheRead: 0, cacheWrite: 0, reasoning: 0 })
  })

  it('reads the streamed answer after a tool result', () => {
    const r = parse(loadExchanges('openai-chat/test_run_stream_sync_streams_real_model.yaml')[1])
    expect(r.text).toBe('The capital of the UK is London.')
    expect(r.usage.input).toBe(78)
    expect(r.usage.output).toBe(9)
  })

  it('returns parallel tool calls in order with their ids and parsed args', () => {
    const r = parse(loadExchanges('openai-chat/TestOpenAINativeToolCalling.test_openai_parallel_native_tool_calling_test_agent_kickoff.yaml')[0])
    expect(r.toolCalls).toEqual([
      { id: 'call_kz1qLLRsugXwWiQMeH9oFAep', name: 'parallel_local_search_one', args: { query: 'latest OpenAI model release notes' } },
      { id: 'call_yNouGq1Kv6P5W9fhTng6acZi', name: 'parallel_local_search_two', args: { query: 'latest Anthropic model release notes' } },
      { id: 'call_O7MqnuniDmyT6a0BS31GTunB', name: 'parallel_local_search_three', args: { query: 'latest Gemini model release notes' } },
    ])
    expect(r.usage).toEqual({ input: 259, output: 78, cacheRead: 0, cacheWrite: 0, reasoning: 0 })
  })

  it('counts reasoning tokens as part of output', () => {
    const r = parse(loadExchanges('openai-chat/test_tool_choice_matrix[auto-openai].yaml')[1])
    expect(r.usage).toEqual({ input: 167, output: 171, cacheRead: 0, cacheWrite: 0, reasoning: 128 })
    expect(r.text.startsWith("It's sunny in Paris right now, about 22°C")).toBe(true)
    expect(r.model).toBe('gpt-5-mini-2025-08-07')
  })

  it('reads gzip-recorded bodies of a three-step chain', () => {
    const [first, second, third] = loadExchanges('openai-chat/test_tool_use_chain_of_two_calls.yaml').map(parse)
    expect(first.toolCalls).toEqual([{ id: 'call_TTY8UFNo7rNCaOBUNtlRSvMG', name: 'lookup_population', args: { country: 'Crumpet' } }])
    expect(second.toolCalls).toEqual([{ id: 'call_aq9UyiSFkzX6W8Ydc33DoI9Y', name: 'can_have_dragons', args: { population: 123124 } }])
    expect(third.text).toBe('YES')
    expect(third.finishReason).toBe('stop')
  })

  it('keeps what arrived before a stream was cut, without throwing', () => {
    const e = loadExchanges('openai-chat/test_run_stream_sync_streams_real_model.yaml')[1]
    const r = codec.parseResponse(truncate(e.responseBody, 0.5), e.contentType, 200, url)
    expect(r.text.length).toBeGreaterThan(0)
    expect(r.text.length).toBeLessThan('The capital of the UK is London.'.length)
    expect('The capital of the UK is London.'.startsWith(r.text)).toBe(true)
    expect(r.finishReason).toBeUndefined()
  })

  it('leaves cut tool-call arguments as the raw string', () => {
    const e = loadExchanges('openai-chat/test_tool_use_basic.yaml')[0]
    const cut = e.responseBody.slice(0, e.responseBody.indexOf('"arguments":"123"'))
    const r = codec.parseResponse(cut, e.contentType, 200, url)
    expect(r.toolCalls).toEqual([{ id: 'call_1EYWDzueHEp8OsB8jJSEp7WB', name: 'multiply', args: '{"a":' }])
  })

  it('reports an error event sent mid-stream with the text before it', () => {
    const e = loadExchanges('openai-chat/test_run_stream_sync_streams_real_model.yaml')[1]
    const cut = e.responseBody.slice(0, e.responseBody.indexOf('data: ', e.responseBody.indexOf('" UK"')))
    const body = `${cut}data: {"error":{"message":"The server had an error while processing your request.","type":"server_error"}}\n\n`
    const r = codec.parseResponse(body, e.contentType, 200, url)
    expect(r.text).toBe('The capital of the UK')
    expect(r.error).toEqual({ type: 'server_error', message: 'The server had an error while processing your request.' })
  })

  it('reports an OpenAI error body', () => {
    const e = loadExchanges('errors/test_openai_responses_model_http_error.yaml')[0]
    const r = codec.parseResponse(e.responseBody, e.contentType, e.status, url)
    expect(e.status).toBe(400)
    expect(r.error?.type).toBe('invalid_request_error')
    expect(r.error?.message.startsWith("Invalid 'temperature': decimal below minimum value.")).toBe(true)
    expect(r.text).toBe('')
  })

  it('returns an error instead of throwing on an unreadable body', () => {
    for (const body of ['<html>Bad gateway</html>', '', '{"choices":', 'data: {"id":\n\n']) {
      const r = codec.parseResponse(body, 'text/html', 200, url)
      expect(r.error?.type, body).toBe('parse_error')
      expect(r.toolCalls).toEqual([])
    }
    expect(codec.parseResponse('upstream timeout', 'text/plain', 504, url).error).toEqual({ type: 'http_504', message: 'HTTP 504: upstream timeout' })
  })
})

describe('openai-chat parseRequest', () => {
  it('reads model, stream, tools and the tool results sent back', () => {
    const r = request(loadExchanges('openai-chat/test_run_stream_sync_streams_real_model.yaml')[1])
    expect(r).toEqual({ model: 'gpt-4o-mini', stream: true, system: undefined, tools: ['get_capital'], toolResults: [{ id: 'call_ZR5UUuTt3pf61kjwAJIYdVMj' }] })
  })

  it('reads the system message and every tool result of a parallel round', () => {
    const r = request(loadExchanges('openai-chat/TestOpenAINativeToolCalling.test_openai_parallel_native_tool_calling_test_agent_kickoff.yaml')[1])
    expect(r.system).toBe('You are Parallel Tool Agent. You follow tool instructions precisely.\nYour personal goal is: Use both tools exactly as instructed')
    expect(r.stream).toBe(false)
    expect(r.tools).toEqual(['parallel_local_search_one', 'parallel_local_search_two', 'parallel_local_search_three'])
    expect(r.toolResults.map((t) => t.id)).toEqual(['call_kz1qLLRsugXwWiQMeH9oFAep', 'call_yNouGq1Kv6P5W9fhTng6acZi', 'call_O7MqnuniDmyT6a0BS31GTunB'])
  })

  it('takes the model from an Azure deployment path when the body has none', () => {
    const azure = new URL('https://r.openai.azure.com/openai/deployments/my-gpt4o/chat/completions?api-version=2024-10-21')
    expect(codec.parseRequest({ messages: [] }, azure).model).toBe('my-gpt4o')
    expect(codec.parseRequest(undefined, url)).toEqual({ model: undefined, stream: false, system: undefined, tools: [], toolResults: [] })
  })
})

import { describe, expect, it } from 'vitest'
import { anthropicCodec as codec } from './index.js'
import { chunksToSse, loadExchanges, readTraffic, truncate, type RecordedExchange } from '../test-helpers.js'

const url = new URL('https://api.anthropic.com/v1/messages')
const parse = (e: RecordedExchange) => codec.parseResponse(e.responseBody, e.contentType, e.status, e.url)
const vertex = new URL(
  'https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict',
)

describe('anthropic detect', () => {
  it('accepts the Messages path with or without ?beta=true, and Claude on Vertex', () => {
    expect(codec.detect('POST', url)).toBe(true)
    expect(codec.detect('POST', new URL('http://127.0.0.1:8787/proxy/v1/messages?beta=true'))).toBe(true)
    expect(codec.detect('POST', vertex)).toBe(true)
    expect(codec.detect('POST', new URL(vertex.href.replace(':streamRawPredict', ':rawPredict')))).toBe(true)
  })

  it('rejects token counting, batches, other methods and OpenAI thread messages', () => {
    expect(codec.detect('POST', new URL('https://api.anthropic.com/v1/messages/count_tokens'))).toBe(false)
    expect(codec.detect('POST', new URL('https://api.anthropic.com/v1/messages/batches'))).toBe(false)
    expect(codec.detect('GET', url)).toBe(false)
    expect(codec.detect('POST', new URL('https://api.openai.com/v1/threads/thread_1/messages'))).toBe(false)
  })
})

describe('anthropic parseResponse', () => {
  it('reads text and a streamed tool_use block from a raw SSE stream', () => {
    const r = codec.parseResponse(readTraffic('anthropic/tool_use_response.txt'), 'text/event-stream', 200, url)
    expect(r.text).toBe("I'll check the current weather in Paris for you.")
    expect(r.toolCalls).toEqual([{ id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', name: 'get_weather', args: { location: 'Paris' } }])
    expect(r.usage).toEqual({ input: 377, output: 65, cacheRead: 0, cacheWrite: 0, reasoning: 0 })
    expect(r.model).toBe('claude-sonnet-4-20250514')
    expect(r.finishReason).toBe('tool_use')
  })

  it('reads a rebuilt stream the same with and without event lines, message_delta output winning', () => {
    const chunks = readTraffic('anthropic/anthropic-json-tool.1.chunks.txt')
    expect(chunks).toContain('"output_tokens":10,')
    const withEvents = codec.parseResponse(chunksToSse(chunks, { events: true }), 'text/event-stream', 200, url)
    expect(codec.parseResponse(chunksToSse(chunks), 'text/event-stream', 200, url)).toEqual(withEvents)
    expect(withEvents.toolCalls).toEqual([
      { id: 'toolu_01KFbKqPYSuAKujiL6mTfzYA', name: 'json', args: { elements: [{ location: 'San Francisco', temperature: 58, condition: 'sunny' }] } },
    ])
    expect(withEvents.usage).toEqual({ input: 849, output: 47, cacheRead: 0, cacheWrite: 0, reasoning: 0 })
  })

  it('reads a plain text stream and its JSON twin', () => {
    const streamed = codec.parseResponse(chunksToSse(readTraffic('anthropic/anthropic-text.chunks.txt')), 'text/event-stream', 200, url)
    expect(streamed.text).toBe("Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?")
    expect(streamed.usage.output).toBe(30)
    const json = codec.parseResponse(readTraffic('anthropic/anthropic-text.json'), 'application/json', 200, url)
    expect(json.text).toBe("Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?")
    expect(json.usage).toEqual({ input: 12, output: 29, cacheRead: 0, cacheWrite: 0, reasoning: 0 })
    expect(json.finishReason).toBe('end_turn')
  })

  it('returns parallel tool_use blocks in order', () => {
    const r = parse(loadExchanges('anthropic/test_multiple_parallel_tool_calls.yaml')[0])
    expect(r.toolCalls).toEqual([
      { id: 'toolu_0167cfEnoQaPviGdVXA95zcu', name: 'retrieve_entity_info', args: { name: 'Alice' } },
      { id: 'toolu_01EEe2V5HD1Ac4rKiUR4HD2T', name: 'retrieve_entity_info', args: { name: 'Bob' } },
      { id: 'toolu_01XFyAjstT3966qvRynZyVPo', name: 'retrieve_entity_info', args: { name: 'Charlie' } },
      { id: 'toolu_013mnQZbgtK2oe3Mo3XKJsx3', name: 'retrieve_entity_info', args: { name: 'Daisy' } },
    ])
    expect(r.text.startsWith("I'll help you find out who is the youngest")).toBe(true)
    expect(r.usage).toEqual({ input: 423, output: 202, cacheRead: 0, cacheWrite: 0, reasoning: 0 })
    expect(r.model).toBe('claude-haiku-4-5-20251001')
  })

  it('gives streamed tool calls without input deltas their start-block input', () => {
    const r = parse(loadExchanges('anthropic/test_tools.yaml')[0])
    expect(r.toolCalls).toEqual([
      { id: 'toolu_01LtHJmixrs9NcWQkK8hu8hj', name: 'pelican_name_generator', args: {} },
      { id: 'toolu_01N8a4jWyf116qKTMqKKmjyt', name: 'pelican_name_generator', args: {} },
    ])
  })

  it('reads Vertex-hosted Claude streams whose data lines are padded', () => {
    const r = codec.parseResponse(readTraffic('anthropic/claude-chat-1-mock.sse'), 'text/event-stream', 200, vertex)
    expect(r.text.startsWith("Thank you for inquiring about my well-being! I'm f")).toBe(true)
    expect(r.text.endsWith("you'd like to discuss or work on today?")).toBe(true)
    expect(r.usage).toEqual({ input: 15, output: 165, cacheRead: 0, cacheWrite: 0, reasoning: 0 })
  })

  it('keeps thinking out of the text', () => {
    const e = loadExchanges('anthropic/test_anthropic_model_thinking_part_stream.yaml')[0]
    expect(e.responseBody).toContain('"thinking":" is a straightforward question about"')
    const r = parse(e)
    expect(r.text.startsWith('Here are the basic steps for safely cros')).toBe(true)
    expect(r.text).not.toContain('straightforward question')
    expect(r.usage).toEqual({ input: 43, output: 282, cacheRead: 0, cacheWrite: 0, reasoning: 0 })
  })

  it('leaves server_tool_use out of tool calls and takes input from the cumulative message_delta', () => {
    const e = loadExchanges('anthropic/test_anthropic_native_tool_search_streaming.yaml')[0]
    expect(e.responseBody).toContain('"type":"server_tool_use","id":"srvtoolu_01S5swZdBmTzLDVzwcT5LbHp"')
    const r = parse(e)
    expect(r.toolCalls).toEqual([{ id: 'toolu_01EFn5wTNBYA8Reni8rbmnHT', name: 'get_exchange_rate', args: { from_currency: 'USD', to_currency: 'EUR' } }])
    expect(r.usage).toEqual({ input: 1591, output: 175, cacheRead: 0, cacheWrite: 0, reasoning: 0 })
  })

  it('joins cited text blocks of a web search stream into the text', () => {
    const r = codec.parseResponse(chunksToSse(readTraffic('anthropic/anthropic-web-search-tool.1.chunks.txt'), { events: true }), 'text/event-stream', 200, url)
    expect(r.toolCalls).toEqual([])
    expect(r.text.startsWith('Based on my search results, here are the key tech ')).toBe(true)
    expect(r.text.endsWith('ir first international retail expansion.')).toBe(true)
    expect(r.usage).toMatchObject({ input: 15665, output: 795 })
  })

  it('sums cache tokens into input for Anthropic', () => {
    // No recorded Anthropic response has non-zero cache counters: set them on a real body.
    const body = JSON.parse(readTraffic('anthropic/anthropic-text.json')) as { usage: Record<string, number> }
    body.usage.cache_read_input_tokens = 2048
    body.usage.cache_creation_input_tokens = 512
    const r = codec.parseResponse(JSON.stringify(body), 'application/json', 200, url)
    expect(r.usage).toEqual({ input: 12 + 2048 + 512, output: 29, cacheRead: 2048, cacheWrite: 512, reasoning: 0 })

    const stream = readTraffic('anthropic/anthropic-text.chunks.txt').replace(
      '"cache_creation_input_tokens":0,"cache_read_input_tokens":0',
      '"cache_creation_input_tokens":100,"cache_read_input_tokens":3000',
    )
    const s = codec.parseResponse(chunksToSse(stream), 'text/event-stream', 200, url)
    // message_delta repeats the cache counters (as 0 in this recording) and, being cumulative, wins.
    expect(s.usage).toEqual({ input: 12, output: 30, cacheRead: 0, cacheWrite: 0, reasoning: 0 })
    const startOnly = stream.replace(',"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":30', ',"output_tokens":30')
    expect(codec.parseResponse(chunksToSse(startOnly), 'text/event-stream', 200, url).usage).toEqual({
      input: 3112,
      output: 30,
      cacheRead: 3000,
      cacheWrite: 100,
      reasoning: 0,
    })
  })

  it('reports an error body', () => {
    const r = parse(loadExchanges('errors/test_model_name_suggestion[anthropic].yaml')[0])
    expect(r.error).toEqual({ type: 'not_found_error', message: 'model: claude-sonet-4-5' })
    expect(r.text).toBe('')
  })

  it('reports an error event sent mid-stream with the text and tool calls before it', () => {
    const raw = readTraffic('anthropic/tool_use_response.txt')
    const body = `${raw.slice(0, raw.indexOf('event: message_delta'))}event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n`
    const r = codec.parseResponse(body, 'text/event-stream', 200, url)
    expect(r.error).toEqual({ type: 'overloaded_error', message: 'Overloaded' })
    expect(r.text).toBe("I'll check the current weather in Paris for you.")
    expect(r.toolCalls.map((c) => c.id)).toEqual(['toolu_01NRLabsLyVHZPKxbKvkfSMn'])
    expect(r.finishReason).toBeUndefined()
  })

  it('keeps what arrived before a stream was cut, without throwing', () => {
    const e = loadExchanges('anthropic/test_anthropic_model_thinking_part_stream.yaml')[0]
    const full = parse(e).text
    for (const fraction of [0.05, 0.5, 0.8, 0.99]) {
      const r = codec.parseResponse(truncate(e.responseBody, fraction), e.contentType, 200, url)
      expect(full.startsWith(r.text), String(fraction)).toBe(true)
      expect(r.error).toBeUndefined()
    }
    const raw = readTraffic('anthropic/tool_use_response.txt')
    const cut = codec.parseResponse(raw.slice(0, raw.indexOf('"partial_json":"ar"')), 'text/event-stream', 200, url)
    expect(cut.toolCalls).toEqual([{ id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', name: 'get_weather', args: '{"location": "P' }])
  })
})

describe('anthropic parseRequest', () => {
  it('reads model, system, tools and the tool_result ids sent back', () => {
    const r = codec.parseRequest(loadExchanges('anthropic/test_multiple_parallel_tool_calls.yaml')[1].requestBody, url)
    expect(r.model).toBe('claude-haiku-4-5')
    expect(r.stream).toBe(false)
    expect(r.system?.trim().startsWith('Use the `retrieve_entity_info` tool to get information about a specific person.')).toBe(true)
    expect(r.tools).toEqual(['retrieve_entity_info'])
    expect(r.toolResults).toEqual([
      { id: 'toolu_0167cfEnoQaPviGdVXA95zcu' },
      { id: 'toolu_01EEe2V5HD1Ac4rKiUR4HD2T' },
      { id: 'toolu_01XFyAjstT3966qvRynZyVPo' },
      { id: 'toolu_013mnQZbgtK2oe3Mo3XKJsx3' },
    ])
  })

  it('reads stream: true and server tools offered by name', () => {
    const r = codec.parseRequest(loadExchanges('anthropic/test_anthropic_native_tool_search_streaming.yaml')[0].requestBody, url)
    expect(r.stream).toBe(true)
    expect(r.tools).toEqual(['get_exchange_rate', 'stock_lookup', 'tool_search_tool_bm25'])
  })

  it('joins a system given as text blocks and takes the Vertex model from the path', () => {
    const body = {
      anthropic_version: 'vertex-2023-10-16',
      system: [
        { type: 'text', text: 'You are terse.' },
        { type: 'text', text: 'Answer in French.', cache_control: { type: 'ephemeral' } },
      ],
      messages: [],
      stream: true,
    }
    expect(codec.parseRequest(body, vertex)).toEqual({
      model: 'claude-sonnet-4-5@20250929',
      stream: true,
      system: 'You are terse.\nAnswer in French.',
      tools: [],
      toolResults: [],
    })
  })
})

import { describe, expect, it } from 'vitest'
import { looksLikeSse, parseSse } from './sse.js'
import { loadExchanges, readTraffic } from './test-helpers.js'

describe('parseSse', () => {
  it('reads event names and data from a raw Anthropic stream', () => {
    const events = parseSse(readTraffic('anthropic/tool_use_response.txt'))
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ])
    expect(events[13].data).toBe('{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":65}}')
  })

  it('keeps the whitespace Anthropic pads inside data payloads readable as JSON', () => {
    const raw = readTraffic('anthropic/claude-chat-1-mock.sse')
    expect(raw).toContain('"output_tokens":165}               }')
    const events = parseSse(raw)
    expect(events).toHaveLength(89)
    expect(events.every((e) => typeof JSON.parse(e.data) === 'object')).toBe(true)
    expect(events[events.length - 1]).toEqual({ event: 'message_stop', data: '{"type":"message_stop"  }' })
  })

  it('trims trailing whitespace after field values', () => {
    expect(parseSse('event: ping   \ndata: {"type":"ping"} \t\n\n')).toEqual([{ event: 'ping', data: '{"type":"ping"}' }])
  })

  it('splits a Gemini stream with \\r\\n line endings', () => {
    const body = loadExchanges('gemini/test_google_model_iter_stream.yaml')[2].responseBody
    expect(body).toContain('\r\n\r\n')
    const events = parseSse(body)
    expect(events).toHaveLength(2)
    expect(events[1].data.startsWith('{"candidates": [{"content": {"parts": [{"text": " is 30°C.\\n"}]')).toBe(true)
    expect(events[1].event).toBeUndefined()
  })

  it('joins multi-line data, skips comments and ids, and accepts a bare \\r', () => {
    const events = parseSse(': keep-alive\rid: 7\revent: message\rdata: {"a":\rdata: 1}\r\rdata: [DONE]\r\r')
    expect(events).toEqual([{ event: 'message', data: '{"a":\n1}' }, { data: '[DONE]' }])
  })

  it('returns the last event of a stream cut before its blank line', () => {
    expect(parseSse('data: {"x":1}\n\ndata: {"x":2')).toEqual([{ data: '{"x":1}' }, { data: '{"x":2' }])
  })

  it('drops events that carry no data line', () => {
    expect(parseSse('event: ping\n\n\n\ndata: x\n\n')).toEqual([{ data: 'x' }])
  })
})

describe('looksLikeSse', () => {
  it('tells SSE from JSON by the body before the content type', () => {
    expect(looksLikeSse('{"error":{"message":"bad"}}', 'text/event-stream')).toBe(false)
    expect(looksLikeSse('[{"candidates":[]}]', undefined)).toBe(false)
    expect(looksLikeSse('event: message_start\ndata: {}\n\n', undefined)).toBe(true)
    expect(looksLikeSse('\r\ndata: {}\r\n\r\n', 'application/octet-stream')).toBe(true)
    expect(looksLikeSse('', 'text/event-stream; charset=utf-8')).toBe(true)
    expect(looksLikeSse('<html>', 'text/html')).toBe(false)
  })
})

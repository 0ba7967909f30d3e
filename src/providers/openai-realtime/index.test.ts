import { describe, expect, it } from 'vitest'
import { openaiRealtimeCodec as codec } from './index.js'

const url = new URL('wss://api.openai.com/v1/realtime?model=gpt-realtime')
const lines = (...events: object[]) => events.map((e) => `${JSON.stringify(e)}\n`).join('')

describe('openai-realtime', () => {
  it('detects a realtime socket frame, and no HTTP request', () => {
    expect(codec.detect('POST', url)).toBe(true)
    expect(codec.detect('POST', new URL('https://api.openai.com/v1/realtime/sessions'))).toBe(false)
    expect(codec.detect('POST', new URL('https://api.openai.com/v1/realtime'))).toBe(false)
  })

  it('reads the model from the URL and the tools and instructions from session.update', () => {
    const body = { type: 'session.update', session: { instructions: 'Be brief.', tools: [{ type: 'function', name: 'get_weather' }] } }
    expect(codec.parseRequest(body, url)).toEqual({ model: 'gpt-realtime', stream: true, system: 'Be brief.', tools: ['get_weather'], toolResults: [] })
    expect(
      codec.parseRequest({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: 'call_1', output: '{}' } }, url).toolResults,
    ).toEqual([{ id: 'call_1' }])
  })

  it('sums usage over response.done events, joins text and transcript deltas, and reads tool calls and errors', () => {
    const parsed = codec.parseResponse(
      lines(
        { type: 'response.output_text.delta', delta: 'Hel' },
        { type: 'response.output_audio_transcript.delta', delta: 'lo' },
        { type: 'response.function_call_arguments.done', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'response.done', response: { status: 'completed', usage: { input_tokens: 10, output_tokens: 4, input_token_details: { cached_tokens: 2 } } } },
        { type: 'response.done', response: { status: 'completed', usage: { input_tokens: 5, output_tokens: 1 } } },
      ),
      'application/x-ndjson',
      200,
      url,
    )
    expect(parsed).toMatchObject({ text: 'Hello', finishReason: 'completed', usage: { input: 15, output: 5, cacheRead: 2 } })
    expect(parsed.toolCalls).toEqual([{ id: 'call_1', name: 'get_weather', args: { city: 'Paris' } }])
    expect(codec.parseResponse(lines({ type: 'error', error: { type: 'invalid_request_error', message: 'bad event' } }), undefined, 200, url).error).toEqual({
      type: 'invalid_request_error',
      message: 'bad event',
    })
  })

  it('reads the event type of a frame', () => {
    expect(codec.socket?.event({ type: 'response.create' })).toBe('response.create')
    expect(codec.socket?.event('not an event')).toBeUndefined()
  })
})

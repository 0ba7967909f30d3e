import { describe, expect, it } from 'vitest'
import { geminiLiveCodec as codec } from './index.js'

const url = new URL('wss://generativelanguage.googleapis.com/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent')
const lines = (...messages: object[]) => messages.map((m) => `${JSON.stringify(m)}\n`).join('')

describe('gemini-live', () => {
  it('detects a Live socket frame, and not generateContent over HTTP', () => {
    expect(codec.detect('POST', url)).toBe(true)
    expect(codec.detect('POST', new URL('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent'))).toBe(false)
  })

  it('reads the model, instructions and tools from setup, and tool results from toolResponse', () => {
    const setup = {
      setup: {
        model: 'models/gemini-live-2.5-flash',
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
        tools: [{ functionDeclarations: [{ name: 'get_weather' }] }],
      },
    }
    expect(codec.parseRequest(setup, url)).toEqual({
      model: 'gemini-live-2.5-flash',
      stream: true,
      system: 'Be brief.',
      tools: ['get_weather'],
      toolResults: [],
    })
    expect(codec.parseRequest({ toolResponse: { functionResponses: [{ id: 'fc_1', name: 'get_weather', response: {} }] } }, url).toolResults).toEqual([
      { id: 'fc_1', name: 'get_weather' },
    ])
  })

  it('joins model-turn text (no thoughts), sums usageMetadata, reads tool calls and the turn end', () => {
    const parsed = codec.parseResponse(
      lines(
        { serverContent: { modelTurn: { parts: [{ text: 'thinking', thought: true }, { text: 'Hi' }] } } },
        { toolCall: { functionCalls: [{ id: 'fc_1', name: 'get_weather', args: { city: 'Paris' } }] } },
        {
          serverContent: { turnComplete: true },
          usageMetadata: { promptTokenCount: 10, responseTokenCount: 3, thoughtsTokenCount: 2, cachedContentTokenCount: 4 },
        },
      ),
      'application/x-ndjson',
      200,
      url,
    )
    expect(parsed).toMatchObject({ text: 'Hi', finishReason: 'turnComplete', usage: { input: 10, output: 5, reasoning: 2, cacheRead: 4 } })
    expect(parsed.toolCalls).toEqual([{ id: 'fc_1', name: 'get_weather', args: { city: 'Paris' } }])
  })

  it('names a message by its one field, usageMetadata aside', () => {
    expect(codec.socket?.event({ serverContent: {}, usageMetadata: {} })).toBe('serverContent')
    expect(codec.socket?.event({ type: 'websocket.open' })).toBe('websocket.open')
  })
})

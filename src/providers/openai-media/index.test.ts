import { describe, expect, it } from 'vitest'
import { openaiMediaCodec as codec } from './index.js'
import { geminiCodec } from '../gemini/index.js'

// No image or audio traffic is recorded under test/fixtures/traffic: these bodies follow the documented OpenAI shapes.
const url = new URL('https://api.openai.com/v1/images/generations')

describe('openai-media', () => {
  it('detects the image and audio endpoints on OpenAI, Azure and local servers, and nothing else', () => {
    for (const p of ['images/generations', 'images/edits', 'images/variations', 'audio/speech', 'audio/transcriptions', 'audio/translations']) {
      expect(codec.detect('POST', new URL(`https://api.openai.com/v1/${p}`))).toBe(true)
    }
    expect(codec.detect('POST', new URL('https://r.openai.azure.com/openai/deployments/tts/audio/speech?api-version=2025-03-01-preview'))).toBe(true)
    expect(codec.detect('POST', new URL('http://127.0.0.1:4000/v1/audio/speech'))).toBe(true)
    expect(codec.detect('GET', url)).toBe(false)
    expect(codec.detect('POST', new URL('https://api.openai.com/v1/files'))).toBe(false)
  })

  it('reads image usage and the transcription text; an audio body has no text and never throws', () => {
    const image = codec.parseResponse(
      '{"created":1,"data":[{"b64_json":"iVBO"}],"usage":{"input_tokens":9,"output_tokens":272,"total_tokens":281}}',
      'application/json',
      200,
      url,
    )
    expect(image.usage).toEqual({ input: 9, output: 272, cacheRead: 0, cacheWrite: 0, reasoning: 0 })
    expect(codec.parseResponse('{"text":"hello there"}', 'application/json', 200, url).text).toBe('hello there')
    expect(codec.parseResponse('\u00ff\u00fb\u0090d', 'audio/mpeg', 200, url)).toEqual({
      text: '',
      toolCalls: [],
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
    })
  })

  it('reports an error body', () => {
    const r = codec.parseResponse('{"error":{"message":"Invalid value for \'voice\'","type":"invalid_request_error"}}', 'application/json', 400, url)
    expect(r.error).toEqual({ type: 'invalid_request_error', message: "Invalid value for 'voice'" })
  })

  it('reads the model of a JSON request, and none of a multipart one', () => {
    expect(codec.parseRequest({ model: 'tts-1', voice: 'alloy', input: 'hi' }, url).model).toBe('tts-1')
    expect(codec.parseRequest(undefined, url)).toEqual({ model: undefined, stream: false, tools: [], toolResults: [] })
  })

  it('leaves Imagen and Veo to the gemini family', () => {
    expect(geminiCodec.detect('POST', new URL('https://generativelanguage.googleapis.com/v1beta/models/imagen-4.0-generate-001:predict'))).toBe(true)
    expect(geminiCodec.detect('POST', new URL('https://generativelanguage.googleapis.com/v1beta/models/veo-3.0-generate-001:predictLongRunning'))).toBe(true)
    expect(
      geminiCodec.parseResponse('{"predictions":[{"bytesBase64Encoded":"iVBO","mimeType":"image/png"}]}', 'application/json', 200, url).error,
    ).toBeUndefined()
  })
})

import { describe, expect, it } from 'vitest'
import { openaiEmbeddingsCodec as codec } from './index.js'
import { loadExchanges } from '../test-helpers.js'

// No embeddings traffic is recorded under test/fixtures/traffic: these bodies follow the documented OpenAI shape.
const url = new URL('https://api.openai.com/v1/embeddings')
const body =
  '{"object":"list","data":[{"object":"embedding","index":0,"embedding":[-0.0069,-0.0053]}],"model":"text-embedding-3-small","usage":{"prompt_tokens":8,"total_tokens":8}}'

describe('openai-embeddings', () => {
  it('detects POST …/embeddings on OpenAI, Azure and local servers', () => {
    expect(codec.detect('POST', url)).toBe(true)
    expect(codec.detect('POST', new URL('https://r.openai.azure.com/openai/deployments/emb/embeddings?api-version=2024-10-21'))).toBe(true)
    expect(codec.detect('POST', new URL('http://localhost:11434/v1/embeddings'))).toBe(true)
    expect(codec.detect('GET', url)).toBe(false)
    expect(codec.detect('POST', new URL('https://api.openai.com/v1/chat/completions'))).toBe(false)
  })

  it('reads prompt tokens as input, the model and no text', () => {
    expect(codec.parseResponse(body, 'application/json', 200, url)).toEqual({
      text: '',
      toolCalls: [],
      usage: { input: 8, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      model: 'text-embedding-3-small',
    })
  })

  it('reports an OpenAI error body and never throws on garbage', () => {
    const e = loadExchanges('errors/test_openai_responses_model_http_error.yaml')[0]
    expect(codec.parseResponse(e.responseBody, e.contentType, 400, url).error?.type).toBe('invalid_request_error')
    expect(codec.parseResponse('{"data":[', 'application/json', 200, url).error?.type).toBe('parse_error')
  })

  it('reads the model of the request', () => {
    expect(codec.parseRequest({ model: 'text-embedding-3-small', input: 'hello' }, url)).toEqual({
      model: 'text-embedding-3-small',
      stream: false,
      tools: [],
      toolResults: [],
    })
  })
})

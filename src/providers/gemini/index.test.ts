import { describe, expect, it } from 'vitest'
import { geminiCodec as codec } from './index.js'
import { applyPartialArgs } from './partial-args.js'
import { chunksToSse, loadExchanges, readTraffic, truncate, type RecordedExchange } from '../test-helpers.js'

const api = 'https://generativelanguage.googleapis.com/v1beta/models'
const sseUrl = new URL(`${api}/gemini-3-pro-preview:streamGenerateContent?alt=sse`)
const jsonUrl = new URL(`${api}/gemini-3-pro-preview:generateContent`)
const vertex = new URL(
  'https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1/publishers/google/models/gemini-3.1-pro-preview:streamGenerateContent?alt=sse',
)
const parse = (e: RecordedExchange) => codec.parseResponse(e.responseBody, e.contentType, e.status, e.url)

describe('gemini detect', () => {
  it('accepts generate, stream and embed actions on the Gemini API and Vertex AI', () => {
    for (const u of [
      jsonUrl,
      sseUrl,
      vertex,
      new URL(`${api}/gemini-embedding-001:embedContent`),
      new URL(`${api}/text-embedding-004:batchEmbedContents`),
      new URL(`${api}/gemini-2.5-flash%3AgenerateContent`),
    ]) {
      expect(codec.detect('POST', u), u.href).toBe(true)
    }
  })

  it('rejects token counting, model listing and Claude on Vertex', () => {
    expect(codec.detect('POST', new URL(`${api}/gemini-2.5-flash:countTokens`))).toBe(false)
    expect(codec.detect('GET', new URL(api))).toBe(false)
    expect(codec.detect('GET', jsonUrl)).toBe(false)
    expect(
      codec.detect(
        'POST',
        new URL(
          vertex.href.replace('publishers/google/models/gemini-3.1-pro-preview:streamGenerateContent', 'publishers/anthropic/models/claude:streamRawPredict'),
        ),
      ),
    ).toBe(false)
  })
})

describe('gemini parseResponse', () => {
  it('gives parallel function calls stable synthesized ids', () => {
    const r = parse(loadExchanges('gemini/TestGeminiNativeToolCalling.test_gemini_parallel_native_tool_calling_test_agent_kickoff.yaml')[0])
    expect(r.toolCalls).toEqual([
      { id: 'parallel_local_search_one#1', name: 'parallel_local_search_one', args: { query: 'latest OpenAI model release notes' } },
      { id: 'parallel_local_search_two#1', name: 'parallel_local_search_two', args: { query: 'latest Anthropic model release notes' } },
      { id: 'parallel_local_search_three#1', name: 'parallel_local_search_three', args: { query: 'latest Gemini model release notes' } },
    ])
    expect(r.usage).toEqual({ input: 291, output: 70 + 67, cacheRead: 0, cacheWrite: 0, reasoning: 67 })
    expect(r.model).toBe('gemini-2.5-flash')
    expect(r.finishReason).toBe('STOP')
  })

  it('numbers repeated calls of one function from 1', () => {
    const r = parse(loadExchanges('gemini/test_google_instructions_only_with_tool_calls.yaml')[0])
    expect(r.toolCalls.map((c) => c.id)).toEqual(['generate_topic#1', 'generate_topic#2', 'generate_topic#3'])
    expect(r.toolCalls.every((c) => c.name === 'generate_topic')).toBe(true)
  })

  it('adds thoughts tokens to output and reads the last usage of a stream', () => {
    const r = codec.parseResponse(chunksToSse(readTraffic('gemini/google-text.chunks.txt')), 'text/event-stream', 200, sseUrl)
    expect(r.text).toBe('There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y')
    expect(r.usage).toEqual({ input: 9, output: 23 + 185, cacheRead: 0, cacheWrite: 0, reasoning: 185 })
    expect(r.model).toBe('gemini-3-pro-preview')
  })

  it('reads the non-streaming twin', () => {
    const r = codec.parseResponse(readTraffic('gemini/google-text.json'), 'application/json', 200, jsonUrl)
    expect(r.text).toBe("There are **3** r's in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.")
    expect(r.usage).toEqual({ input: 9, output: 28 + 244, cacheRead: 0, cacheWrite: 0, reasoning: 244 })
  })

  it('reads a streamed JSON array (no alt=sse) and leaves thought parts out of the text', () => {
    const [first, , third] = loadExchanges('gemini/test_tools.yaml')
    expect(first.responseBody.trimStart().startsWith('[{')).toBe(true)
    expect(first.responseBody).toContain('"thought": true')
    const r = parse(first)
    expect(r.text).toBe('')
    expect(r.toolCalls).toEqual([{ id: 'pelican_name_generator#1', name: 'pelican_name_generator', args: {} }])
    expect(r.usage).toEqual({ input: 32, output: 12 + 42, cacheRead: 0, cacheWrite: 0, reasoning: 42 })
    expect(parse(third).text).toBe('How about Charles and Sammy?')
  })

  it('reads the objects that arrived whole from a cut JSON array', () => {
    const e = loadExchanges('gemini/test_tools.yaml')[2]
    const r = codec.parseResponse(e.responseBody.slice(0, e.responseBody.indexOf(' about Charles')), e.contentType, 200, e.url)
    expect(r.text).toBe('How')
    expect(r.usage).toEqual({ input: 137, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0 })
    expect(r.error).toBeUndefined()
  })

  it('reads an SSE stream with \\r\\n line endings, the last usage winning', () => {
    const e = loadExchanges('gemini/test_google_model_iter_stream.yaml')[2]
    expect(e.responseBody).toContain('"promptTokenCount": 169')
    const r = parse(e)
    expect(r.text).toBe('The temperature in Paris is 30°C.\n')
    expect(r.usage).toEqual({ input: 79, output: 12, cacheRead: 0, cacheWrite: 0, reasoning: 0 })
    expect(r.finishReason).toBe('STOP')
  })

  it('assembles Vertex partialArgs pieces into the arguments of each call', () => {
    const r = codec.parseResponse(
      chunksToSse(readTraffic('gemini/google-stream-tool-call-arguments.chunks.txt'), { crlf: true }),
      'text/event-stream',
      200,
      vertex,
    )
    expect(r.toolCalls).toEqual([
      { id: 'getWeather#1', name: 'getWeather', args: { location: 'Boston' } },
      { id: 'getWeather#2', name: 'getWeather', args: { location: 'San Francisco' } },
    ])
    expect(r.usage).toEqual({ input: 26, output: 23 + 132, cacheRead: 0, cacheWrite: 0, reasoning: 132 })
    expect(r.model).toBe('gemini-3.1-pro-preview')
  })

  it('uses functionCall.id when the response has one', () => {
    const body = readTraffic('gemini/google-tool-call.json').replace('"name": "weather",', '"name": "weather", "id": "fc-42",')
    const r = codec.parseResponse(body, 'application/json', 200, jsonUrl)
    expect(r.toolCalls).toEqual([{ id: 'fc-42', name: 'weather', args: { location: 'San Francisco' } }])
    expect(codec.parseResponse(chunksToSse(readTraffic('gemini/google-tool-call.chunks.txt')), undefined, 200, sseUrl).toolCalls[0].id).toBe('weather#1')
  })

  it('reports an error body, bare or wrapped in a streamed array', () => {
    const error = { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' } }
    const expected = { type: 'INVALID_ARGUMENT', message: 'API key not valid. Please pass a valid API key.' }
    expect(codec.parseResponse(JSON.stringify(error), 'application/json', 400, jsonUrl).error).toEqual(expected)
    expect(codec.parseResponse(JSON.stringify([error]), 'application/json', 400, jsonUrl).error).toEqual(expected)
  })

  it('reports an error chunk sent mid-stream with the text before it', () => {
    const sse = chunksToSse(`${readTraffic('gemini/google-text.chunks.txt').split('\n')[0]}\n`)
    const body = `${sse}data: {"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}\n\n`
    const r = codec.parseResponse(body, 'text/event-stream', 200, sseUrl)
    expect(r.text).toBe('There are **3**')
    expect(r.error).toEqual({ type: 'UNAVAILABLE', message: 'The model is overloaded.' })
  })

  it('keeps what arrived before a stream was cut, without throwing', () => {
    const sse = chunksToSse(readTraffic('gemini/google-text.chunks.txt'))
    for (const fraction of [0.1, 0.4, 0.7, 0.95]) {
      const r = codec.parseResponse(truncate(sse, fraction), 'text/event-stream', 200, sseUrl)
      expect('There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y'.startsWith(r.text), String(fraction)).toBe(true)
    }
    expect(codec.parseResponse('[{"candi', 'application/json', 200, sseUrl).error?.type).toBe('parse_error')
  })

  it('reads an embedding response as a model call with zero usage', () => {
    const r = codec.parseResponse('{"embedding":{"values":[0.013,-0.008]}}', 'application/json', 200, new URL(`${api}/gemini-embedding-001:embedContent`))
    expect(r).toEqual({
      text: '',
      toolCalls: [],
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      model: 'gemini-embedding-001',
      finishReason: undefined,
    })
  })
})

describe('gemini parseRequest', () => {
  it('reads model and stream from the URL, the system instruction, tools and functionResponse names', () => {
    const e = loadExchanges('gemini/test_google_model_iter_stream.yaml')[2]
    expect(codec.parseRequest(e.requestBody, e.url)).toEqual({
      model: 'gemini-2.0-flash',
      stream: true,
      system: 'You are a helpful chatbot.',
      tools: ['get_capital', 'get_temperature'],
      toolResults: [
        { id: 'pyd_ai_0e1a07b3c2b64d2ab3ad2efbe18e1b97', name: 'get_capital' },
        { id: 'pyd_ai_98b25d994c5648df82f683188629229d', name: 'get_temperature' },
      ],
    })
  })

  it('reads snake_case function_response parts and a tools object', () => {
    const [, , third] = loadExchanges('gemini/test_tools.yaml')
    expect(codec.parseRequest(third.requestBody, third.url).toolResults).toEqual([
      { id: 'call_27db36357f594e73b557ec8f70da9e87', name: 'pelican_name_generator' },
      { id: 'call_97666b91d4c14f44b94ab69dded4ab10', name: 'pelican_name_generator' },
    ])
    const multi = loadExchanges('multi-provider/test_multiple_agent_tool_calls.yaml')[1]
    const r = codec.parseRequest(multi.requestBody, multi.url)
    expect(r).toMatchObject({ model: 'gemini-2.0-flash-exp', stream: false, tools: ['get_capital'], toolResults: [{ name: 'get_capital' }] })
  })

  it('reads the model of a Vertex path', () => {
    expect(codec.parseRequest({ contents: [] }, vertex)).toMatchObject({ model: 'gemini-3.1-pro-preview', stream: true })
  })
})

describe('applyPartialArgs', () => {
  it('builds nested values, arrays and continued strings', () => {
    const args = {}
    applyPartialArgs(args, [{ jsonPath: '$.recipe.name', stringValue: 'Lasa', willContinue: true }])
    applyPartialArgs(args, [
      { jsonPath: '$.recipe.name', stringValue: 'gna' },
      { jsonPath: '$.recipe.items[0]', numberValue: 2 },
    ])
    applyPartialArgs(args, [{ jsonPath: '$.vegan', boolValue: false }, { jsonPath: '$.tags[]' }, { jsonPath: '$.note', nullValue: 'NULL_VALUE' }])
    expect(args).toEqual({ recipe: { name: 'Lasagna', items: [2] }, vegan: false, tags: [], note: null })
  })
})

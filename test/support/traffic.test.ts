import { describe, expect, test } from 'vitest'
import { listTrafficFiles, loadExchanges, parseSse } from './traffic.js'

describe('traffic loaders', () => {
  test('every recorded data file loads into exchanges with a status, a content-type and a body', () => {
    const files = listTrafficFiles()
    expect(files.length).toBeGreaterThanOrEqual(49) // SOURCES.md lists 49 data files
    expect(files).not.toContain('SOURCES.md')
    for (const file of files) {
      const exchanges = loadExchanges(file)
      expect(exchanges.length, file).toBeGreaterThan(0)
      for (const ex of exchanges) {
        expect(ex.method, file).toBe('POST')
        expect(ex.path, file).toMatch(/^\/v1(beta)?\//)
        expect([200, 400, 404], file).toContain(ex.status)
        expect(ex.headers['content-type'], file).toMatch(/^(text\/event-stream|application\/json)/)
        expect(
          Object.keys(ex.headers).filter((k) => /^(content-encoding|content-length|transfer-encoding)$/.test(k)),
          file,
        ).toEqual([])
        if (ex.headers['content-type'].startsWith('application/json')) expect(() => JSON.parse(ex.body), file).not.toThrow()
        else expect(parseSse(ex.body).length, file).toBeGreaterThan(0)
      }
    }
  })

  test('multi-step cassettes keep one exchange per recorded interaction', () => {
    expect(loadExchanges('openai-chat/test_tool_use_chain_of_two_calls.yaml')).toHaveLength(3)
    expect(loadExchanges('openai-chat/TestMaxUsageCountWithNativeToolCalling.test_max_usage_count_tracked_in_native_tool_calling.yaml')).toHaveLength(4)
    expect(loadExchanges('gemini/test_google_instructions_only_with_tool_calls.yaml')).toHaveLength(5)
    expect(loadExchanges('anthropic/ToolRunner.json')).toHaveLength(10)
    expect(loadExchanges('multi-provider/test_multiple_agent_tool_calls.yaml').map((e) => e.path)).toEqual([
      '/v1beta/models/gemini-2.0-flash-exp:generateContent',
      '/v1beta/models/gemini-2.0-flash-exp:generateContent',
      '/v1/chat/completions',
      '/v1/chat/completions',
    ])
  })

  test('the concatenated Responses chunk file splits into four streams at each response.created', () => {
    const exchanges = loadExchanges('openai-responses/openai-reasoning-encrypted-content.1.chunks.txt')
    expect(exchanges).toHaveLength(4)
    for (const ex of exchanges) {
      const events = parseSse(ex.body)
      expect(events[0].event).toBe('response.created')
      expect(events.at(-1)?.event).toBe('response.completed')
      expect(events.every((e) => e.event === (JSON.parse(e.data) as { type: string }).type)).toBe(true)
    }
  })

  test('OpenAI chat chunk lines get data framing and a final [DONE]', () => {
    const [ex] = loadExchanges('openai-chat/openai-text.chunks.txt')
    expect(ex.path).toBe('/v1/chat/completions')
    expect(ex.body.startsWith('data: {"id":"chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0"')).toBe(true)
    expect(ex.body.endsWith('"obfuscation":"h9RiQLL"}\n\ndata: [DONE]\n\n')).toBe(true)
    expect(parseSse(ex.body)).toHaveLength(304)
  })

  test('Gemini chunk lines get CRLF data framing and the alt=sse path of the recorded model', () => {
    const [ex] = loadExchanges('gemini/google-text.chunks.txt')
    expect(ex.path).toBe('/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse')
    expect(ex.body.split('\r\n\r\n')).toHaveLength(4) // 3 events + ''
    expect(ex.body.startsWith('data: {"candidates":[{"content":{"parts":[{"text":"There are **3**"}]')).toBe(true)
  })

  test('base64 gzip VCR bodies are decoded to the plain wire body', () => {
    const [ex] = loadExchanges('openai-chat/test_tool_use_chain_of_two_calls.yaml')
    const json = JSON.parse(ex.body) as { choices: Array<{ message: { tool_calls: Array<{ function: { name: string } }> } }> }
    expect(json.choices[0].message.tool_calls[0].function.name).toBe('lookup_population')
    const [stream] = loadExchanges('anthropic/test_tools.yaml')
    expect(stream.body.startsWith('event: message_start\ndata: {"type":"message_start"')).toBe(true)
    const [array] = loadExchanges('gemini/test_tools.yaml')
    expect(Array.isArray(JSON.parse(array.body))).toBe(true)
  })

  test('VCR requests keep method, path with query and the parsed request body', () => {
    const [ex] = loadExchanges('gemini/test_google_model_iter_stream.yaml')
    expect(ex.path).toBe('/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse')
    expect(ex.requestBody).toMatchObject({ contents: [{ parts: [{ text: 'What is the temperature of the capital of France?' }] }] })
    const [basic] = loadExchanges('openai-chat/test_tool_use_basic.yaml')
    expect(basic.requestBody).toMatchObject({ model: 'gpt-4o-mini', stream: true })
    expect(basic.headers['x-request-id']).toMatch(/^req_/)
  })

  test('an unknown or missing file fails with its name in the message', () => {
    expect(() => loadExchanges('SOURCES.md')).toThrow(/SOURCES\.md.*unsupported/)
    expect(() => loadExchanges('nope/missing.yaml')).toThrow(/nope\/missing\.yaml/)
  })
})

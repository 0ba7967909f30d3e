import { EventStreamCodec } from '@smithy/core/event-streams'
import { describe, expect, it } from 'vitest'
import { canonicalRequest, requestKey } from '../../cassette/canonical.js'
import { createRedactor } from '../../cassette/redact.js'
import { bedrockCodec as codec } from './index.js'
import { describeEventStream, readFrames, redactEventStream } from './eventstream.js'

// Frames written by the AWS SDK's own codec, as Bedrock writes them.
const sdk = new EventStreamCodec(
  (b) => Buffer.from(b).toString('utf8'),
  (s) => new Uint8Array(Buffer.from(s, 'utf8')),
)
const frame = (type: string, payload: unknown, kind: 'event' | 'exception' = 'event') =>
  sdk.encode({
    headers: {
      ':message-type': { type: 'string', value: kind },
      [kind === 'event' ? ':event-type' : ':exception-type']: { type: 'string', value: type },
      ':content-type': { type: 'string', value: 'application/json' },
    },
    body: new Uint8Array(Buffer.from(JSON.stringify(payload))),
  })
const join = (frames: Uint8Array[]) => new Uint8Array(Buffer.concat(frames))
const ES = 'application/vnd.amazon.eventstream'
const base = 'https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-5-haiku-20241022-v1%3A0'
const converse = new URL(`${base}/converse`)
const converseStream = new URL(`${base}/converse-stream`)
const invokeStream = new URL(`${base}/invoke-with-response-stream`)
const parseBytes = (bytes: Uint8Array, url = converseStream) => codec.parseResponse(Buffer.from(bytes).toString('utf8'), ES, 200, url, bytes)

const toolStream = [
  frame('messageStart', { role: 'assistant', p: 'abcdefgh' }),
  frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Let me check.' }, p: 'ab' }),
  frame('contentBlockStop', { contentBlockIndex: 0 }),
  frame('contentBlockStart', { contentBlockIndex: 1, start: { toolUse: { toolUseId: 'tooluse_Qm3x', name: 'get_weather' } } }),
  frame('contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: '{"city":' } } }),
  frame('contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: '"Paris"}' } } }),
  frame('contentBlockStop', { contentBlockIndex: 1 }),
  frame('messageStop', { stopReason: 'tool_use' }),
  frame('metadata', {
    usage: { inputTokens: 380, outputTokens: 51, totalTokens: 531, cacheReadInputTokens: 100, cacheWriteInputTokens: 0 },
    metrics: { latencyMs: 598 },
  }),
]

describe('bedrock detect', () => {
  it('accepts the four Bedrock Runtime actions, on any host', () => {
    for (const action of ['converse', 'converse-stream', 'invoke', 'invoke-with-response-stream'])
      expect(codec.detect('POST', new URL(`${base}/${action}`))).toBe(true)
    expect(
      codec.detect(
        'POST',
        new URL('http://127.0.0.1:9/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A1%3Ainference-profile%2Fus.anthropic.claude-haiku-4-5-20251001-v1%3A0/converse'),
      ),
    ).toBe(true)
  })

  it('rejects other methods, the control plane, and bidirectional streams', () => {
    expect(codec.detect('GET', converse)).toBe(false)
    expect(codec.detect('POST', new URL('https://bedrock.us-east-1.amazonaws.com/foundation-models'))).toBe(false)
    expect(codec.detect('POST', new URL(`${base}/invoke-with-bidirectional-stream`))).toBe(false)
    expect(codec.detect('POST', new URL('https://bedrock-runtime.us-east-1.amazonaws.com/guardrail/g1/version/1/apply'))).toBe(false)
  })
})

describe('bedrock parseRequest', () => {
  it('reads Converse: the model from the path, system, tools and tool results', () => {
    const body = {
      system: [{ text: 'Be brief.' }, { text: 'Use tools.' }],
      toolConfig: { tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: {} } } }] },
      messages: [{ role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_Qm3x', content: [{ text: '18°C' }] } }] }],
    }
    expect(codec.parseRequest(body, converseStream)).toEqual({
      model: 'anthropic.claude-3-5-haiku-20241022-v1:0',
      stream: true,
      system: 'Be brief.\nUse tools.',
      tools: ['get_weather'],
      toolResults: [{ id: 'tooluse_Qm3x' }],
    })
  })

  it("reads a Claude InvokeModel body with the Anthropic codec, the path's model winning", () => {
    const body = {
      anthropic_version: 'bedrock-2023-05-31',
      system: 'Be brief.',
      tools: [{ name: 'get_weather' }],
      messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1' }] }],
    }
    expect(codec.parseRequest(body, new URL(`${base}/invoke`))).toEqual({
      model: 'anthropic.claude-3-5-haiku-20241022-v1:0',
      stream: false,
      system: 'Be brief.',
      tools: ['get_weather'],
      toolResults: [{ id: 'toolu_1' }],
    })
  })
})

describe('bedrock request keys', () => {
  it("number Bedrock's minted toolUseIds (tooluse_…) like other providers' ids, so a later request echoing a new one still matches", () => {
    const body = (id: string) =>
      JSON.stringify({
        messages: [
          { role: 'assistant', content: [{ toolUse: { toolUseId: id, name: 'get_weather', input: {} } }] },
          { role: 'user', content: [{ toolResult: { toolUseId: id, content: [] } }] },
        ],
      })
    const key = (id: string) => requestKey(canonicalRequest('POST', converse, body(id), { redactor: createRedactor() }))
    expect(key('tooluse_kZJMlvQmRJ6eAyJE5GIl7Q')).toBe(key('tooluse_Qm3xW9aB2cD4eF6gH8iJ0k'))
    expect(canonicalRequest('POST', converse, body('tooluse_kZJMlvQmRJ6eAyJE5GIl7Q'), { redactor: createRedactor() }).body).toMatchObject({
      messages: [{ content: [{ toolUse: { toolUseId: 'tooluse_<1>' } }] }, {}],
    })
  })
})

describe('bedrock parseResponse', () => {
  it('reads a Converse answer: text, tool use, stop reason, usage with cache tokens added to input', () => {
    const body = JSON.stringify({
      output: {
        message: {
          role: 'assistant',
          content: [{ text: 'Checking.' }, { toolUse: { toolUseId: 'tooluse_Qm3x', name: 'get_weather', input: { city: 'Paris' } } }],
        },
      },
      stopReason: 'tool_use',
      usage: { inputTokens: 20, outputTokens: 9, totalTokens: 79, cacheReadInputTokens: 40, cacheWriteInputTokens: 10 },
    })
    expect(codec.parseResponse(body, 'application/json', 200, converse)).toEqual({
      text: 'Checking.',
      toolCalls: [{ id: 'tooluse_Qm3x', name: 'get_weather', args: { city: 'Paris' } }],
      usage: { input: 70, output: 9, cacheRead: 40, cacheWrite: 10, reasoning: 0 },
      finishReason: 'tool_use',
    })
  })

  it('reads a ConverseStream from its frames: text, the streamed tool input, stop reason and the metadata usage', () => {
    expect(parseBytes(join(toolStream))).toEqual({
      text: 'Let me check.',
      toolCalls: [{ id: 'tooluse_Qm3x', name: 'get_weather', args: { city: 'Paris' } }],
      usage: { input: 480, output: 51, cacheRead: 100, cacheWrite: 0, reasoning: 0 },
      finishReason: 'tool_use',
    })
  })

  it('reports a stream cut inside a frame, keeping what the whole frames said', () => {
    const bytes = join(toolStream)
    const cut = bytes.subarray(0, bytes.length - 20)
    const r = parseBytes(cut)
    expect(r.toolCalls).toEqual([{ id: 'tooluse_Qm3x', name: 'get_weather', args: { city: 'Paris' } }])
    expect(r.error).toEqual({ type: 'parse_error', message: `the stream ends inside frame 9 (${toolStream[8].length - 20} of ${toolStream[8].length} bytes)` })
  })

  it('reports a frame whose checksum fails', () => {
    const bytes = join(toolStream)
    bytes[toolStream[0].length + 20] ^= 0xff
    expect(parseBytes(bytes).error?.message).toMatch(/^frame 2 does not decode: The message checksum/)
  })

  it('reads an exception frame as the error, and an error status body with its __type', () => {
    const r = parseBytes(
      join([frame('messageStart', { role: 'assistant' }), frame('throttlingException', { message: 'Too many tokens, please wait.' }, 'exception')]),
    )
    expect(r.error).toEqual({ type: 'throttlingException', message: 'Too many tokens, please wait.' })
    expect(codec.parseResponse('{"message":"The provided model identifier is invalid."}', 'application/json', 400, converse).error).toEqual({
      type: 'ValidationException',
      message: 'The provided model identifier is invalid.',
    })
    expect(codec.parseResponse(JSON.stringify(codec.errorBody(429, 'slow down')), 'application/json', 429, converse).error).toEqual({
      type: 'ThrottlingException',
      message: 'slow down',
    })
  })

  it("reads InvokeModelWithResponseStream chunks of Claude's stream events with the Anthropic parser", () => {
    const events = [
      { type: 'message_start', message: { model: 'claude-3-5-haiku-20241022', usage: { input_tokens: 12, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi there' } },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 4 } },
      { type: 'message_stop', 'amazon-bedrock-invocationMetrics': { inputTokenCount: 12, outputTokenCount: 4 } },
    ]
    const bytes = join(events.map((e) => frame('chunk', { bytes: Buffer.from(JSON.stringify(e)).toString('base64') })))
    expect(parseBytes(bytes, invokeStream)).toEqual({
      text: 'Hi there',
      toolCalls: [],
      usage: { input: 12, output: 4, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      model: 'anthropic.claude-3-5-haiku-20241022-v1:0',
      finishReason: 'end_turn',
    })
  })

  it('says so when an event stream comes without its bytes', () => {
    expect(codec.parseResponse('', ES, 200, converseStream).error).toEqual({ type: 'parse_error', message: 'an event stream body was read without its bytes' })
  })
})

describe('bedrock event streams', () => {
  const redactor = createRedactor()
  const redact = (parts: readonly string[]) => redactor.chunks(parts)
  // Built at run time, so no key-shaped literal sits in the repository.
  const AKIA = ['AK', 'IA', 'Z7QW3RTN5XKVB2LD'].join('')

  it('leaves a body without secrets as it was (undefined: keep the bytes)', () => {
    expect(redactEventStream(join(toolStream), redact)).toBeUndefined()
  })

  it('redacts a key inside one frame and one split across two text deltas; every frame still passes its CRC checks', () => {
    const frames = [
      frame('messageStart', { role: 'assistant' }),
      frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: `Your key is ${AKIA}.` } }),
      frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: ` Again: ${AKIA.slice(0, 10)}` } }),
      frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: `${AKIA.slice(10)} done` } }),
      frame('messageStop', { stopReason: 'end_turn' }),
    ]
    const bytes = join(frames)
    const pieces = redactEventStream(bytes, redact)!
    expect(pieces).toHaveLength(5)
    expect(pieces[0].bytes).toEqual(frames[0])
    expect(pieces.map((p) => p.end)).toEqual(frames.map((_, i) => frames.slice(0, i + 1).reduce((n, f) => n + f.length, 0)))
    const out = join(pieces.map((p) => p.bytes))
    expect(Buffer.from(out).toString('latin1')).not.toContain(AKIA.slice(0, 10))
    expect(Buffer.from(out).toString('latin1')).not.toContain(AKIA.slice(10))
    // The SDK's codec decodes every rewritten frame (lengths and both CRC32s hold).
    const read = readFrames(out)
    expect(read.problem).toBeUndefined()
    const text = parseBytes(out).text
    expect(text).toMatch(/^Your key is \[REDACTED:[0-9a-f]{8}\]\. Again: \[REDACTED:[0-9a-f]{8}\] done$/)
  })

  it('drops the cut tail of a stream when it holds a secret', () => {
    const whole = frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: `key ${AKIA} here` } })
    const bytes = join([frame('messageStart', { role: 'assistant' }), whole.subarray(0, whole.length - 6)])
    const pieces = redactEventStream(bytes, redact)!
    expect(pieces).toHaveLength(1)
  })

  it('describes a body one frame a line for the viewer', () => {
    const view = describeEventStream(join([toolStream[0], toolStream[7], frame('throttlingException', { message: 'slow' }, 'exception')]))
    expect(view).toBe(
      'event messageStart {"role":"assistant","p":"abcdefgh"}\nevent messageStop {"stopReason":"tool_use"}\nexception throttlingException {"message":"slow"}',
    )
  })
})

import { describe, expect, test } from 'vitest'
import type { ModelCell } from '../../cassette/cell.js'
import { buildRequest, planRequest } from './request.js'

const cell = (over: Partial<ModelCell>): ModelCell => ({
  seq: 1,
  step: 'model#1',
  key: `sha256:${'0'.repeat(64)}`,
  family: 'openai-chat',
  url: 'https://api.openai.com/v1/chat/completions',
  request: { method: 'POST', path: '/v1/chat/completions', body: { model: 'gpt-4.1' } },
  response: { status: 200, headers: {}, chunks: [] },
  usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
  text: '',
  toolCalls: [],
  durationMs: 1,
  truncated: false,
  ...over,
})

describe('planRequest', () => {
  test('sends to the upstream of the recorded host, keeping the path under the upstream base path', () => {
    const p = planRequest(cell({}), { 'api.openai.com': new URL('http://127.0.0.1:4000/proxy/') })
    expect(p.target.href).toBe('http://127.0.0.1:4000/proxy/v1/chat/completions')
    expect(p).toMatchObject({ host: 'api.openai.com', upstream: true, keyVars: ['OPENAI_API_KEY'] })
  })

  test("Gemini: a redacted ?key= is dropped and the real key goes in the family's header", () => {
    const p = planRequest(
      cell({
        family: 'gemini',
        url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=[REDACTED:0123abcd]',
        request: { method: 'POST', path: '/x', body: {} },
      }),
      {},
    )
    expect(p.target.href).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse')
    expect(p.keyVars).toEqual(['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY'])
    expect(buildRequest(p, 'AIza-test').init.headers).toEqual({ 'content-type': 'application/json', 'x-goog-api-key': 'AIza-test' })
  })

  test('a realtime socket frame is skipped, saying why', () => {
    const p = planRequest(
      cell({
        family: 'openai-realtime',
        url: 'wss://api.openai.com/v1/realtime?model=gpt-realtime',
        request: { method: 'POST', path: '/v1/realtime?model=gpt-realtime', body: { type: 'response.create' } },
      }),
      {},
    )
    expect(p.skip).toContain('realtime WebSocket session, which fluxlab drift does not open')
  })

  test('a loopback host needs no key; Responses and embeddings authenticate like OpenAI chat', () => {
    expect(planRequest(cell({ url: 'http://127.0.0.1:11434/v1/chat/completions' }), {}).keyVars).toEqual([])
    const p = planRequest(cell({ family: 'openai-embeddings', url: 'https://api.openai.com/v1/embeddings' }), {})
    expect(buildRequest(p, 'sk-x').init.headers).toEqual({ 'content-type': 'application/json', authorization: 'Bearer sk-x' })
  })

  test.each([
    [{ transportError: { name: 'Error', message: 'reset', code: 'ECONNRESET' } }, 'the recording is a transport failure (ECONNRESET), not a response'],
    [
      { response: { status: 200, headers: {}, chunks: [], clientAbort: { afterChunks: 0, t: 1 } } },
      'the client aborted it after 0 chunks, so the recording is partial',
    ],
    [{ response: { status: 200, headers: {}, chunks: [], open: true as const } }, 'its stream was still open when the run ended, so the recording is partial'],
    [
      { request: { method: 'POST', path: '/v1/responses', body: { previous_response_id: 'resp_<1>' } } },
      'it continues a stored response (previous_response_id) that only the recording run had; the provider cannot find it again',
    ],
  ])('a recording that is no whole answer is skipped with its reason (%#)', (over, reason) => {
    expect(planRequest(cell(over as Partial<ModelCell>), {}).skip).toBe(reason)
  })

  test('a Bedrock call is skipped with the reason: its requests are signed per request (SigV4), not sent with a key', () => {
    const p = planRequest(
      cell({ family: 'bedrock', url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse' }),
      {},
    )
    expect(p.skip).toMatch(/^Bedrock requests are signed per request with AWS SigV4/)
  })

  test('redacted values in the body are counted in a note', () => {
    expect(planRequest(cell({ request: { method: 'POST', path: '/', body: { a: '[REDACTED:0123abcd]', b: ['[REDACTED:89abcdef]'] } } }), {}).notes).toEqual([
      'its body holds 2 redacted values, sent as the placeholders',
    ])
  })
})

test('buildRequest turns positional id placeholders back into ids, the same placeholder into the same id', () => {
  const body = {
    messages: [{ tool_calls: [{ id: 'call_<1>' }, { id: 'call_<2>' }] }, { role: 'tool', tool_call_id: 'call_<2>' }],
    text: 'call_<1> stays inside text',
  }
  const { init } = buildRequest(planRequest(cell({ request: { method: 'POST', path: '/', body } }), {}), 'sk-x')
  expect(JSON.parse(init.body as string)).toEqual({
    messages: [{ tool_calls: [{ id: 'call_fluxdrift0001' }, { id: 'call_fluxdrift0002' }] }, { role: 'tool', tool_call_id: 'call_fluxdrift0002' }],
    text: 'call_<1> stays inside text',
  })
})

import { describe, expect, it } from 'vitest'
import { buildPrompt } from '../prompt.js'
import { Rubric } from '../rubric.js'
import { resolveEndpoint } from './endpoint.js'
import { judgeReply, judgeRequest } from './wire.js'

const prompt = buildPrompt({ criterion: 'cites the policy', text: 'Refunds within 30 days.' })
const scoredPrompt = buildPrompt({ criterion: 'cites the policy', text: 'Refunds within 30 days.', threshold: 0.7, instructions: 'Be strict.' })
const OPENAI = Rubric.model('openai/gpt-4.1-mini')
const ANTHROPIC = Rubric.model('anthropic/claude-haiku-4-5')
const GEMINI = Rubric.model('google/gemini-2.5-flash')

describe('resolveEndpoint', () => {
  const what = 'grade "x"'
  it('uses the provider defaults, then the env base URL, then the rubric option', () => {
    const r = Rubric.model('anthropic/claude-haiku-4-5')
    expect(resolveEndpoint(r, { ANTHROPIC_API_KEY: 'k' }, what)).toEqual({ baseURL: 'https://api.anthropic.com', key: 'k' })
    expect(resolveEndpoint(r, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/' }, what).baseURL).toBe('http://127.0.0.1:9')
    expect(
      resolveEndpoint(
        Rubric.model('anthropic/claude-haiku-4-5', { baseURL: 'http://proxy' }),
        { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'http://env' },
        what,
      ).baseURL,
    ).toBe('http://proxy')
    expect(resolveEndpoint(Rubric.model('openai/gpt-4.1-mini'), { OPENAI_API_KEY: 'k' }, what).baseURL).toBe('https://api.openai.com/v1')
    expect(resolveEndpoint(Rubric.model('google/gemini-2.5-flash'), { GOOGLE_GENERATIVE_AI_API_KEY: 'g' }, what)).toEqual({
      baseURL: 'https://generativelanguage.googleapis.com',
      key: 'g',
    })
  })

  it('reads the key from apiKeyEnv when given', () => {
    const r = Rubric.model('openai/gpt-4.1-mini', { apiKeyEnv: 'JUDGE_KEY' })
    expect(resolveEndpoint(r, { JUDGE_KEY: 'j', OPENAI_API_KEY: 'o' }, 'x').key).toBe('j')
    expect(() => resolveEndpoint(r, { OPENAI_API_KEY: 'o' }, 'x')).toThrow(/JUDGE_KEY is not set/)
  })
})

describe('request shapes', () => {
  it('openai: chat completions in JSON mode, without temperature for reasoning models', () => {
    const req = judgeRequest(Rubric.model('openai/gpt-4.1-mini'), prompt, { baseURL: 'https://api.openai.com/v1', key: 'k' })
    expect(req.url).toBe('https://api.openai.com/v1/chat/completions')
    expect(req.headers).toEqual({ authorization: 'Bearer k' })
    expect(req.body).toEqual({
      model: 'gpt-4.1-mini',
      messages: [
        { role: 'system', content: prompt.system },
        { role: 'user', content: prompt.user },
      ],
      temperature: 0,
      response_format: { type: 'json_object' },
    })
    expect(judgeRequest(Rubric.model('openai/o4-mini'), prompt, { baseURL: 'x' }).body).not.toHaveProperty('temperature')
    expect(judgeRequest(Rubric.model('openai/gpt-5-mini'), prompt, { baseURL: 'x' }).headers).toEqual({})
  })

  it('anthropic: a forced record_verdict tool, with or without /v1 in the base URL', () => {
    const r = Rubric.model('anthropic/claude-haiku-4-5', { threshold: 0.7 })
    const req = judgeRequest(r, scoredPrompt, { baseURL: 'https://api.anthropic.com', key: 'k' })
    expect(req.url).toBe('https://api.anthropic.com/v1/messages')
    expect(judgeRequest(r, scoredPrompt, { baseURL: 'http://h/v1', key: 'k' }).url).toBe('http://h/v1/messages')
    expect(req.headers).toEqual({ 'x-api-key': 'k', 'anthropic-version': '2023-06-01' })
    expect(req.body).toMatchObject({
      model: 'claude-haiku-4-5',
      max_tokens: 1024,
      tool_choice: { type: 'tool', name: 'record_verdict' },
      tools: [{ name: 'record_verdict', input_schema: { required: ['verdict', 'rationale', 'score'] } }],
    })
  })

  it('gemini: the key in a header, a JSON response schema, with or without /v1beta in the base URL', () => {
    const r = Rubric.model('google/gemini-2.5-flash')
    const req = judgeRequest(r, prompt, { baseURL: 'https://generativelanguage.googleapis.com', key: 'g' })
    expect(req.url).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent')
    expect(judgeRequest(r, prompt, { baseURL: 'http://h/v1beta', key: 'g' }).url).toBe('http://h/v1beta/models/gemini-2.5-flash:generateContent')
    expect(req.headers).toEqual({ 'x-goog-api-key': 'g' })
    expect(req.body).toMatchObject({ generationConfig: { responseMimeType: 'application/json', responseSchema: { required: ['verdict', 'rationale'] } } })
  })
})

describe('reply parsing', () => {
  it('openai: reads choices[0].message.content, and reports a refusal', () => {
    expect(judgeReply(OPENAI, { choices: [{ message: { content: '{"verdict":"PASS","rationale":"ok"}' } }] })).toEqual({
      ok: true,
      reply: { verdict: 'PASS', rationale: 'ok' },
    })
    expect(judgeReply(OPENAI, { choices: [{ message: { content: null, refusal: 'I cannot grade this.' } }] })).toEqual({
      ok: false,
      problem: 'the judge refused: I cannot grade this.',
    })
    expect(judgeReply(OPENAI, {})).toEqual({ ok: false, problem: 'expected choices[0].message.content to be a string' })
  })

  it('anthropic: reads the tool input, else a text block', () => {
    expect(judgeReply(ANTHROPIC, { content: [{ type: 'tool_use', name: 'record_verdict', input: { verdict: 'FAIL', rationale: 'no' } }] })).toMatchObject({
      ok: true,
      reply: { verdict: 'FAIL' },
    })
    expect(judgeReply(ANTHROPIC, { content: [{ type: 'text', text: '{"verdict":"PASS","rationale":"ok"}' }] })).toMatchObject({
      ok: true,
      reply: { verdict: 'PASS' },
    })
    expect(judgeReply(ANTHROPIC, { content: [] })).toEqual({ ok: false, problem: 'expected a record_verdict tool call or a text block' })
  })

  it('gemini: joins the non-thought parts, and reports a blocked prompt', () => {
    const body = { candidates: [{ content: { parts: [{ text: 'thinking…', thought: true }, { text: '{"verdict":"PASS",' }, { text: '"rationale":"ok"}' }] } }] }
    expect(judgeReply(GEMINI, body)).toEqual({ ok: true, reply: { verdict: 'PASS', rationale: 'ok' } })
    expect(judgeReply(GEMINI, { promptFeedback: { blockReason: 'SAFETY' } })).toEqual({ ok: false, problem: 'the prompt was blocked (SAFETY)' })
  })
})

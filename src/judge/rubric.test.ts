import { describe, expect, it } from 'vitest'
import { isRubric, Rubric } from './rubric.js'

describe('Rubric.model', () => {
  it('needs an explicit model: no argument is a type error and a runtime error', () => {
    // @ts-expect-error there is no default judge model
    expect(() => Rubric.model()).toThrow(
      '[fluxlab] FLUX_BAD_CONFIG: Failed to create Rubric.model(): the judge model is missing (received nothing); there is no default, so no assertion spends money on a model nobody chose.',
    )
    // @ts-expect-error there is no default judge model
    expect(() => Rubric.model(undefined)).toThrow(/there is no default/)
    expect(() => Rubric.model('' as never)).toThrow(/the judge model is missing \(received ""\)/)
  })

  it('needs the provider part: a bare model id is a type error and a runtime error', () => {
    // @ts-expect-error a judge model is `<provider>/<model>`
    expect(() => Rubric.model('gpt-4.1-mini')).toThrow(/a judge model is named `<provider>\/<model>`/)
    expect(() => Rubric.model('openai/' as const)).toThrow(/a judge model is named/)
  })

  it('picks the API from the provider, and the OpenAI-compatible API for any other provider', () => {
    const api = (m: `${string}/${string}`) => Rubric.model(m).api
    expect([
      api('openai/gpt-4.1-mini'),
      api('anthropic/claude-haiku-4-5'),
      api('google/gemini-2.5-flash'),
      api('gemini/gemini-2.5-flash'),
      api('groq/llama-3.3-70b'),
    ]).toEqual(['openai', 'anthropic', 'gemini', 'gemini', 'openai'])
    expect(Rubric.model('vertex/claude-haiku-4-5', { api: 'anthropic', baseURL: 'https://proxy.internal' }).api).toBe('anthropic')
  })

  it('keeps slashes after the provider in the model name, and lowercases the provider', () => {
    const r = Rubric.model('OpenRouter/anthropic/claude-haiku-4.5')
    expect([r.model, r.provider, r.modelName]).toEqual(['openrouter/anthropic/claude-haiku-4.5', 'openrouter', 'anthropic/claude-haiku-4.5'])
  })

  it('rejects a threshold outside 0..1, a bad timeout, retries or api', () => {
    expect(() => Rubric.model('openai/gpt-4.1-mini', { threshold: 7 })).toThrow(/threshold must be a number from 0 to 1 \(received 7\)/)
    expect(() => Rubric.model('openai/gpt-4.1-mini', { timeoutMs: 0 })).toThrow(/timeoutMs must be a positive number/)
    expect(() => Rubric.model('openai/gpt-4.1-mini', { retries: 1.5 })).toThrow(/retries must be a whole number/)
    expect(() => Rubric.model('openai/gpt-4.1-mini', { api: 'cohere' as never })).toThrow(/api "cohere" is not one of openai, anthropic, gemini/)
  })

  it('is frozen', () => {
    const r = Rubric.model('openai/gpt-4.1-mini', { instructions: 'Be strict.' })
    expect(Object.isFrozen(r)).toBe(true)
    expect([r.kind, r.instructions, r.threshold, r.transport.timeoutMs, r.transport.retries]).toEqual(['model', 'Be strict.', undefined, 60_000, 2])
  })
})

describe('Rubric.fn', () => {
  it('names the judge after the function, or the name option', () => {
    async function refundCheck() {
      return { verdict: 'PASS' as const }
    }
    expect(Rubric.fn(refundCheck).model).toBe('fn:refundCheck')
    expect(Rubric.fn(refundCheck, { name: 'refund@2' }).model).toBe('fn:refund@2')
    expect(Rubric.fn(() => ({ verdict: 'PASS' })).model).toBe('fn:judge')
    expect(Rubric.fn(refundCheck).onTape).toBe(true)
    expect(Rubric.fn(refundCheck, { tape: false }).onTape).toBe(false)
  })

  it('rejects what is not a function', () => {
    // @ts-expect-error the judge is a function
    expect(() => Rubric.fn('judge')).toThrow(/the judge must be a function \(received "judge"\)/)
  })
})

describe('isRubric', () => {
  it('tells rubrics from strings and plain objects', () => {
    expect(isRubric(Rubric.model('openai/gpt-4.1-mini'))).toBe(true)
    expect(isRubric(Rubric.fn(() => ({ verdict: 'PASS' })))).toBe(true)
    expect(isRubric('openai/gpt-4.1-mini')).toBe(false)
    expect(isRubric({ kind: 'model', model: 'openai/gpt-4.1-mini' })).toBe(false)
  })
})

// Issue 25: the redactor searches all the strings of a request at once, and only string by string when that search
// finds something. These tests hold it to the string-by-string answer: the same output for every value, whatever
// mix of secrets, JSON-looking strings and `replace` rules it holds.
import { describe, expect, it } from 'vitest'
import { placeholderFor } from '../secrets/redact.js'
import { createRedactor, defaultRedactor, type Redactor } from './redact.js'

const x = (unit: string, n: number) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n)
const OPENAI = `sk-proj-${x('Qw3rT9_yU1-iO5pA', 120)}`
const ANTHROPIC = `sk-ant-api03-${x('Zx8Cv7Bn6Mm5_Lk4-Jh3', 93)}AA`
const GOOGLE = `AIzaSy${x('Dk4Lm8Np2Qr6St0Uv', 33)}`

/** Strings of every kind a request body holds. */
const SAMPLES = [
  'What is the capital of the UK?',
  'You are a helpful assistant.',
  `my key is ${OPENAI}, keep it safe`,
  ANTHROPIC,
  `Bearer abcdEFGH1234ijklMNOP5678`,
  '{"country":"UK"}',
  `{"apiKey":"${GOOGLE}"}`,
  `data: {"t":"${ANTHROPIC.slice(0, 20)}"}\n\ndata: {"t":"${ANTHROPIC.slice(20)}"}\n`,
  'sk-proj-',
  x('AbCd', 40),
  'tmp-1234 was the run directory',
  'https://user:hunter22secret@db.example.test/x',
  '',
  'password=Sup3rS3cretValue!',
]

/** The answer string by string: every string of `value` redacted as `text` redacts it alone. */
function oneByOne(r: Redactor, value: unknown): unknown {
  if (typeof value === 'string') return r.text(value)
  if (Array.isArray(value)) return value.map((v) => oneByOne(r, v))
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [r.text(k), oneByOne(r, v)]))
  return value
}

/** A body of `n` strings drawn from SAMPLES by a seeded generator, under keys no label rule reads. */
function body(seed: number, n: number): unknown {
  let s = seed
  const next = () => ((s = (s * 1103515245 + 12345) % 2 ** 31), s)
  const pick = () => SAMPLES[next() % SAMPLES.length]
  return { model: 'gpt-4.1-mini', messages: Array.from({ length: n }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: pick(), parts: [pick(), { text: pick() }] })) }
}

describe('one search for all the strings of a value', () => {
  const withRule = createRedactor({ replace: [{ pattern: /^tmp-\d+/ }, { pattern: 'run directory', with: '<dir>' }] })

  it.each([0, 1, 2, 3, 4, 5, 6, 7])('gives the string-by-string answer for a mixed body (seed %i), with and without replace rules', (seed) => {
    const value = body(seed, 6)
    expect(defaultRedactor.json(value)).toEqual(oneByOne(defaultRedactor, value))
    expect(withRule.json(value)).toEqual(oneByOne(withRule, value))
  })

  it('redacts the one string with a secret among many clean ones, and leaves the clean ones as they were', () => {
    const value = { messages: [...Array.from({ length: 30 }, (_, i) => ({ content: `turn ${i}: nothing to hide` })), { content: `key ${OPENAI}` }] }
    const out = defaultRedactor.json(value) as { messages: Array<{ content: string }> }
    expect(out.messages.at(-1)?.content).toBe(`key ${placeholderFor(OPENAI)}`)
    expect(out.messages.slice(0, 30)).toEqual(value.messages.slice(0, 30))
  })

  it('joins no two strings: a key split across two strings of a body stays as it was, as string by string', () => {
    const value = { a: 'sk-proj-', b: x('Qw3rT9yU1iO5pA', 40) }
    expect(defaultRedactor.json(value)).toEqual(value)
  })

  it('applies an anchored replace rule to a string in the middle of the value, as it applies it to that string alone', () => {
    expect(withRule.json({ a: 'x', b: 'tmp-1234 was the run directory' })).toEqual({ a: 'x', b: `${placeholderFor('tmp-1234')} was the <dir>` })
  })

  it('redacts a label-keyed value as the text `key=value` would be', () => {
    expect(defaultRedactor.json({ password: 'Sup3rS3cretValue!', note: 'plain' })).toEqual({ password: placeholderFor('Sup3rS3cretValue!'), note: 'plain' })
  })

  it('returns a new value: the caller may change it without touching the request it came from', () => {
    const value = { user: 'u1', messages: [{ content: 'hi' }] }
    const out = defaultRedactor.json(value) as typeof value
    out.messages[0].content = 'changed'
    expect(value.messages[0].content).toBe('hi')
  })

  it('redacts a request URL and body together, each as url() and json() / text() do alone', () => {
    const url = `https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent?key=${GOOGLE}&alt=sse`
    for (const value of [body(3, 4), { clean: 'nothing' }]) {
      const out = defaultRedactor.request(url, { json: value })
      expect(out).toEqual({ url: defaultRedactor.url(url), body: { json: defaultRedactor.json(value) } })
      const clean = defaultRedactor.request('https://api.openai.com/v1/chat/completions', { json: value })
      expect(clean).toEqual({ url: 'https://api.openai.com/v1/chat/completions', body: { json: defaultRedactor.json(value) } })
    }
    const text = `--<boundary>\r\nContent-Disposition: form-data; name="key"\r\n\r\n${OPENAI}\r\n--<boundary>--\r\n`
    expect(defaultRedactor.request('http://127.0.0.1:9/upload', { text })).toEqual({ url: 'http://127.0.0.1:9/upload', body: { text: defaultRedactor.text(text) } })
    expect(defaultRedactor.request('http://127.0.0.1:9/x?q=1', null)).toEqual({ url: 'http://127.0.0.1:9/x?q=1', body: null })
  })
})

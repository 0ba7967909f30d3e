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
  return {
    model: 'gpt-4.1-mini',
    messages: Array.from({ length: n }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: pick(), parts: [pick(), { text: pick() }] })),
  }
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
    expect(defaultRedactor.request('http://127.0.0.1:9/upload', { text })).toEqual({
      url: 'http://127.0.0.1:9/upload',
      body: { text: defaultRedactor.text(text) },
    })
    expect(defaultRedactor.request('http://127.0.0.1:9/x?q=1', null)).toEqual({ url: 'http://127.0.0.1:9/x?q=1', body: null })
  })
})

// Issue 25: a request whose raw text shows no anchor of a secret rule (and no escape that could hide one) is not
// searched. These hold that shortcut to the full answer: the same URL and body as without the raw text, for bodies
// with secrets, anchors, escapes, JSON-looking strings whose stream deltas join into a key, and labelled values.
describe('a request whose text shows no secret', () => {
  /** Strings with no anchor of any rule. */
  const PLAIN = ['What is the capital of the UK?', 'You are a helpful assistant.', 'a/b\\c "quoted"\ttab', '', x('AbCd', 40), 'max tokens please']
  const KEY = `sk-proj-${x('Qw3rT9yU1iO5pA', 40)}`
  /** One string (or key and value) that decides: a secret, an anchor alone, a key only an escape or a stream join shows. */
  const DECIDERS: Array<{ key?: string; value: string; raw?: (text: string) => string }> = [
    { value: 'nothing at all' },
    { value: KEY },
    { value: 'sk-' },
    { value: KEY, raw: (t) => t.replace('"sk-proj-', '"\\u0073k-proj-') },
    { value: 'see https://user:hunter22pa55@db.example.test/x', raw: (t) => t.replace(/\//g, '\\/') },
    { value: 'the config says api_key=Abcdef123456789' },
    { value: `data: {"t":"s"}\n\ndata: {"t":"k-proj-${x('Qw3rT9yU1iO5pA', 40)}"}\n` },
    { value: '{"text":"no secret here"}' },
    { key: 'a&x-amz-security-token', value: 'AbCdEfGh12345678XyZ' },
    { key: 'x_token', value: 'plain words' },
    { key: 'password', value: 'Sup3rS3cretValue' },
  ]
  const URLS = [
    'https://api.openai.com/v1/chat/completions',
    'http://127.0.0.1:4010/capital?country=UK',
    `https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent?key=${GOOGLE}&alt=sse`,
    'https://user:pa55word@proxy.example.test/v1/messages',
    'http://127.0.0.1:9/x?next=https://a:b@c.example.test/',
    'http://127.0.0.1:9/x?api_key=short',
    'http://127.0.0.1:9/x?state=1',
    `http://127.0.0.1:9/x?q=%73k-proj-${x('Qw3rT9yU1iO5pA', 40)}`,
    'http://127.0.0.1:9/auth/callback',
  ]
  /** A body of plain strings and one decider, as JSON text (its escapes written out as some clients do). */
  function rawBody(seed: number, d: (typeof DECIDERS)[number]): string {
    let s = seed
    const next = () => ((s = (s * 1103515245 + 12345) % 2 ** 31), s)
    const pick = () => PLAIN[next() % PLAIN.length]
    const messages: Array<Record<string, unknown>> = Array.from({ length: 1 + (seed % 3) }, () => ({ content: pick(), parts: [pick()] }))
    messages.splice(next() % (messages.length + 1), 0, { [d.key ?? 'content']: d.value })
    const text = JSON.stringify({ model: 'gpt-4.1-mini', max_tokens: 10, messages })
    return d.raw ? d.raw(text) : text
  }
  const redactors = [defaultRedactor, createRedactor({ queryParams: ['state'], bodyPaths: ['messages[*].note'] }), createRedactor({ disable: ['openai-key'] })]

  it.each(DECIDERS.map((d, i) => [i, d.key ?? d.value.slice(0, 40)] as const))('gives the same URL and body as the full search (decider %i: %s)', (i) => {
    for (let seed = 0; seed < 4; seed++) {
      const raw = rawBody(seed, DECIDERS[i])
      for (const r of redactors)
        for (const url of URLS) expect(r.request(url, { json: JSON.parse(raw) }, raw), `${url} ${raw}`).toEqual(r.request(url, { json: JSON.parse(raw) }))
    }
  })

  it('gives the same URL as the full search for a request with no body', () => {
    for (const r of redactors) for (const url of URLS) expect(r.request(url, null, '')).toEqual({ url: r.url(url), body: null })
  })

  it('takes the shortcut for a plain chat request, and not for one a key hides in', () => {
    const plain = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'What is the capital of the UK?' }] })
    const json = JSON.parse(plain)
    // the shortcut hands the parsed body back as it is: the full search builds a new one
    expect((defaultRedactor.request('https://api.openai.com/v1/chat/completions', { json }, plain).body as { json: unknown }).json).toBe(json)
    const split = JSON.stringify({ messages: [{ content: DECIDERS[5].value }] })
    expect(JSON.stringify(defaultRedactor.request('https://api.openai.com/v1/chat/completions', { json: JSON.parse(split) }, split).body)).toContain(
      '[REDACTED:',
    )
  })
})

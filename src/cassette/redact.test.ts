import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { findSecrets } from '../secrets/find.js'
import { placeholderFor } from '../secrets/redact.js'
import { scanValue } from './scan-value.js'
import { createRedactor, defaultRedactor } from './redact.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const x = (unit: string, n: number) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n)
const OPENAI = `sk-proj-${x('Qw3rT9_yU1-iO5pA', 120)}`
const ANTHROPIC = `sk-ant-api03-${x('Zx8Cv7Bn6Mm5_Lk4-Jh3', 93)}AA`
const GOOGLE = `AIzaSy${x('Dk4Lm8Np2Qr6St0Uv', 33)}`
const JWT = `${Buffer.from('{"alg":"RS256","typ":"JWT"}').toString('base64url')}.${Buffer.from('{"sub":"user-7","iat":1700000000}').toString('base64url')}.${x('Sg9Kp3Xz', 86)}`

describe('headers', () => {
  it('replaces the value of every credential header and lowercases names', () => {
    const out = defaultRedactor.headers({
      'X-Api-Key': ANTHROPIC,
      'api-key': 'azure0123456789abcdef0123456789ab',
      'x-goog-api-key': GOOGLE,
      'anthropic-api-key': ANTHROPIC,
      'Proxy-Authorization': 'Basic dXNlcjpwYXNz',
      'openai-organization': 'org-Ab12Cd34Ef56',
      'openai-project': 'proj_Ab12Cd34Ef56Gh78',
      'anthropic-organization-id': '0b6c6c1e-8f5e-4f0a-9c43-3f2a1d5e7b90',
      Cookie: '__cf_bm=abc.def-1747148049-1.0.1.1-xyz; _cfuvid=q1w2e3',
    })
    expect(out).toEqual({
      'x-api-key': placeholderFor(ANTHROPIC),
      'api-key': placeholderFor('azure0123456789abcdef0123456789ab'),
      'x-goog-api-key': placeholderFor(GOOGLE),
      'anthropic-api-key': placeholderFor(ANTHROPIC),
      'proxy-authorization': `Basic ${placeholderFor('dXNlcjpwYXNz')}`,
      'openai-organization': placeholderFor('org-Ab12Cd34Ef56'),
      'openai-project': placeholderFor('proj_Ab12Cd34Ef56Gh78'),
      'anthropic-organization-id': placeholderFor('0b6c6c1e-8f5e-4f0a-9c43-3f2a1d5e7b90'),
      cookie: placeholderFor('__cf_bm=abc.def-1747148049-1.0.1.1-xyz; _cfuvid=q1w2e3'),
    })
  })

  it('keeps the Bearer scheme and gives the token the same placeholder as in a body', () => {
    const out = defaultRedactor.headers({ Authorization: `Bearer ${OPENAI}` })
    expect(out).toEqual({ authorization: `Bearer ${placeholderFor(OPENAI)}` })
    expect(defaultRedactor.text(`{"k":"${OPENAI}"}`)).toBe(`{"k":"${placeholderFor(OPENAI)}"}`)
  })

  it('leaves ordinary headers as they are but redacts a secret inside one', () => {
    const out = defaultRedactor.headers({ 'Content-Type': 'application/json', 'x-stainless-arch': 'arm64', 'x-debug': `key=${GOOGLE}` })
    expect(out).toEqual({ 'content-type': 'application/json', 'x-stainless-arch': 'arm64', 'x-debug': `key=${placeholderFor(GOOGLE)}` })
  })

  it('redacts configured extra headers, whatever their case', () => {
    const r = createRedactor({ headers: ['X-Tenant-Secret'] })
    expect(r.headers({ 'x-tenant-secret': 'plain-value' })).toEqual({ 'x-tenant-secret': placeholderFor('plain-value') })
    expect(defaultRedactor.headers({ 'x-tenant-secret': 'plain-value' })).toEqual({ 'x-tenant-secret': 'plain-value' })
  })

  it('redacts the expired Cloudflare cookies of a recorded cassette', () => {
    const file = join(root, 'test/fixtures/traffic/openai-chat/test_tool_use_basic.yaml')
    const cassette = parse(readFileSync(file, 'utf8')) as { interactions: Array<{ response: { headers: Record<string, string[]> } }> }
    for (const { response } of cassette.interactions) {
      const flat = Object.fromEntries(Object.entries(response.headers).map(([k, v]) => [k, v.join(', ')]))
      expect(flat['Set-Cookie']).toContain('__cf_bm=')
      const out = defaultRedactor.headers(flat)
      expect(out['set-cookie']).toMatch(/^\[REDACTED:[0-9a-f]{8}\]$/)
      expect(out['openai-organization']).toMatch(/^\[REDACTED:[0-9a-f]{8}\]$/)
      expect(out['content-type']).toBe(flat['Content-Type'])
    }
  })
})

describe('url', () => {
  const gemini = 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent'

  it('replaces ?key= on a Gemini URL and keeps the other parameters', () => {
    expect(defaultRedactor.url(`${gemini}?alt=sse&key=${GOOGLE}`)).toBe(`${gemini}?alt=sse&key=${placeholderFor(GOOGLE)}`)
    expect(defaultRedactor.url(`${gemini}?key=${GOOGLE}&alt=sse`)).toBe(`${gemini}?key=${placeholderFor(GOOGLE)}&alt=sse`)
  })

  it('replaces token, signature and configured parameters even when they do not look like keys', () => {
    const r = createRedactor({ queryParams: ['Session'] })
    const out = r.url('https://x.test/a?token=abc&Signature=def&session=ghi&page=2#access_token=jkl')
    expect(out).toBe(
      `https://x.test/a?token=${placeholderFor('abc')}&Signature=${placeholderFor('def')}&session=${placeholderFor('ghi')}&page=2#access_token=${placeholderFor('jkl')}`,
    )
  })

  it('hashes the decoded parameter value so the same key matches its body placeholder', () => {
    const encoded = GOOGLE.replace(/[0-9]/g, (d) => `%3${d}`)
    expect(encoded).not.toBe(GOOGLE)
    expect(defaultRedactor.url(`${gemini}?key=${encoded}`)).toBe(`${gemini}?key=${placeholderFor(GOOGLE)}`)
  })

  it('replaces the password of userinfo, or a token used as the user name', () => {
    expect(defaultRedactor.url('https://bob:s3cret@proxy.test/v1')).toBe(`https://bob:${placeholderFor('s3cret')}@proxy.test/v1`)
    expect(defaultRedactor.url('https://tok123@git.test/r')).toBe(`https://${placeholderFor('tok123')}@git.test/r`)
  })

  it('searches a query value decoded and encodes it again with the placeholder readable', () => {
    const pem = `-----BEGIN PRIVATE KEY-----\n${x('MIIEvQIBADANBgkqhkiG9w0BAQEFAASC', 64)}\n-----END PRIVATE KEY-----\n`
    const repo = 'https://deploy:Xk2-p9Lm7~qR@git.example.com/a.git'
    expect(defaultRedactor.url(`https://api.test/v1/x?upstream=${encodeURIComponent(pem)}&n=1`)).toBe(
      `https://api.test/v1/x?upstream=${placeholderFor(pem.trim())}%0A&n=1`,
    )
    expect(defaultRedactor.url(`https://api.test/v1/x?repo=${encodeURIComponent(repo)}`)).toBe(
      `https://api.test/v1/x?repo=${encodeURIComponent('https://deploy:')}${placeholderFor('Xk2-p9Lm7~qR')}${encodeURIComponent('@git.example.com/a.git')}`,
    )
  })

  it('redacts a secret anywhere else in the URL', () => {
    expect(defaultRedactor.url(`https://hooks.test/bot/${OPENAI}/send`)).toBe(`https://hooks.test/bot/${placeholderFor(OPENAI)}/send`)
  })
})

describe('json', () => {
  it('returns a redacted deep copy and leaves the input alone', () => {
    const input = { model: 'gpt-4o', messages: [{ role: 'user', content: `key ${OPENAI}` }], n: 1, ok: true, none: null }
    const before = structuredClone(input)
    const out = defaultRedactor.json(input)
    expect(out).toEqual({ ...before, messages: [{ role: 'user', content: `key ${placeholderFor(OPENAI)}` }] })
    expect(input).toEqual(before)
  })

  it('redacts a string labelled as a secret by its key, as the scan of the stored line sees it', () => {
    const body = { user: 'deploy', password: 'hunter2024', db: { AWS_SECRET_ACCESS_KEY: x('wJalrXUtnFEMI/K7MDENG/bPxRfiCYEX', 40) }, note: 'password reset' }
    const out = defaultRedactor.json(body)
    expect(out).toEqual({
      user: 'deploy',
      password: placeholderFor('hunter2024'),
      db: { AWS_SECRET_ACCESS_KEY: placeholderFor(body.db.AWS_SECRET_ACCESS_KEY) },
      note: 'password reset',
    })
    expect(scanValue(out)).toEqual([])
    expect(findSecrets(JSON.stringify(out))).toEqual([])
  })

  it('gives a secret in a tool output the placeholder it gets in the request that carries it as JSON text', () => {
    const pem = `-----BEGIN RSA PRIVATE KEY-----\n${x('MIIEowIBAAKCAQEA', 64)}\n${x('q9Lm7Xk2', 64)}\n-----END RSA PRIVATE KEY-----\n`
    const output = defaultRedactor.json({ credential: pem }) as { credential: string }
    const request = defaultRedactor.json({ messages: [{ role: 'tool', content: JSON.stringify({ credential: pem }) }] }) as {
      messages: Array<{ content: string }>
    }
    expect(output.credential).toBe(`${placeholderFor(pem.trim())}\n`)
    expect(request.messages[0].content).toBe(JSON.stringify(output))
  })

  it('redacts a secret used as an object key', () => {
    expect(defaultRedactor.json({ [GOOGLE]: 1 })).toEqual({ [placeholderFor(GOOGLE)]: 1 })
  })

  it('blanks configured body paths, wildcards included, to the placeholder of the value', () => {
    const r = createRedactor({ bodyPaths: ['metadata.user_id', 'messages[*].content', 'extra'] })
    const body = { metadata: { user_id: 'user-42' }, messages: [{ content: 'hi' }, { content: [{ type: 'text' }] }], extra: { a: 1 } }
    expect(r.json(body)).toEqual({
      metadata: { user_id: placeholderFor('user-42') },
      messages: [{ content: placeholderFor('hi') }, { content: placeholderFor('[{"type":"text"}]') }],
      extra: placeholderFor('{"a":1}'),
    })
  })

  it('skips disabled rules while the scanner still finds them', () => {
    const r = createRedactor({ disable: ['jwt'] })
    const body = { token_fixture: JWT, key: OPENAI }
    expect(r.json(body)).toEqual({ token_fixture: JWT, key: placeholderFor(OPENAI) })
    expect(scanValue(r.json(body))).toEqual([{ rule: 'jwt', path: 'token_fixture' }])
  })

  it('applies literal and RegExp replacements, with the placeholder by default', () => {
    const r = createRedactor({ replace: [{ pattern: 'acme.internal' }, { pattern: /cust_\d+/, with: 'cust_X' }] })
    expect(r.json({ u: 'https://acme.internal/x?c=cust_123 cust_9' })).toEqual({ u: `https://${placeholderFor('acme.internal')}/x?c=cust_X cust_X` })
  })
})

describe('chunks', () => {
  const split = (s: string, at: number) => [s.slice(0, at), s.slice(at)]

  it('replaces a key split across two chunks with one placeholder', () => {
    const cut = 25
    const [head, tail] = split(ANTHROPIC, cut)
    const chunks = ['event: content_block_delta\n', `data: {"text":"${head}`, `${tail}"}\n\n`, 'data: [DONE]\n\n']
    const out = defaultRedactor.chunks(chunks)
    expect(out).toEqual(['event: content_block_delta\n', `data: {"text":"${placeholderFor(ANTHROPIC)}`, '"}\n\n', 'data: [DONE]\n\n'])
  })

  it('removes the rest of a secret that spans three chunks and keeps empty chunks', () => {
    const chunks = ['a ', OPENAI.slice(0, 10), '', OPENAI.slice(10, 50), `${OPENAI.slice(50)} z`]
    expect(defaultRedactor.chunks(chunks)).toEqual(['a ', placeholderFor(OPENAI), '', '', ' z'])
  })

  it('keeps chunks without secrets byte-identical', () => {
    const chunks = ['data: {"t":"héllo 👋"}\r\n\r\n', '', 'data: {"t":"sk-not-a-key"}\n\n']
    expect(defaultRedactor.chunks(chunks)).toEqual(chunks)
  })

  it('applies configured replacements across chunk boundaries', () => {
    const r = createRedactor({ replace: [{ pattern: 'tenant-1234', with: 'tenant-X' }] })
    expect(r.chunks(['id=tenant-', '1234;'])).toEqual(['id=tenant-X', ';'])
  })

  const chat = (content: string) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }] })}\n\n`

  it('redacts a key split across two SSE events in both events, and the decoded text reads one placeholder', () => {
    const chunks = [chat('Your key: '), chat(OPENAI.slice(0, 60)), chat(`${OPENAI.slice(60)} ok`), 'data: [DONE]\n\n']
    const out = defaultRedactor.chunks(chunks)
    expect(out).toEqual([chat('Your key: '), chat(placeholderFor(OPENAI)), chat(' ok'), 'data: [DONE]\n\n'])
  })

  it('redacts a key split across events whose halves match no rule alone (Anthropic, Responses, Gemini deltas)', () => {
    const anthropic = (text: string) =>
      `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })}\n\n`
    const responses = (delta: string) =>
      `event: response.output_text.delta\ndata: ${JSON.stringify({ type: 'response.output_text.delta', output_index: 0, delta })}\n\n`
    const gemini = (text: string) => `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text }] } }] })}\r\n\r\n`
    for (const event of [anthropic, responses, gemini]) {
      const chunks = [event(`key ${GOOGLE.slice(0, 6)}`), event(`${GOOGLE.slice(6)} end`)]
      expect(findSecrets(chunks.join(''))).toEqual([])
      expect(defaultRedactor.chunks(chunks)).toEqual([event(`key ${placeholderFor(GOOGLE)}`), event(' end')])
    }
  })

  it('redacts a JSON-escaped PEM key cut across two writes with the placeholder of the key itself', () => {
    const pem = `-----BEGIN PRIVATE KEY-----\n${x('MIIEvQIBADANBgkqhkiG9w0BAQEFAASC', 64)}\n${x('Kp3Xz9Sg', 64)}\n-----END PRIVATE KEY-----`
    const body = chat(`here:\n${pem}\nbye`)
    const at = body.indexOf('MIIE') + 20
    const out = defaultRedactor.chunks([body.slice(0, at), body.slice(at)])
    expect(out).toEqual([chat(`here:\n${placeholderFor(pem)}\nbye`).slice(0, body.indexOf('-----BEGIN') + placeholderFor(pem).length), '\\nbye"}}]}\n\n'])
    expect(out.join('')).toBe(chat(`here:\n${placeholderFor(pem)}\nbye`))
  })

  it('keeps the JSON of both events when a PEM key is split across them (a raw match would run from BEGIN to END)', () => {
    const pem = `-----BEGIN PRIVATE KEY-----\n${x('MIIEvQIBADANBgkqhkiG9w0BAQEFAASC', 64)}\n${x('Kp3Xz9Sg', 64)}\n-----END PRIVATE KEY-----`
    const half = 70
    const out = defaultRedactor.chunks([chat(`key: ${pem.slice(0, half)}`), chat(`${pem.slice(half)}\nbye`), 'data: [DONE]\n\n'])
    expect(out).toEqual([chat(`key: ${placeholderFor(pem)}`), chat('\nbye'), 'data: [DONE]\n\n'])
  })

  it('redacts a key split across streamed tool-call arguments', () => {
    const args = (a: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: a } }] } }] })}\n\n`
    const json = JSON.stringify({ token: GOOGLE })
    const cut = json.indexOf(GOOGLE) + 10
    const out = defaultRedactor.chunks([args(json.slice(0, cut)), args(json.slice(cut))])
    expect(out.map((c) => JSON.parse(c.slice(6)).choices[0].delta.tool_calls[0].function.arguments).join('')).toBe(
      JSON.stringify({ token: placeholderFor(GOOGLE) }),
    )
  })

  it('leaves no secret in the joined output', () => {
    const stream = `data: {"a":"${OPENAI}","b":"${JWT}","c":"${GOOGLE}"}\n\n`
    const chunks = stream.match(/.{1,7}/gs) ?? []
    const out = defaultRedactor.chunks(chunks)
    expect(out).toHaveLength(chunks.length)
    expect(findSecrets(out.join(''))).toEqual([])
  })
})

describe('marker', () => {
  it('has the form v1:<8 hex>', () => {
    expect(defaultRedactor.marker).toMatch(/^v1:[0-9a-f]{8}$/)
  })

  it('is equal for equal configs, whatever the order or case of names', () => {
    const a = createRedactor({ headers: ['X-A', 'x-b'], bodyPaths: ['p.q', 'r'], replace: [{ pattern: /a+/g }] })
    const b = createRedactor({ headers: ['x-b', 'x-a'], bodyPaths: ['r', 'p.q'], replace: [{ pattern: /a+/g }] })
    expect(a.marker).toBe(b.marker)
    expect(createRedactor({}).marker).toBe(defaultRedactor.marker)
  })

  it('differs when any part of the config differs', () => {
    const markers = [
      {},
      { headers: ['x-a'] },
      { queryParams: ['session'] },
      { bodyPaths: ['metadata.user_id'] },
      { disable: ['jwt'] },
      { replace: [{ pattern: 'a' }] },
      { replace: [{ pattern: /a/ }] },
      { replace: [{ pattern: /a/i }] },
      { replace: [{ pattern: 'a', with: 'b' }] },
    ].map((c) => createRedactor(c).marker)
    expect(new Set(markers).size).toBe(markers.length)
  })

  it('is the same in another process', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fluxlab-marker-'))
    const bundle = join(dir, 'redact.mjs')
    execFileSync(join(root, 'node_modules/.bin/esbuild'), [
      join(root, 'src/cassette/redact.ts'),
      '--bundle',
      '--platform=node',
      '--format=esm',
      `--outfile=${bundle}`,
      '--log-level=error',
    ])
    const script = join(dir, 'main.mjs')
    writeFileSync(script, `import { createRedactor } from './redact.mjs'\nconsole.log(createRedactor({ headers: ['x-a'], bodyPaths: ['m[*].c'] }).marker)\n`)
    const other = execFileSync(process.execPath, [script], { encoding: 'utf8' }).trim()
    expect(other).toBe(createRedactor({ headers: ['x-a'], bodyPaths: ['m[*].c'] }).marker)
  })
})

import { createHash, generateKeyPairSync } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { describeFinding } from '../cassette/scan.js'
import { scanValue } from '../cassette/scan-value.js'
import { findSecrets } from './find.js'
import { PLACEHOLDER_PATTERN, placeholderFor, redactMessage, redactText } from './redact.js'
import { SECRET_RULES } from './rules.js'

/** Deterministic pseudo-random strings, so generated keys look real but are never real. */
function generator(seed: number) {
  let s = seed >>> 0
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[Math.floor(next() * alphabet.length)]).join('')
}
const gen = generator(20240611)
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const URLSAFE = `${ALNUM}_-`
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'
const b64url = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url')
const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()

/** [rule, label, secret]: one generated value per key family. */
const SAMPLES: Array<[string, string, string]> = [
  ['openai-key', 'OpenAI project key', `sk-proj-${gen(URLSAFE, 156)}`],
  ['openai-key', 'OpenAI legacy key', `sk-${gen(ALNUM, 20)}T3BlbkFJ${gen(ALNUM, 20)}`],
  ['openai-key', 'OpenAI service account key', `sk-svcacct-${gen(URLSAFE, 120)}`],
  ['openai-key', 'OpenAI admin key', `sk-admin-${gen(URLSAFE, 100)}`],
  ['anthropic-key', 'Anthropic API key', `sk-ant-api03-${gen(URLSAFE, 93)}AA`],
  ['anthropic-key', 'Anthropic admin key', `sk-ant-admin01-${gen(URLSAFE, 93)}AA`],
  ['google-api-key', 'Google API key', `AIzaSy${gen(URLSAFE, 33)}`],
  ['google-oauth-token', 'Google OAuth token', `ya29.a0${gen(URLSAFE, 150)}`],
  ['aws-access-key-id', 'AWS access key id (AKIA)', `AKIA${gen(UPPER, 16)}`],
  ['aws-access-key-id', 'AWS temporary access key id (ASIA)', `ASIA${gen(UPPER, 16)}`],
  ['github-token', 'GitHub personal token', `ghp_${gen(ALNUM, 36)}`],
  ['github-token', 'GitHub OAuth token', `gho_${gen(ALNUM, 36)}`],
  ['github-token', 'GitHub user-to-server token', `ghu_${gen(ALNUM, 36)}`],
  ['github-token', 'GitHub server-to-server token', `ghs_${gen(ALNUM, 36)}`],
  ['github-token', 'GitHub refresh token', `ghr_${gen(ALNUM, 36)}`],
  ['github-token', 'GitHub fine-grained token', `github_pat_11${gen(UPPER, 20)}_${gen(ALNUM, 59)}`],
  ['jwt', 'JWT', `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ sub: 'u_42', exp: 1893456000 })}.${gen(URLSAFE, 43)}`],
  ['slack-token', 'Slack bot token', `xoxb-${gen('0123456789', 12)}-${gen('0123456789', 13)}-${gen(ALNUM, 24)}`],
  ['slack-token', 'Slack user token', `xoxp-${gen('0123456789', 12)}-${gen('0123456789', 12)}-${gen('0123456789', 13)}-${gen('0123456789abcdef', 32)}`],
  ['slack-token', 'Slack app token', `xoxa-2-${gen('0123456789', 12)}-${gen(ALNUM, 32)}`],
  ['stripe-key', 'Stripe live secret key', `sk_live_${gen(ALNUM, 99)}`],
  ['stripe-key', 'Stripe restricted key', `rk_live_${gen(ALNUM, 99)}`],
  ['groq-key', 'Groq key', `gsk_${gen(ALNUM, 52)}`],
  ['xai-key', 'xAI key', `xai-${gen(ALNUM, 80)}`],
  ['huggingface-token', 'Hugging Face token', `hf_${gen(ALNUM, 34)}`],
  ['private-key', 'PEM private key', pem.trim()],
  ['private-key', 'PEM private key escaped inside JSON', JSON.stringify(pem.trim()).slice(1, -1)],
]

/** Surroundings a secret is found in: prose, a JSON string, after an escaped newline, a header line. */
const CONTEXTS: Array<(s: string) => string> = [
  (s) => `my key is ${s} ok`,
  (s) => `{"content":"${s}","n":1}`,
  (s) => String.raw`{"content":"see below:\n` + s + String.raw`\n"}`,
  (s) => `x-api-key: ${s}\r\n`,
]

const wrap4 = (a: string, b: string) => `${a} | ${b}`
/** Each rule whose spans in `text` as `findSecrets` finds them (that rule alone) differ from its pattern's own matches. */
function unlikeWritten(text: string): string[] {
  const wrong: string[] = []
  for (const r of SECRET_RULES) {
    const re = new RegExp(r.pattern.source, `${r.pattern.flags.replace(/[gd]/g, '')}gd`)
    const want = [...text.matchAll(re)]
      .map((m) => m.indices?.groups?.secret ?? m.indices![0])
      .filter(([s, e]) => e > s)
      .map(([s, e]) => `${s}-${e}`)
    const got = findSecrets(text, { disable: SECRET_RULES.filter((o) => o !== r).map((o) => o.id) }).map((m) => `${m.start}-${m.end}`)
    if (JSON.stringify(got) !== JSON.stringify(want)) wrong.push(`${r.id} in ${JSON.stringify(text)}: ${got} vs ${want}`)
  }
  return wrong
}
const slices = (s: string, n = 12) => Array.from({ length: Math.max(0, s.length - n + 1) }, (_, i) => s.slice(i, i + n))

describe('SECRET_RULES', () => {
  it('has unique ids and a description for every rule', () => {
    const ids = SECRET_RULES.map((r) => r.id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const r of SECRET_RULES) expect(r.description.length).toBeGreaterThan(10)
  })

  it('has a generated sample for every rule that keys off a prefix', () => {
    const contextual = new Set(['bearer-token', 'url-key-param', 'labelled-secret', 'aws-secret-key', 'basic-auth-url'])
    const sampled = new Set(SAMPLES.map(([rule]) => rule))
    expect(SECRET_RULES.map((r) => r.id).filter((id) => !contextual.has(id) && !sampled.has(id))).toEqual([])
  })

  // issue 14: the search takes a leading guard off a rule and checks it per match; the spans must be the rule's own
  it('finds the spans each rule finds as written, its leading guard included, whatever stands before a secret', () => {
    const bodies = [
      'password=hunter2hunter2',
      'PASSWORD: "hunter2hunter2"',
      'api_key=k9k9k9k9k9k9',
      'Bearer abc123abc123abc123',
      `aws_secret_access_key=${'Ab3/Cd4+Ef5Gh6Ij7Kl8Mn9Op0Qr1St2Uv3Wx4Yz5'.slice(0, 40)}`,
      'AKIA' + 'Q7Q7Q7Q7Q7Q7Q7Q7',
      `sk-proj-${'Hj7Kl2_Mn4-Pq8Rs'.repeat(3)}`,
    ]
    const before = ['', 'x', 'X', '9', '_', '-', ' ', '"', '\\n', '\n', 'ſ', 'K', 'é', '\ud800', 'password=', 'xpassword=']
    expect(bodies.flatMap((body) => before.flatMap((b) => unlikeWritten(`${b}${body}${b}${body}`)))).toEqual([])
  })
  // issue 14: a text is searched only with the rules whose anchors it holds; an anchor a match can lack would hide a secret
  it("has anchors every match of its rule contains, in the rule's letter case", () => {
    const texts = [
      ...SAMPLES.flatMap(([, , secret]) => CONTEXTS.map((wrap) => wrap(secret))),
      ...SAMPLES.map(([, , secret]) => wrap4(secret.toLowerCase(), secret.toUpperCase())),
      'password=hunter2hunter2 PASSWD: "x9x9x9x9x9" Api-Key=k9k9k9k9k9k9 APIKEY: "k9k9k9k9k9k9" client_secret=c1c1c1c1c1',
      'Auth_Token=t1t1t1t1t1 refresh-token: "r2r2r2r2r2" secret_key=s3s3s3s3s3 access_token=a4a4a4a4a4',
      `aws_secret_access_key=${'Ab3/Cd4+Ef5Gh6Ij7Kl8Mn9Op0Qr1St2Uv3Wx4Yz5'.slice(0, 40)} SECRETACCESSKEY: "${'Q'.repeat(39)}1"`,
      'Bearer abc123abc123abc123 bearer\tZZ9ZZ9ZZ9ZZ9ZZ9ZZ9',
      'https://u:p4ssw0rd@db.example.test postgres://admin:hunter2@10.0.0.1',
      'https://x.test/a?key=AAAAAAAAAAAAAAAA1&API-KEY=BBBBBBBBBBBBBBBB2&Access_Token=CCCCCCCCCCCCCCCC3&sig=DDDDDDDDDDDDDDDD4',
      'https://x.test/a?Signature=EEEEEEEEEEEEEEEE5&X-Amz-Security-Token=FFFFFFFFFFFFFFFF6&x-goog-signature=GGGGGGGGGGGGGGGG7&client_secret=HHHHHHHHHHHHHHHH8',
    ]
    const missing: string[] = []
    for (const r of SECRET_RULES) {
      expect(r.anchors.length, r.id).toBeGreaterThan(0)
      const re = new RegExp(r.pattern.source, `${r.pattern.flags.replace(/[gd]/g, '')}g`)
      for (const text of texts)
        for (const m of text.matchAll(re)) {
          const holds = (a: string) => (r.pattern.flags.includes('i') ? m[0].toLowerCase().includes(a.toLowerCase()) : m[0].includes(a))
          if (!r.anchors.some(holds)) missing.push(`${r.id}: ${m[0]}`)
        }
    }
    expect(missing).toEqual([])
  })

  it('finds with its anchors what each rule finds without them, in generated texts', () => {
    const gen2 = generator(7)
    const pieces = [
      ...SAMPLES.flatMap(([, , secret]) => [secret, secret.slice(0, 12), secret.slice(6)]),
      'sk-',
      'sk-ant-',
      'SK-ANT-api03-',
      'Bearer ',
      'BEARER ',
      'password=',
      'PassWord: "',
      'api_key',
      '":"',
      '?key=',
      '&SIG=',
      '://',
      'u:',
      '@h',
      '-----BEGIN PRIVATE KEY-----',
      '-----END PRIVATE KEY-----',
      '\\n',
      '\n',
      ' ',
      '"',
      'ſ',
      'K',
      'é',
    ]
    const piece = () => pieces[parseInt(gen2('0123456789', 3), 10) % pieces.length] + gen2(`${ALNUM}_-=:/`, parseInt(gen2('0123456789', 2), 10) % 24)
    const short = Array.from({ length: 400 }, () => Array.from({ length: 1 + (gen2('0123456789', 1).charCodeAt(0) % 8) }, piece).join(''))
    // and texts past the length from which the case-insensitive rules run without their anchor search
    const long = Array.from({ length: 6 }, () => Array.from({ length: 1200 }, piece).join(''))
    expect(Math.min(...long.map((t) => t.length))).toBeGreaterThan(16 * 1024)
    expect([...short, ...long].flatMap(unlikeWritten)).toEqual([])
  })
})

describe.each(SAMPLES)('%s: %s', (rule, _label, secret) => {
  it('finds the exact span of the secret in every context', () => {
    for (const wrap of CONTEXTS) {
      const text = wrap(secret)
      const start = text.indexOf(secret)
      expect(findSecrets(text)).toEqual([{ rule, start, end: start + secret.length }])
    }
  })

  it('replaces the secret with its placeholder and leaves the rest alone', () => {
    const out = redactText(`before ${secret} after`)
    expect(out).toBe(`before ${placeholderFor(secret)} after`)
    expect(out).not.toContain(secret)
  })

  it('reports the JSON path and rule without any part of the value', () => {
    const findings = scanValue({ messages: [{ role: 'user', content: `use ${secret} please` }] }, 'request.body')
    expect(findings).toEqual([{ rule, path: 'request.body.messages[0].content' }])
    const text = describeFinding({ ...findings[0], file: 'model.jsonl', line: 3 })
    expect(text).toBe(`model.jsonl:3 request.body.messages[0].content (${rule})`)
    expect(text).not.toContain(secret)
    for (const part of slices(secret)) expect(text).not.toContain(part)
  })

  it('leaves an already redacted text unchanged when redacted again', () => {
    const once = redactText(`a ${secret} b`)
    expect(redactText(once)).toBe(once)
  })
})

describe('contextual rules', () => {
  const token = `${gen(URLSAFE, 40)}9`

  it('keeps the word Bearer and replaces only the token', () => {
    expect(redactText(`Authorization: Bearer ${token}`)).toBe(`Authorization: Bearer ${placeholderFor(token)}`)
    expect(findSecrets(`"bearer ${token}"`).map((m) => m.rule)).toEqual(['bearer-token'])
  })

  it('gives a provider key after Bearer the same placeholder as the bare key', () => {
    const key = SAMPLES[0][2]
    expect(redactText(`Bearer ${key}`)).toBe(`Bearer ${redactText(key)}`)
  })

  it('finds a labelled AWS secret access key but not an unlabelled 40-character string', () => {
    const secret = `${gen(ALNUM, 18)}/${gen(ALNUM, 10)}+${gen(ALNUM, 10)}`
    for (const text of [`aws_secret_access_key = ${secret}`, `{"SecretAccessKey":"${secret}"}`, `AWS_SECRET_ACCESS_KEY=${secret}\n`]) {
      const start = text.indexOf(secret)
      expect(findSecrets(text)).toEqual([{ rule: 'aws-secret-key', start, end: start + secret.length }])
    }
    expect(findSecrets(`checksum ${secret}`)).toEqual([])
  })

  it('finds key-like query parameters in URLs', () => {
    const sig = encodeURIComponent(Buffer.from(gen(ALNUM, 32)).toString('base64'))
    const text = `https://acct.blob.core.windows.net/c/b.png?sv=2024-05-04&sig=${sig}`
    expect(redactText(text)).toBe(`https://acct.blob.core.windows.net/c/b.png?sv=2024-05-04&sig=${placeholderFor(sig)}`)
  })

  it('finds values after api_key, access_token, client_secret and password labels', () => {
    const value = `tvly-dev-${gen(ALNUM, 24)}`
    for (const text of [`{"api_key": "${value}"}`, `access_token=${value}`, `{\\"client_secret\\":\\"${value}\\"}`, `password: ${value}`]) {
      expect(redactText(text)).toBe(text.replace(value, placeholderFor(value)))
    }
  })

  it('finds the password of a URL with credentials and keeps the user name and host', () => {
    const password = `${gen(ALNUM, 14)}-${gen(ALNUM, 8)}~x`
    for (const url of [
      `https://deploy:${password}@git.example.com/acme/infra.git`,
      `postgres://app:${password}@db.internal:5432/prod`,
      `amqps://ci:${password}@[::1]:5671`,
    ]) {
      const text = `DEPLOY_URL=${url}\n`
      expect(redactText(text)).toBe(text.replace(password, placeholderFor(password)))
      expect(findSecrets(text).map((m) => m.rule)).toEqual(['basic-auth-url'])
    }
  })

  it('finds no password in URLs without one', () => {
    for (const text of [
      'mailto:ops@example.com',
      'git@github.com:acme/infra.git',
      'https://ops@git.example.com/x',
      'http://127.0.0.1:8080/a:b@c',
      'https://example.com/@user',
    ]) {
      expect(findSecrets(text)).toEqual([])
    }
  })

  it('redacts a PEM block that was cut off before its END line', () => {
    const cut = pem.slice(0, pem.length - 40)
    const out = redactText(`{"key":${JSON.stringify(cut)}}`)
    expect(out).toMatch(/^\{"key":"\[REDACTED:[0-9a-f]{8}\]"\}$/)
  })
})

describe('placeholders', () => {
  it('gives the same secret the same placeholder and different secrets different ones', () => {
    const [a, b] = [SAMPLES[4][2], SAMPLES[5][2]]
    expect(redactText(a)).toBe(redactText(a))
    expect(redactText(a)).not.toBe(redactText(b))
    expect(placeholderFor(a)).toBe(`[REDACTED:${createHash('sha256').update(a).digest('hex').slice(0, 8)}]`)
  })

  it('never matches a rule, whatever label or prefix stands before it', () => {
    for (let i = 0; i < 50; i++) {
      const p = placeholderFor(`secret-${i}`)
      const texts = [p, `Bearer ${p}`, `?key=${p}`, `{"api_key": "${p}"}`, `aws_secret_access_key=${p}`, `password: ${p}`, `\\n${p}`]
      for (const t of texts) expect(findSecrets(t)).toEqual([])
    }
  })

  it('gives a PEM key one placeholder raw, JSON-escaped (once or twice) and with CRLF line ends', () => {
    const raw = placeholderFor(pem.trim())
    const escaped = JSON.stringify(pem.trim()).slice(1, -1)
    for (const form of [escaped, JSON.stringify(escaped).slice(1, -1), pem.trim().replace(/\n/g, '\r\n')]) expect(placeholderFor(form)).toBe(raw)
    expect(redactText(`{"content":"${escaped}"}`)).toBe(`{"content":"${raw}"}`)
  })

  it('matches PLACEHOLDER_PATTERN', () => {
    expect(placeholderFor('x')).toMatch(new RegExp(`^${PLACEHOLDER_PATTERN.source}$`))
  })
})

describe('redactMessage', () => {
  it('removes every secret from an error message', () => {
    const secrets = SAMPLES.map(([, , s]) => s)
    const message = redactMessage(`request failed: ${secrets.join(' | ')}`)
    for (const s of secrets) expect(message).not.toContain(s)
    expect(message.startsWith('request failed: [REDACTED:')).toBe(true)
  })

  it('stringifies a non-string value such as an Error', () => {
    expect(redactMessage(new Error(`bad key ${SAMPLES[6][2]}`))).toBe(`Error: bad key ${placeholderFor(SAMPLES[6][2])}`)
  })
})

describe('false positives', () => {
  const benign: Array<[string, string]> = [
    ['chat completion id', 'chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG'],
    ['responses id', 'resp_67ccd3a9da748190baa7f1570fe91ac604becb25c1e1a2a1'],
    ['message id', 'msg_01XFDUDYJgAACzvnptvVoYEL'],
    ['Vertex message id', 'msg_vrtx_01UWnBrU8sbMkrDFEVGn6Vzz'],
    ['tool use id', 'toolu_01A09q90qw90lq917835lq9'],
    ['tool call id', 'call_DdmyJgK0ahGlKOdLGhAh8Z5M'],
    ['UUID', '0b6c6c1e-8f5e-4f0a-9c43-3f2a1d5e7b90'],
    ['sha256 hex', createHash('sha256').update('x').digest('hex')],
    ['obfuscation field', '{"obfuscation":"Xq3Zk9"}'],
    ['OpenAI project id header value', 'openai-project: proj_Ab12Cd34Ef56Gh78Ij90Kl12'],
    ['Cloudflare cookie', '__cf_bm=ys1VX4Q4znOtsubzjx.nHCe9_hPEK_9fLmKeIYZd9LE-1747148049-1.0.1.1-c_hjWtmrr1A3Gw'],
    ['model names', 'gpt-4o-mini-2024-07-18 claude-3-5-haiku-20241022 gemini-2.5-flash grok-4-fast-reasoning'],
    ['prose about bearers', 'The Bearer of bad news; send Bearer <token> or Bearer $OPENAI_API_KEY'],
    ['placeholders in docs', 'api_key: YOUR_API_KEY, password: {"type": "string"}, AIzaSy..., sk-..., "max_tokens": 1024'],
    ['library names', 'sk-learn hf_hub_download xai-sdk task-1234567890abcdef1234567890abcdef1234567890abcdef'],
  ]

  it.each(benign)('finds nothing in a %s', (_label, text) => {
    expect(findSecrets(text)).toEqual([])
  })

  it('finds nothing where a key prefix occurs by chance inside a base64url blob', () => {
    const prefixes = ['sk-', 'sk-proj-', 'hf_', 'gsk_', 'ghp_', 'AIza', 'AKIA', 'xai-', 'eyJ']
    for (const p of prefixes) {
      const blob = `gAAAAAB${gen(URLSAFE, 40)}${p}${gen(ALNUM, 90)}.${gen(ALNUM, 40)}`
      expect(findSecrets(`{"encrypted_content":"${blob}"}`)).toEqual([])
    }
  })

  it('finds nothing in 512 KiB of random base64 and base64url blobs', () => {
    const bytes = Buffer.from(gen(`${ALNUM}+/!@#$%^&*()`, 256 * 1024), 'latin1')
    const blobs = [bytes.toString('base64'), `gAAAAAB${bytes.toString('base64url')}`]
    for (const blob of blobs) {
      expect(findSecrets(`{"encrypted_content":"${blob}","signature":"${blob.slice(0, 4096)}"}`)).toEqual([])
    }
  })
})

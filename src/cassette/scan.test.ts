import { readFileSync, readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gunzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { findSecrets } from '../secrets/find.js'
import { placeholderFor } from '../secrets/redact.js'
import { defaultRedactor } from './redact.js'
import { describeFinding, scanJsonl, scanText } from './scan.js'
import { scanChunks } from './scan-stream.js'
import { scanValue } from './scan-value.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const x = (unit: string, n: number) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n)
const OPENAI = `sk-proj-${x('Hj7Kl2_Mn4-Pq8Rs', 120)}`
const ANTHROPIC = `sk-ant-api03-${x('Ty6Ui1Op9-As3_Df5', 93)}AA`
const GITHUB = `ghp_${x('Wq2Er4Ty6Ui8', 36)}`
const slices = (s: string, n = 12) => Array.from({ length: s.length - n + 1 }, (_, i) => s.slice(i, i + n))

describe('scanValue', () => {
  it('reports each secret with its JSON path under the base path', () => {
    const value = { messages: [{ content: 'hi' }, { content: [{ type: 'text', text: `k=${OPENAI}` }] }], metadata: { 'odd.key': GITHUB } }
    expect(scanValue(value, 'request.body')).toEqual([
      { rule: 'openai-key', path: 'request.body.messages[1].content[0].text' },
      { rule: 'github-token', path: 'request.body.metadata["odd.key"]' },
    ])
  })

  it('reports a secret at the root without a path', () => {
    expect(scanValue(ANTHROPIC)).toEqual([{ rule: 'anthropic-key' }])
    expect(scanValue([1, ANTHROPIC])).toEqual([{ rule: 'anthropic-key', path: '[1]' }])
  })

  it('reports a secret used as an object key with the key redacted in the path', () => {
    const findings = scanValue({ headers: { [OPENAI]: 'x' } }, 'request')
    expect(findings).toEqual([{ rule: 'openai-key', path: `request.headers["${placeholderFor(OPENAI)}"]` }])
    for (const part of slices(OPENAI)) expect(JSON.stringify(findings)).not.toContain(part)
  })

  it('finds nothing in a value the redactor produced', () => {
    const value = { a: OPENAI, b: [`Bearer ${ANTHROPIC}`], [GITHUB]: `https://x.test/?key=AIza${x('Kd93Ls', 35)}` }
    expect(scanValue(value)).toHaveLength(4)
    expect(scanValue(defaultRedactor.json(value))).toEqual([])
  })
})

describe('scanText', () => {
  it('gives 1-based lines and the JSON path inside each JSONL line', () => {
    const text = ['{"request":{"body":{"model":"m"}}}', `{"request":{"body":{"messages":[{"content":"${ANTHROPIC}"}]}}}`, ''].join('\n')
    expect(scanText(text, 'model.jsonl')).toEqual([{ file: 'model.jsonl', rule: 'anthropic-key', line: 2, path: 'request.body.messages[0].content' }])
  })

  it('gives the JSON path inside an SSE data line', () => {
    const text = `event: content_block_delta\r\ndata: {"delta":{"text":"${OPENAI}"}}\r\n\r\n`
    expect(scanText(text)).toEqual([{ rule: 'openai-key', line: 2, path: 'delta.text' }])
  })

  it('gives both line and path in a multi-line JSON document', () => {
    const text = JSON.stringify({ a: 1, list: ['x', { token: GITHUB }] }, null, 2)
    expect(scanText(text, 'f.json')).toEqual([{ file: 'f.json', rule: 'github-token', line: 6, path: 'list[1].token' }])
  })

  it('gives the first line of a secret that spans lines, without a path outside JSON', () => {
    const pem = `-----BEGIN RSA PRIVATE KEY-----\n${x('MIIEow', 64)}\n${x('AKCAQEA', 64)}\n-----END RSA PRIVATE KEY-----`
    const text = `interactions:\n- request:\n    body: |\n${pem.replace(/^/gm, '      ')}\n`
    expect(scanText(text, 'c.yaml')).toEqual([{ file: 'c.yaml', rule: 'private-key', line: 4 }])
  })

  it('finds a secret that JSON escaping hides from the text patterns', () => {
    const text = `{"k":"${OPENAI.replace(/-/g, '\\u002d')}"}\n`
    expect(scanText(text)).toEqual([{ rule: 'openai-key', line: 1, path: 'k' }])
  })

  it('finds a secret only the decoded string shows (a tab escaped as \\t after Bearer)', () => {
    const token = `${GITHUB.slice(4)}1`
    const text = `{"h":"Bearer\\t${token}"}\n`
    // the raw text holds a backslash and a "t" where the string holds a tab
    expect(scanText(`Bearer\\t${token}`)).toEqual([])
    expect(scanText(text)).toEqual([{ rule: 'bearer-token', line: 1, path: 'h' }])
  })

  it('skips the rules in disable', () => {
    const jwt = ['eyJhbGciOiJIUzI1NiJ9', 'eyJzdWIiOiIxMjM0NTY3ODkwIn0', 'dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'].join('.')
    const text = `{"t":"${jwt}","k":"${OPENAI}"}\n`
    expect(scanText(text).map((f) => f.rule)).toEqual(['jwt', 'openai-key'])
    expect(scanText(text, undefined, { disable: ['jwt'] })).toEqual([{ rule: 'openai-key', line: 1, path: 'k' }])
  })

  it('walks a value nested 100,000 deep without overflowing the stack', () => {
    const text = `${'['.repeat(100_000)}"${OPENAI}"${']'.repeat(100_000)}\n`
    expect(scanText(text)).toMatchObject([{ rule: 'openai-key', line: 1 }])
    expect(scanText(text)[0].path).toMatch(/^(\[0\]){100000}$/)
  })

  it('never reports a placeholder', () => {
    const text = `{"a":"${placeholderFor(OPENAI)}","b":"Bearer ${placeholderFor('t')}","u":"?key=${placeholderFor('k')}"}`
    expect(scanText(text)).toEqual([])
  })
})

describe('scanJsonl', () => {
  // issue 14: a string whose only escapes are `"`, `\` and line breaks (every SSE chunk) is not searched again in full
  it('finds a labelled secret, a Bearer token or an AWS secret right after an escaped line break, with its path', () => {
    const aws = `secret_access_key=${x('Ab3/Cd4+Ef5Gh6', 40)}`
    for (const [secret, rule] of [
      ['password=hunter2hunter2', 'labelled-secret'],
      [`Bearer ${x('abc123', 24)}`, 'bearer-token'],
      [aws, 'aws-secret-key'],
    ] as const)
      for (const before of ['\n', '\r', 'data: {"a":"b"}\n\n', '\\\n']) {
        const value = { response: { chunks: [{ t: 0, text: `${before}${secret}` }] }, [`k"\n${secret}`]: 1 }
        const line = JSON.stringify(value)
        // the raw text holds `\n` where the string holds a line break: the word guard sees an "n"
        expect(
          findSecrets(line).map((m) => m.rule),
          JSON.stringify(before),
        ).not.toContain(rule)
        const found = scanJsonl(`${line}\n`, 'm.jsonl', [value])
        expect(
          found.map((f) => [f.rule, f.line]),
          `${rule} after ${JSON.stringify(before)}`,
        ).toEqual([
          [rule, 1],
          [rule, 1],
        ])
        expect(found[0].path).toBe('response.chunks[0].text')
        expect(found[1].path).not.toContain(secret.slice(-8))
      }
  })

  it('finds every rule the decoded string shows, whatever escaped characters stand around the secret', () => {
    const samples = [
      OPENAI,
      ANTHROPIC,
      GITHUB,
      `Bearer ${x('abc123', 24)}`,
      'password=hunter2hunter2',
      `api_key": "${x('k9', 20)}`,
      `aws_secret_access_key=${x('Ab3/Cd4+Ef5Gh6', 40)}`,
      ['eyJhbGciOiJIUzI1NiJ9', 'eyJzdWIiOiIxMjM0NTY3ODkwIn0', 'dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'].join('.'),
      `-----BEGIN PRIVATE KEY-----\n${x('MIIEow', 64)}\n-----END PRIVATE KEY-----`,
      `https://user:${x('pw9', 12)}@db.example.com`,
      `https://h/x?key=${x('Qz8', 24)}`,
      `xoxb-${x('12ab', 24)}`,
      `AKIA${x('Q7', 16)}`,
    ]
    const around = ['', 'x', ' ', '"', '\\', '\n', '\r', '\r\n', '\t', '\f', '\b', '\u0001', '\\n', '"\n', '\n"', ':', '=']
    const missed: string[] = []
    for (const secret of samples)
      for (const before of around)
        for (const after of around) {
          const text = `${before}${secret}${after}`
          const want = new Set(findSecrets(text).map((m) => m.rule))
          const value = { s: text }
          const line = JSON.stringify(value)
          const got = new Set(scanJsonl(`${line}\n`, 'm.jsonl', [value]).map((f) => f.rule))
          for (const r of want) if (!got.has(r)) missed.push(`${r} in ${JSON.stringify(text).slice(0, 60)}`)
        }
    expect(missed).toEqual([])
  })

  // a chunk that is not UTF-8 on its own (a character split across two reads) is stored as base64: its text shows in no raw line
  it('finds a secret in a body stored as base64 chunks, decoded and joined, at the chunk where it starts', () => {
    const e = Buffer.from('é')
    const head = (s: string) => Buffer.concat([Buffer.from(s), e.subarray(0, 1)]).toString('base64')
    const tail = (s: string) => Buffer.concat([e.subarray(1), Buffer.from(s)]).toString('base64')
    const cases: Array<[string, Array<{ t: number; text?: string; b64?: string }>, string]> = [
      ['one b64 chunk, SSE', [{ t: 0, b64: head(`data: {"delta":"${ANTHROPIC} caf`) }], 'response.chunks[0].b64'],
      [
        'b64 then b64, plain text',
        [
          { t: 0, b64: head(`key ${GITHUB} caf`) },
          { t: 1, b64: tail(' done') },
        ],
        'response.chunks[0].b64',
      ],
      [
        'text then b64, split across them',
        [
          { t: 0, text: `data: {"d":"${OPENAI.slice(0, 30)}` },
          { t: 1, b64: head(`${OPENAI.slice(30)}"}\n\n`) },
        ],
        'response.chunks[0].text',
      ],
      [
        'split across SSE events, in b64 chunks',
        [
          { t: 0, b64: head(`data: {"d":"${ANTHROPIC.slice(0, 25)}"}\n\ndata: {"d":"${ANTHROPIC.slice(25)}`) },
          { t: 1, b64: tail('"}\n\n') },
        ],
        'response.chunks[0].b64',
      ],
    ]
    for (const [label, chunks, path] of cases) {
      const value = { response: { chunks } }
      const found = scanJsonl(`${JSON.stringify(value)}\n`, 'm.jsonl', [value])
      expect(found.length, label).toBeGreaterThan(0)
      expect(found[0].path, label).toBe(path)
      expect(found.map(describeFinding).join(' '), label).not.toContain(ANTHROPIC.slice(-12))
    }
    // and nothing in a clean base64 body
    const clean = {
      response: {
        chunks: [
          { t: 0, b64: head('data: {"d":"caf') },
          { t: 1, b64: tail('"}\n\n') },
        ],
      },
    }
    expect(scanJsonl(`${JSON.stringify(clean)}\n`, 'm.jsonl', [clean])).toEqual([])
  })

  it('finds what scanText finds, from the values its reader already parsed', () => {
    const text = ['{"a":"x"}', 'not json', '', `{"b":["${ANTHROPIC}",{"${GITHUB}":1}]}`, ''].join('\n')
    const values = text.split('\n').map((l) => (l.startsWith('{') ? JSON.parse(l) : undefined))
    expect(scanJsonl(text, 'm.jsonl', values)).toEqual(scanText(text, 'm.jsonl'))
    expect(scanJsonl(text, 'm.jsonl', values).map(describeFinding)).toEqual([
      'm.jsonl:4 b[0] (anthropic-key)',
      `m.jsonl:4 b[1]["${placeholderFor(GITHUB)}"] (github-token)`,
    ])
  })
})

describe('scanChunks', () => {
  it('finds a key split across two SSE chunks and points at the first one', () => {
    const chunks = ['event: ping\n\n', `data: {"text":"${ANTHROPIC.slice(0, 17)}`, `${ANTHROPIC.slice(17)}"}\n\n`]
    expect(scanChunks(chunks, 'response.chunks')).toEqual([{ rule: 'anthropic-key', path: 'response.chunks[1]' }])
    expect(chunks.flatMap((c) => scanText(c))).toEqual([])
  })

  it('builds the path with a function, e.g. to point at a field of the chunk', () => {
    const chunks = ['ok', 'still ok ', `${GITHUB} end`]
    expect(scanChunks(chunks, (i) => `response.chunks[${i}].text`)).toEqual([{ rule: 'github-token', path: 'response.chunks[2].text' }])
  })

  it('finds a key split across two SSE events, where neither event holds a secret-looking string', () => {
    const event = (text: string) => `data: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })}\n\n`
    const chunks = [event(`new key ${GITHUB.slice(0, 12)}`), event(`${GITHUB.slice(12)} ok`)]
    expect(chunks.flatMap((c) => scanText(c))).toEqual([])
    expect(scanChunks(chunks, 'response.chunks')).toEqual([{ rule: 'github-token', path: 'response.chunks[0]' }])
  })

  it('finds a key split across SSE events in a stored model.jsonl or journal line', () => {
    const event = (content: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`
    const chunks = [
      { t: 0, text: event(GITHUB.slice(0, 12)) },
      { t: 1, text: event(GITHUB.slice(12)) },
    ]
    const cell = { seq: 1, response: { status: 200, chunks } }
    const text = `${JSON.stringify(cell)}\n${JSON.stringify({ kind: 'cell', channel: 'model', cell })}\n`
    expect(scanText(text, 'model.jsonl')).toEqual([
      { file: 'model.jsonl', rule: 'github-token', path: 'response.chunks[0].text', line: 1 },
      { file: 'model.jsonl', rule: 'github-token', path: 'cell.response.chunks[0].text', line: 2 },
    ])
  })

  it('skips empty chunks when mapping a secret back', () => {
    expect(scanChunks(['', '', OPENAI.slice(0, 9), '', OPENAI.slice(9)])).toEqual([{ rule: 'openai-key', path: 'chunks[2]' }])
  })
})

describe('describeFinding', () => {
  it('names the file, line, path and rule', () => {
    expect(describeFinding({ rule: 'openai-key', file: 'model.jsonl', line: 3, path: 'response.chunks[2].text' })).toBe(
      'model.jsonl:3 response.chunks[2].text (openai-key)',
    )
    expect(describeFinding({ rule: 'jwt', line: 7 })).toBe('line 7 (jwt)')
    expect(describeFinding({ rule: 'jwt', path: 'a.b' })).toBe('a.b (jwt)')
  })

  it('redacts a secret that slipped into a file name or path', () => {
    const text = describeFinding({ rule: 'openai-key', file: `/tmp/${OPENAI}.jsonl`, path: `x["${GITHUB}"]` })
    for (const secret of [OPENAI, GITHUB]) for (const part of slices(secret)) expect(text).not.toContain(part)
  })
})

/**
 * @note This checks body patterns only, over each file's raw text. Some of these
 * cassettes carry expired Cloudflare cookies (`set-cookie`/`cookie`) and
 * `openai-organization`/`openai-project` ids: those are header-level concerns,
 * handled by `Redactor.headers()` by header name, and no body rule matches
 * them on purpose (see redact.test.ts for the cookie redaction).
 */
describe('recorded provider traffic', () => {
  const dir = join(root, 'test/fixtures/traffic')
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name))
    .sort()

  it('has the corpus described in SOURCES.md', () => {
    expect(files.length).toBeGreaterThanOrEqual(49)
  })

  it.each(files.map((f) => [relative(dir, f)]))('finds no secret in %s', (name) => {
    const text = readFileSync(join(dir, name), 'utf8')
    expect(scanText(text, name).map(describeFinding)).toEqual([])
  })

  it('finds no secret in the gzip bodies stored as !!binary', () => {
    let bodies = 0
    const visit = (v: unknown, name: string): string[] => {
      if (v instanceof Uint8Array) {
        bodies++
        return scanText(gunzipSync(v).toString('utf8'), name).map(describeFinding)
      }
      if (v && typeof v === 'object') return Object.values(v).flatMap((c) => visit(c, name))
      return []
    }
    const found = files
      .filter((f) => f.endsWith('.yaml') && readFileSync(f, 'utf8').includes('!!binary'))
      .flatMap((f) => visit(parse(readFileSync(f, 'utf8'), { schema: 'yaml-1.1' }), relative(dir, f)))
    expect(bodies).toBeGreaterThan(0)
    expect(found).toEqual([])
  })
})

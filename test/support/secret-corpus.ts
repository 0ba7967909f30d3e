/**
 * The secret corpus (issue 13): 14 realistic FAKE credential patterns × 9 places a credential turns up
 * in an agent's traffic, each cell an agent driving the real openai SDK against the local provider
 * server. Keys are built at runtime from random bytes, so this repository holds no key-shaped literal
 * for secret scanners to trip on, and nothing here is a real credential.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import OpenAI from 'openai'
import type { Lab } from 'fluxlab'
import { openaiBaseURL } from './base-urls.js'
import type { ProviderServer } from './provider-server.js'
import type { Exchange } from './traffic.js'

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const pick = (alphabet: string, n: number): string => [...randomBytes(n)].map((b) => alphabet[b % alphabet.length]).join('')
const b64url = (s: string | Buffer): string => Buffer.from(s).toString('base64url')
/** Prefixes are joined at runtime so no source line looks like a key. */
const p = (...parts: string[]): string => parts.join('')

/** A fake credential as an agent would meet it: `material` is the text that travels, `secret` the part that must never be stored. */
export interface FakeSecret {
  pattern: PatternId
  material: string
  secret: string
}

const PATTERNS = {
  'openai-key': () => plain(p('sk', '-proj-'), `${pick(`${ALNUM}_-`, 64)}${p('T3Blbk', 'FJ')}${pick(`${ALNUM}_-`, 64)}`),
  'anthropic-key': () => plain(p('sk', '-ant-', 'api03-'), `${pick(`${ALNUM}_-`, 93)}AA`),
  'aws-access-key-id': () => plain(p('AK', 'IA'), pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)),
  'aws-secret-key': () => labelled(p('aws_secret', '_access_key = '), pick(`${ALNUM}/+`, 40)),
  'github-token': () => plain(p('gh', 'p_'), pick(ALNUM, 36)),
  'github-pat': () => plain(p('github', '_pat_'), `${pick(ALNUM, 22)}_${pick(ALNUM, 59)}`),
  'slack-token': () => plain(p('xo', 'xb-'), `${pick('0123456789', 12)}-${pick('0123456789', 13)}-${pick(ALNUM, 24)}`),
  'stripe-key': () => plain(p('sk', '_live_'), `51${pick(ALNUM, 60)}`),
  'google-api-key': () => plain(p('AI', 'za'), pick(`${ALNUM}_-`, 35)),
  'google-oauth-token': () => plain(p('ya', '29.'), `a0${pick(`${ALNUM}_-`, 150)}`),
  jwt: () => {
    const token = [b64url('{"alg":"HS256","typ":"JWT"}'), b64url(JSON.stringify({ sub: pick(ALNUM, 12), iat: 1700000000 })), b64url(randomBytes(32))].join('.')
    return { material: token, secret: token }
  },
  'private-key': () => {
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()
    return {
      material: pem,
      secret: pem
        .split('\n')
        .filter((l) => l && !l.startsWith('-----'))
        .join('\n'),
    }
  },
  'basic-auth-url': () => {
    const password = `${pick(ALNUM, 14)}-${pick(ALNUM, 10)}~${pick(ALNUM, 4)}`
    return { material: `https://deploy:${password}@git.example.com/acme/infra.git`, secret: password }
  },
  'huggingface-token': () => plain(p('h', 'f_'), pick(ALNUM, 34)),
} satisfies Record<string, () => { material: string; secret: string }>

function plain(prefix: string, body: string): { material: string; secret: string } {
  return { material: prefix + body, secret: prefix + body }
}
function labelled(label: string, value: string): { material: string; secret: string } {
  return { material: label + value, secret: value }
}

export type PatternId = keyof typeof PATTERNS
export const PATTERN_IDS = Object.keys(PATTERNS) as PatternId[]

/**
 * A fresh fake credential of `pattern`.
 * @example
 * fakeSecret('openai-key') // { material: 'sk-proj-…', secret: 'sk-proj-…' }
 */
export function fakeSecret(pattern: PatternId): FakeSecret {
  return { pattern, ...PATTERNS[pattern]() }
}

export const PLACEMENTS = [
  'request-header',
  'query',
  'json-body',
  'response-body',
  'split-across-sse-events',
  'cut-mid-event-across-writes',
  'error-body-4xx',
  'tool-output',
  'error-message',
] as const
export type Placement = (typeof PLACEMENTS)[number]

/**
 * The texts a leak check looks for: every 8-character window of the secret (per line, for a PEM body),
 * so a key half redacted, or cut in two with one half in clear, still counts as leaked.
 */
function windows(secret: string): string[] {
  const out = new Set<string>()
  for (const part of secret.split(/\s+/)) {
    if (part.length <= 8) {
      if (part) out.add(part)
      continue
    }
    for (let i = 0; i + 8 <= part.length; i++) out.add(part.slice(i, i + 8))
  }
  return [...out]
}

/** `text` as stored, JSON-unescaped (twice, for JSON inside a JSON string) and percent-decoded: a secret in any encoding shows. */
function views(text: string): string[] {
  const unescape = (s: string) =>
    s.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_, e: string) =>
      e.length === 5 ? String.fromCharCode(parseInt(e.slice(1), 16)) : (({ n: '\n', r: '\r', t: '\t' } as Record<string, string>)[e] ?? e),
    )
  const once = unescape(text)
  const percent = (s: string) =>
    s.replace(/(%[0-9A-Fa-f]{2})+/g, (m) => {
      try {
        return decodeURIComponent(m)
      } catch {
        return m
      }
    })
  return [text, once, unescape(once), percent(text), percent(once)]
}

/**
 * True when any 8-character window of `secret` occurs in `text` (as stored or decoded).
 * @example
 * leaks(fileText, key.secret) // false
 */
export function leaks(text: string, secret: string): boolean {
  const ws = windows(secret)
  return views(text).some((v) => ws.some((w) => v.includes(w)))
}

// ---- the provider's side of each cell -------------------------------------------------------------

const MODEL = 'gpt-4o-mini'
const usage = { prompt_tokens: 21, completion_tokens: 9, total_tokens: 30 }
const json = (status: number, body: unknown): Exchange => ({
  method: 'POST',
  path: '/v1/chat/completions',
  status,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
})
const completion = (message: object, finish = 'stop'): Exchange =>
  json(200, {
    id: 'chatcmpl-corpus',
    object: 'chat.completion',
    created: 1,
    model: MODEL,
    choices: [{ index: 0, message: { role: 'assistant', refusal: null, ...message }, finish_reason: finish }],
    usage,
  })
const event = (delta: object, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: 'chatcmpl-corpus', object: 'chat.completion.chunk', created: 1, model: MODEL, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
const sse = (events: string[]): Exchange => {
  const tail = [
    event({}, 'stop'),
    `data: ${JSON.stringify({ id: 'chatcmpl-corpus', object: 'chat.completion.chunk', created: 1, model: MODEL, choices: [], usage })}\n\n`,
    'data: [DONE]\n\n',
  ]
  const writes = [...events, ...tail]
  return {
    method: 'POST',
    path: '/v1/chat/completions',
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8' },
    body: writes.join(''),
    writes,
  }
}
const TOOL_CALL = { id: 'call_corpus00001', type: 'function', function: { name: 'read_vault', arguments: '{"item":"deploy"}' } }

/**
 * What the provider answers in a cell, in order. `vault` is where the tool of `tool-output` reads from.
 * @example
 * startProviderServer({ script: providerScript('split-across-sse-events', key) })
 */
export function providerScript(placement: Placement, key: FakeSecret): Exchange[] {
  const m = key.material
  switch (placement) {
    case 'request-header':
    case 'query':
    case 'json-body':
      return [completion({ content: 'Noted.' })]
    case 'response-body':
      return [completion({ content: `Your deploy credential is ${m} (keep it safe).` })]
    case 'split-across-sse-events': {
      const half = Math.floor(m.length / 2)
      return [
        sse([event({ role: 'assistant', content: `Your deploy credential is ${m.slice(0, half)}` }), event({ content: `${m.slice(half)} (keep it safe).` })]),
      ]
    }
    case 'cut-mid-event-across-writes': {
      const ex = sse([event({ role: 'assistant', content: `Your deploy credential is ${m} (keep it safe).` })])
      const first = ex.writes![0]
      const escaped = JSON.stringify(m).slice(1, -1)
      const cut = first.indexOf(escaped) + Math.floor(escaped.length / 2)
      return [{ ...ex, writes: [first.slice(0, cut), first.slice(cut), ...ex.writes!.slice(1)] }]
    }
    case 'error-body-4xx':
      return [
        json(401, {
          error: {
            message: `Incorrect API key provided: ${m}. You can find your API key at https://platform.openai.com/account/api-keys.`,
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_api_key',
          },
        }),
      ]
    case 'tool-output':
    case 'error-message':
      return [completion({ content: null, tool_calls: [TOOL_CALL] }, 'tool_calls'), completion({ content: 'Deployed.' })]
  }
}

/**
 * The agent of a cell: the real openai SDK against `server`, with the credential where `placement` puts it.
 * `vaultUrl` answers the tool of `tool-output` (read with `fetch` inside the wrapped tool).
 * @example
 * await (await scenario('cell', { dir })).run(cellAgent('query', key, server, vault.url))
 */
export function cellAgent(placement: Placement, key: FakeSecret, server: ProviderServer, vaultUrl: string): (lab: Lab) => Promise<string> {
  const m = key.material
  return async (lab) => {
    const client = new OpenAI({ baseURL: openaiBaseURL(server), apiKey: 'sk-test', maxRetries: 0 })
    const ask = (content: string, opts: OpenAI.RequestOptions = {}) =>
      client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content }] }, opts).then((r) => r.choices[0].message.content ?? '')
    switch (placement) {
      case 'request-header':
        // A header holds no line break: a PEM key travels with its newlines escaped, as in a .env file.
        return ask('Deploy the service.', { headers: { 'x-upstream-credential': m.replace(/\n/g, '\\n') } })
      case 'query':
        return ask('Deploy the service.', { query: { upstream: m } })
      case 'json-body':
        return ask(`Deploy the service with this credential:\n${m}\nthanks`)
      case 'response-body':
        return ask('Give me the deploy credential.')
      case 'split-across-sse-events':
      case 'cut-mid-event-across-writes': {
        const stream = await client.chat.completions.create({
          model: MODEL,
          messages: [{ role: 'user', content: 'Give me the deploy credential.' }],
          stream: true,
          stream_options: { include_usage: true },
        })
        let text = ''
        for await (const c of stream) text += c.choices[0]?.delta.content ?? ''
        return text
      }
      case 'error-body-4xx':
        return ask('Deploy the service.').catch((e: Error) => `error: ${e.message}`)
      case 'tool-output':
      case 'error-message': {
        const readVault = lab.tool('read_vault', async (args: { item: string }) => {
          if (placement === 'error-message') throw new Error(`vault refused ${args.item}: credential ${m} is expired`)
          return (await fetch(`${vaultUrl}/vault/${args.item}`)).json()
        })
        const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Deploy the service.' }]
        const first = await client.chat.completions.create({ model: MODEL, messages })
        const msg = first.choices[0].message
        messages.push(msg)
        for (const call of msg.tool_calls ?? []) {
          if (call.type !== 'function') continue
          const content = await readVault(JSON.parse(call.function.arguments)).then(
            (out) => JSON.stringify(out),
            (e: Error) => `error: ${e.message}`,
          )
          messages.push({ role: 'tool', tool_call_id: call.id, content })
        }
        const second = await client.chat.completions.create({ model: MODEL, messages })
        return second.choices[0].message.content ?? ''
      }
    }
  }
}

/**
 * The vault the `tool-output` cell's tool reads (a plain JSON API, answered by the same local server).
 * @example
 * startProviderServer({ script: vaultScript(key) })
 */
export function vaultScript(key: FakeSecret): (req: { path: string }) => Exchange | undefined {
  return (req) =>
    req.path.startsWith('/vault/')
      ? {
          method: 'GET',
          path: req.path,
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ item: 'deploy', credential: key.material }),
        }
      : undefined
}

/**
 * Everything written to stdout, stderr and the console while `fn` runs (and still passed through).
 * @example
 * const { value, output } = await captureOutput(() => s.run(agent))
 */
export async function captureOutput<T>(fn: () => Promise<T>): Promise<{ value: T; output: string }> {
  let output = ''
  const restore: Array<() => void> = []
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write
    stream.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
      output += typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8')
      return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest)
    } as typeof stream.write
    restore.push(() => (stream.write = write))
  }
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const original = console[method]
    console[method] = (...args: unknown[]) => {
      output += `${args.map((a) => (a instanceof Error ? `${a.message}\n${a.stack}` : typeof a === 'string' ? a : JSON.stringify(a))).join(' ')}\n`
      original.apply(console, args)
    }
    restore.push(() => (console[method] = original))
  }
  try {
    return { value: await fn(), output }
  } finally {
    for (const r of restore.reverse()) r()
  }
}

/** Every file under `dir`, as `relative path → text`. */
export function filesUnder(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (d: string, prefix: string) => {
    if (!existsSync(d)) return
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name), `${prefix}${e.name}/`)
      else out[`${prefix}${e.name}`] = readFileSync(join(d, e.name), 'utf8')
    }
  }
  walk(dir, '')
  return out
}

/** The `[REDACTED:…]` placeholders in `text`. */
export const placeholdersIn = (text: string): string[] => [...new Set(text.match(/\[REDACTED:[0-9a-f]{8}\]/g) ?? [])].sort()

/**
 * With `FLUX_CORPUS_REPORT=<file>` set, appends one JSON line of counts to that file: how the
 * before/after numbers of issue 13 are measured (`FLUX_CORPUS_REPORT=/tmp/r.jsonl npx vitest run test/engine/secret-corpus.test.ts`).
 * @example
 * reportCounts('record', { cells: 126, leakedCells: 0 })
 */
export function reportCounts(what: string, counts: Record<string, unknown>): void {
  const file = process.env.FLUX_CORPUS_REPORT
  if (file) appendFileSync(file, `${JSON.stringify({ what, ...counts })}\n`)
}

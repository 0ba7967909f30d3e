/**
 * A local stand-in for eight model providers at once, for test/e2e/verdict.test.ts: one `node:http`
 * server on 127.0.0.1, each provider under its own path prefix (`/groq/openai/v1/chat/completions`,
 * `/anthropic/v1/messages`, `/gemini/v1beta/models/…:generateContent`), answering in that provider's
 * wire format: OpenAI-compatible chat completions (JSON, or SSE when the request streams), Anthropic
 * messages (JSON or SSE) and Gemini `generateContent` / `streamGenerateContent?alt=sse`.
 *
 * The answer comes from the prompt: "What is the capital of France?" gets "The capital of France is
 * Paris.", anything else a non-retryable 400, so a wrong request fails fast instead of after SDK backoff.
 *
 * Each provider checks its own key where that provider carries it (bearer token; `x-api-key` or bearer
 * for Anthropic; `x-goog-api-key` or `?key=` for Gemini) against the value it was started with, and
 * answers 401 otherwise: a placeholder key or another provider's key never gets an answer. Every
 * request is logged with its provider and whether its key was right.
 *
 * `stop()` takes the provider down but keeps its port: a bare TCP listener that counts every
 * connection and closes it at once, so "0 requests reached the provider" is measured, not assumed.
 */
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { setImmediate as nextTurn } from 'node:timers/promises'

export type ProviderId = 'openai' | 'anthropic' | 'groq' | 'gemini' | 'mistral' | 'xai' | 'fireworks' | 'gateway'
type Wire = 'openai-chat' | 'anthropic' | 'gemini'

/** Each provider: its wire format, and the variable that holds its key in the suites that call it. */
export const PROVIDERS: Record<ProviderId, { wire: Wire; keyVar: string; baseVar: string; base: (url: string) => string }> = {
  openai: { wire: 'openai-chat', keyVar: 'OPENAI_API_KEY', baseVar: 'OPENAI_BASE_URL', base: (u) => `${u}/openai/v1` },
  anthropic: { wire: 'anthropic', keyVar: 'ANTHROPIC_API_KEY', baseVar: 'ANTHROPIC_BASE_URL', base: (u) => `${u}/anthropic` },
  groq: { wire: 'openai-chat', keyVar: 'GROQ_API_KEY', baseVar: 'GROQ_BASE_URL', base: (u) => `${u}/groq` },
  gemini: { wire: 'gemini', keyVar: 'GEMINI_API_KEY', baseVar: 'GEMINI_BASE_URL', base: (u) => `${u}/gemini` },
  mistral: { wire: 'openai-chat', keyVar: 'MISTRAL_API_KEY', baseVar: 'MISTRAL_BASE_URL', base: (u) => `${u}/mistral` },
  xai: { wire: 'openai-chat', keyVar: 'XAI_API_KEY', baseVar: 'XAI_BASE_URL', base: (u) => `${u}/xai` },
  // Not in any built-in list of fluxlab's: the custom names the issue asks for.
  fireworks: { wire: 'openai-chat', keyVar: 'FIREWORKS_API_KEY', baseVar: 'FIREWORKS_BASE_URL', base: (u) => `${u}/fireworks` },
  gateway: { wire: 'openai-chat', keyVar: 'MY_GATEWAY_TOKEN', baseVar: 'MY_GATEWAY_URL', base: (u) => `${u}/gateway` },
}

export const CAPITALS: Record<string, string> = {
  France: 'Paris',
  Japan: 'Tokyo',
  Italy: 'Rome',
  Spain: 'Madrid',
  Portugal: 'Lisbon',
  Germany: 'Berlin',
  Kenya: 'Nairobi',
  Peru: 'Lima',
  Egypt: 'Cairo',
  Canada: 'Ottawa',
  Chile: 'Santiago',
  Norway: 'Oslo',
  Greece: 'Athens',
  Poland: 'Warsaw',
}

const MODELS = ['gpt-4o-mini', 'gpt-4o']

const alnum = (n: number) => {
  const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
  return [...randomBytes(n)].map((b) => abc[b % abc.length]).join('')
}
const b64url = (n: number) => randomBytes(n).toString('base64url').slice(0, n)

/**
 * One key per provider, shaped like that provider's real keys and new on every call (built at run
 * time, so no key-shaped literal sits in the repo for a secret scanner to flag).
 * @example
 * const keys = fakeKeys() // { OPENAI_API_KEY: 'sk-proj-…', GROQ_API_KEY: 'gsk_…', GEMINI_API_KEY: 'AIza…', … }
 */
export function fakeKeys(): Record<string, string> {
  const byProvider: Record<ProviderId, string> = {
    openai: `sk-proj-${b64url(48)}`,
    anthropic: `sk-ant-api03-${b64url(86)}-${b64url(6)}AA`,
    groq: `gsk_${alnum(52)}`,
    gemini: `AIza${b64url(35)}`,
    mistral: alnum(32),
    xai: `xai-${alnum(80)}`,
    fireworks: `fw_${alnum(24)}`,
    gateway: `mgw_live_${randomBytes(20).toString('hex')}`,
  }
  return Object.fromEntries(Object.entries(byProvider).map(([p, k]) => [PROVIDERS[p as ProviderId].keyVar, k]))
}

export interface EmulatorRequest {
  provider: ProviderId | undefined
  method: string
  path: string
  stream: boolean
  /** Where the key came from, and whether it was this provider's key. */
  carriage: 'bearer' | 'x-api-key' | 'x-goog-api-key' | 'query' | 'none'
  keyOk: boolean
  status: number
}

export interface ProviderEmulator {
  readonly url: string
  readonly requests: EmulatorRequest[]
  /** Connections made to the port after `stop()`. */
  readonly hitsWhileDown: number
  /** Every provider's base-URL variable, pointing here. */
  env(): Record<string, string>
  /** Take the providers down, keep counting what still connects to the port. */
  stop(): Promise<void>
  close(): Promise<void>
}

/**
 * Start the emulator; `keys` is variable name → value (see {@link fakeKeys}), the keys each provider accepts.
 * @example
 * const emu = await startProviderEmulator(keys)
 * await runVitest(project, [], { ...emu.env(), OPENAI_API_KEY: keys.OPENAI_API_KEY })
 */
export async function startProviderEmulator(keys: Record<string, string>): Promise<ProviderEmulator> {
  const requests: EmulatorRequest[] = []
  const server = createServer((req, res) => {
    handle(req, res, keys, requests).catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, { error: { message: `provider-emulator: ${(err as Error).message}` } })
      else res.destroy(err as Error)
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  const url = `http://127.0.0.1:${port}`
  let down: TcpServer | undefined
  let hitsWhileDown = 0
  const closeHttp = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve()
      server.close(() => resolve())
      server.closeAllConnections()
    })
  return {
    url,
    requests,
    get hitsWhileDown() {
      return hitsWhileDown
    },
    env: () => Object.fromEntries(Object.values(PROVIDERS).map((p) => [p.baseVar, p.base(url)])),
    async stop() {
      await closeHttp()
      down = createTcpServer((socket) => {
        hitsWhileDown++
        socket.destroy()
      })
      await new Promise<void>((resolve, reject) => {
        down!.once('error', reject)
        down!.listen(port, '127.0.0.1', () => resolve())
      })
    },
    async close() {
      await closeHttp()
      await new Promise<void>((resolve) => (down?.listening ? down.close(() => resolve()) : resolve()))
    },
  }
}

async function handle(req: IncomingMessage, res: ServerResponse, keys: Record<string, string>, log: EmulatorRequest[]): Promise<void> {
  const chunks: Buffer[] = []
  for await (const c of req) chunks.push(c as Buffer)
  const url = new URL(req.url ?? '/', 'http://emulator')
  const id = url.pathname.split('/')[1] as ProviderId
  const provider = Object.hasOwn(PROVIDERS, id) ? PROVIDERS[id] : undefined
  const entry: EmulatorRequest = {
    provider: provider ? id : undefined,
    method: req.method ?? 'GET',
    path: req.url ?? '/',
    stream: false,
    carriage: 'none',
    keyOk: false,
    status: 0,
  }
  log.push(entry)
  const answer = (status: number, body: unknown) => ((entry.status = status), json(res, status, body))
  if (!provider || (req.method !== 'POST' && req.method !== 'GET'))
    return answer(404, { error: { message: `provider-emulator: nothing at ${req.method} ${url.pathname}` } })

  const sent = sentKey(req, url, provider.wire)
  entry.carriage = sent.carriage
  entry.keyOk = sent.key === keys[provider.keyVar]
  if (!entry.keyOk) return answer(401, { error: { message: `provider-emulator: ${id} got no valid key (${sent.carriage})` } })
  // An OpenAI-compatible model list (`GET …/v1/models`): what a health check or a model picker reads.
  if (req.method === 'GET')
    return provider.wire === 'openai-chat' && /\/v1\/models$/.test(url.pathname)
      ? answer(200, { object: 'list', data: MODELS.map((m) => ({ id: m, object: 'model', created: 1_700_000_000, owned_by: id })) })
      : answer(404, { error: { message: `provider-emulator: nothing at GET ${url.pathname}` } })

  const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>
  const rest = url.pathname.slice(id.length + 1)
  const prompt = promptOf(provider.wire, body)
  const country = /capital of (?:the )?(\w+)/.exec(prompt)?.[1] ?? ''
  const text = CAPITALS[country] ? `The capital of ${country} is ${CAPITALS[country]}.` : undefined
  if (!text) return answer(400, { error: { message: `provider-emulator: no answer for ${JSON.stringify(prompt)}` } })
  const model = String(body.model ?? /models\/([^:]+):/.exec(rest)?.[1] ?? 'unknown')

  if (provider.wire === 'openai-chat' && /\/chat\/completions$/.test(rest)) {
    entry.stream = body.stream === true
    entry.status = 200
    return entry.stream ? sse(res, openaiChunks(model, text)) : json(res, 200, openaiMessage(model, text))
  }
  if (provider.wire === 'anthropic' && rest === '/v1/messages') {
    entry.stream = body.stream === true
    entry.status = 200
    return entry.stream ? sse(res, anthropicEvents(model, text)) : json(res, 200, anthropicMessage(model, text))
  }
  const gemini = /^\/v1beta\/models\/[^/:]+:(generateContent|streamGenerateContent)$/.exec(rest)
  if (provider.wire === 'gemini' && gemini) {
    entry.stream = gemini[1] === 'streamGenerateContent'
    entry.status = 200
    return entry.stream ? sse(res, geminiChunks(model, text)) : json(res, 200, geminiResponse(model, [text], true))
  }
  return answer(404, { error: { message: `provider-emulator: ${id} has nothing at ${url.pathname}` } })
}

function sentKey(req: IncomingMessage, url: URL, wire: Wire): { key?: string; carriage: EmulatorRequest['carriage'] } {
  const bearer = /^Bearer (.+)$/i.exec(String(req.headers.authorization ?? ''))?.[1]
  if (wire === 'anthropic' && req.headers['x-api-key']) return { key: String(req.headers['x-api-key']), carriage: 'x-api-key' }
  if (wire === 'gemini' && req.headers['x-goog-api-key']) return { key: String(req.headers['x-goog-api-key']), carriage: 'x-goog-api-key' }
  if (wire === 'gemini' && url.searchParams.has('key')) return { key: url.searchParams.get('key') ?? '', carriage: 'query' }
  if (wire !== 'gemini' && bearer) return { key: bearer, carriage: 'bearer' }
  return { carriage: 'none' }
}

function promptOf(wire: Wire, body: Record<string, unknown>): string {
  const text = (c: unknown): string =>
    typeof c === 'string' ? c : Array.isArray(c) ? c.map((p) => (typeof p === 'string' ? p : String((p as { text?: string }).text ?? ''))).join('') : ''
  if (wire === 'gemini') {
    const contents = (body.contents ?? []) as Array<{ role?: string; parts?: Array<{ text?: string }> }>
    return contents.map((c) => (c.parts ?? []).map((p) => p.text ?? '').join('')).join('\n')
  }
  const messages = (body.messages ?? []) as Array<{ role: string; content: unknown }>
  return messages
    .filter((m) => m.role === 'user')
    .map((m) => text(m.content))
    .join('\n')
}

const words = (text: string) => text.split(/(?<= )/)
const usage = { prompt_tokens: 14, completion_tokens: 8, total_tokens: 22 }

function openaiMessage(model: string, text: string): unknown {
  return {
    id: `chatcmpl-${b64url(24)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage,
  }
}

function openaiChunks(model: string, text: string): string[] {
  const base = { id: `chatcmpl-${b64url(24)}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model }
  const chunk = (delta: object, finish: string | null) => ({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })
  return [
    chunk({ role: 'assistant', content: '' }, null),
    ...words(text).map((w) => chunk({ content: w }, null)),
    chunk({}, 'stop'),
    { ...base, choices: [], usage },
  ]
    .map((c) => `data: ${JSON.stringify(c)}\n\n`)
    .concat('data: [DONE]\n\n')
}

function anthropicMessage(model: string, text: string): unknown {
  return {
    id: `msg_${b64url(24)}`,
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 14, output_tokens: 8 },
  }
}

function anthropicEvents(model: string, text: string): string[] {
  const ev = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
  return [
    ev('message_start', {
      message: {
        id: `msg_${b64url(24)}`,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 14, output_tokens: 1 },
      },
    }),
    ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    ...words(text).map((w) => ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: w } })),
    ev('content_block_stop', { index: 0 }),
    ev('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 8 } }),
    ev('message_stop', {}),
  ]
}

function geminiResponse(model: string, parts: string[], last: boolean): unknown {
  return {
    candidates: [{ content: { parts: parts.map((text) => ({ text })), role: 'model' }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 }],
    ...(last ? { usageMetadata: { promptTokenCount: 14, candidatesTokenCount: 8, totalTokenCount: 22 } } : {}),
    modelVersion: model,
    responseId: b64url(20),
  }
}

function geminiChunks(model: string, text: string): string[] {
  const w = words(text)
  return w.map((piece, i) => `data: ${JSON.stringify(geminiResponse(model, [piece], i === w.length - 1))}\r\n\r\n`)
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res
    .writeHead(status, {
      'content-type': 'application/json',
      'x-should-retry': 'false',
      'content-length': Buffer.byteLength(text),
      'x-request-id': `req_${b64url(16)}`,
    })
    .end(text)
}

async function sse(res: ServerResponse, events: string[]): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': `req_${b64url(16)}` })
  res.flushHeaders()
  for (const e of events) {
    if (res.destroyed) return
    res.write(e)
    await nextTurn()
  }
  res.end()
}

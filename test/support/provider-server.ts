/**
 * A real local LLM-provider HTTP server for tests: `node:http` on 127.0.0.1 (port 0) that answers
 * each request with a recorded {@link Exchange} (see traffic.ts), streaming SSE bodies in separate,
 * flushed writes. Never contacts any public address.
 *
 * Pointing each real, unmodified client at it (`s` = the started server; helpers in base-urls.ts):
 * - openai:            new OpenAI({ baseURL: openaiBaseURL(s), apiKey: 'sk-test', maxRetries: 0 })         // url + '/v1'
 * - @anthropic-ai/sdk: new Anthropic({ baseURL: anthropicBaseURL(s), apiKey: 'sk-ant-test', maxRetries: 0 }) // url
 * - @ai-sdk/openai:    createOpenAI({ baseURL: openaiBaseURL(s), apiKey })   // .chat(id) = Chat Completions, (id) / .responses(id) = Responses
 * - @ai-sdk/anthropic: createAnthropic({ baseURL: aiSdkAnthropicBaseURL(s), apiKey })  // url + '/v1'
 * - @ai-sdk/google:    createGoogleGenerativeAI({ baseURL: googleBaseURL(s), apiKey }) // url + '/v1beta'
 * - fetch / node:http: s.url + exchange.path
 * Use `maxRetries: 0` (SDK option, and per call in the AI SDK): an empty queue answers 500, which clients retry with backoff.
 *
 * Which traffic file works with which client (openai 6.30, @anthropic-ai/sdk 1.14, ai 6.0 + @ai-sdk/* 3.0;
 * every exchange of every file is checked in provider-server.compat.test.ts, values in provider-server.test.ts):
 *
 * | files                                   | openai SDK          | @anthropic-ai/sdk    | AI SDK provider                  |
 * |-----------------------------------------|---------------------|----------------------|----------------------------------|
 * | openai-chat/* (all 9; SSE + JSON, gzip) | chat.completions ok | -                    | openai.chat ok                   |
 * | openai-responses/* (all 8)              | responses ok        | -                    | openai.responses ok              |
 * | anthropic/* (all 15; .txt/.sse/nock)    | -                   | messages ok          | anthropic ok                     |
 * | gemini/* except test_tools.yaml (11)    | -                   | -                    | google ok (incl. Vertex partialArgs) |
 * | gemini/test_tools.yaml (non-SSE array)  | -                   | -                    | google: SILENTLY EMPTY (see below) |
 * | multi-provider/* (Gemini + OpenAI)      | chat / responses ok | -                    | google + openai ok               |
 * | errors/* (400, 404, mid-stream error)   | throws recorded msg | throws recorded msg  | throws recorded msg              |
 * Plain fetch and node:http read every file byte-exact.
 *
 * Quirks seen:
 * - @ai-sdk/google always requests `:streamGenerateContent?alt=sse`; served the non-SSE JSON-array stream of
 *   gemini/test_tools.yaml it resolves with text '', no tool calls and finishReason 'other' - no error.
 * - @anthropic-ai/sdk 1.14 sends `apiKey` as `authorization: Bearer ...` (not `x-api-key`) and
 *   `anthropic-version: 2026-10-21`; @ai-sdk/anthropic sends `x-api-key`. It also prints a deprecation
 *   warning for models such as 'claude-sonnet-4-5' (so tests request 'claude-sonnet-4-0').
 * - AI SDK without a matching `tools` entry still reports recorded tool calls, flagged `invalid` (NoSuchToolError).
 * - Streamed recorded errors: openai SDK throws the `error` event message; AI SDK `streamText` only reports it
 *   via `onError` and then rejects with "No output generated".
 */
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setImmediate as nextTick, setTimeout as sleep } from 'node:timers/promises'
import { constants as zc, createGzip } from 'node:zlib'
import type { Exchange } from './traffic.js'

/** A request as received by the {@link ProviderServer}. */
export interface ReceivedRequest {
  method: string
  /** Path including query string. */
  path: string
  /** Request headers, lowercased (node's `IncomingHttpHeaders`). */
  headers: IncomingHttpHeaders
  /** Raw request body as UTF-8 text ('' when none). */
  body: string
  /** `body` parsed as JSON, when it is JSON. */
  json?: unknown
}

/** Picks the exchange for a request; `undefined` falls back to the FIFO queue. */
export type ScriptFn = (req: ReceivedRequest) => Exchange | undefined

/** How response bodies are cut into separate writes. */
export type Chunking = 'events' | 'bytes' | number

/** Options of {@link startProviderServer}. */
export interface ProviderServerOptions {
  /** Exchanges to queue up front (FIFO), or a function choosing the exchange per request. */
  script?: Exchange[] | ScriptFn
  /**
   * `'events'` (default): one write per SSE event (split after each blank line); non-SSE bodies in one write.
   * `'bytes'`: {@link BYTES_CHUNK}-byte slices of the encoded body; a number: slices of that many bytes
   * (slices the UTF-8 Buffer, so multi-byte characters get split across writes).
   */
  chunking?: Chunking
  /** Send `content-encoding: gzip`; the gzip stream is flushed (`Z_SYNC_FLUSH`) after every chunk. */
  gzip?: boolean
  /** Pause between writes, in ms (default: one `setImmediate` turn). */
  delayMs?: number
}

/** A running local provider server. */
export interface ProviderServer {
  /** Base URL without trailing slash, e.g. `http://127.0.0.1:54321`. */
  readonly url: string
  readonly port: number
  /** Every request received, in order. */
  readonly requests: ReceivedRequest[]
  /** Number of requests received (answered or not). */
  readonly hits: number
  /** Append exchanges to the FIFO queue served to the next requests. */
  queue(...exchanges: Exchange[]): void
  /** Stop listening and destroy all open sockets. */
  close(): Promise<void>
}

/** Slice size used by `chunking: 'bytes'`. */
export const BYTES_CHUNK = 7

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding'])

/** Start a provider server on 127.0.0.1 with an ephemeral port. Close it in `afterEach`/`afterAll`. */
export async function startProviderServer(opts: ProviderServerOptions = {}): Promise<ProviderServer> {
  const fifo: Exchange[] = Array.isArray(opts.script) ? [...opts.script] : []
  const pick = typeof opts.script === 'function' ? opts.script : undefined
  const requests: ReceivedRequest[] = []

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendError(res, `provider-server: ${(err as Error).message}`)
      else res.destroy(err as Error)
    })
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    const received: ReceivedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body }
    try {
      if (body) received.json = JSON.parse(body)
    } catch {
      /* not JSON */
    }
    requests.push(received)
    const exchange = pick?.(received) ?? fifo.shift()
    if (!exchange) {
      sendError(res, `provider-server: no recorded exchange queued for ${received.method} ${received.path} (request #${requests.length})`)
      return
    }
    await serve(res, exchange, opts)
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    get hits() {
      return requests.length
    },
    queue: (...exchanges) => void fifo.push(...exchanges),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

function sendError(res: ServerResponse, message: string): void {
  const body = JSON.stringify({ error: { type: 'provider_server_error', message } })
  res.writeHead(500, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body)
}

/** Realistic volatile headers (fresh per response) unless the recording has them. */
function responseHeaders(ex: Exchange, gzip: boolean): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(ex.headers)) if (!HOP_BY_HOP.has(k.toLowerCase())) headers[k.toLowerCase()] = v
  const id = randomBytes(12).toString('hex')
  if (ex.path.startsWith('/v1/messages')) headers['request-id'] ??= `req_${id}`
  else headers['x-request-id'] ??= `req_${id}`
  if (/\/v1\/(chat|responses)/.test(ex.path)) headers['openai-processing-ms'] ??= String(100 + randomBytes(1)[0])
  headers['date'] ??= new Date().toUTCString()
  if (gzip) headers['content-encoding'] = 'gzip'
  return headers
}

/** Cut a body into the byte pieces that are written separately. */
export function splitBody(body: string, chunking: Chunking = 'events'): Buffer[] {
  const buf = Buffer.from(body, 'utf8')
  if (chunking === 'events') {
    const pieces = body.split(/(?<=\r\n\r\n|\n\n|\r\r(?!\n))/).filter((p) => p !== '')
    return pieces.map((p) => Buffer.from(p, 'utf8'))
  }
  const size = chunking === 'bytes' ? BYTES_CHUNK : chunking
  if (!Number.isInteger(size) || size < 1) throw new Error(`provider-server: bad chunking ${String(chunking)}`)
  const out: Buffer[] = []
  for (let i = 0; i < buf.length; i += size) out.push(buf.subarray(i, i + size))
  return out
}

async function serve(res: ServerResponse, ex: Exchange, opts: ProviderServerOptions): Promise<void> {
  const gzip = opts.gzip === true
  res.writeHead(ex.status, responseHeaders(ex, gzip))
  res.flushHeaders()
  if (ex.writes && ex.writes.join('') !== ex.body) throw new Error('provider-server: exchange.writes do not join to exchange.body')
  const pieces = ex.writes ? ex.writes.map((w) => Buffer.from(w, 'utf8')) : splitBody(ex.body, opts.chunking)
  const pause = () => (opts.delayMs ? sleep(opts.delayMs) : nextTick())
  const finished = new Promise<void>((resolve) => res.once('close', resolve))
  if (!gzip) {
    for (const piece of pieces) {
      if (res.destroyed) return
      if (!res.write(piece)) await new Promise((r) => res.once('drain', r))
      await pause()
    }
    res.end()
    await finished
    return
  }
  const gz = createGzip()
  gz.pipe(res)
  for (const piece of pieces) {
    if (res.destroyed) return
    gz.write(piece)
    await new Promise<void>((r) => gz.flush(zc.Z_SYNC_FLUSH, () => r()))
    await pause()
  }
  gz.end()
  await finished
}

/**
 * Translation between undici's dispatcher world and fetch's: dispatch options (or undici's own
 * request object) to a `Request`, and a routed `Response` fed into an undici handler, chunk by
 * chunk, through either handler API.
 */

/** The dispatch options fluxlab reads (undici 5–8 `Dispatcher.dispatch(opts, handler)`). */
export interface DispatchOptions {
  origin?: string | URL | null
  path?: string
  method?: string
  headers?: unknown
  body?: unknown
  upgrade?: string | null
}

/** undici's handler API up to 6.x (still accepted by 7 and 8). */
interface LegacyHandler {
  onConnect?(abort: (reason?: Error) => void, context?: object): void
  onResponseStarted?(): void
  onHeaders?(status: number, rawHeaders: Buffer[], resume: () => void, statusText: string): boolean | void
  onData?(chunk: Buffer): boolean | void
  onComplete?(trailers: Buffer[] | null): void
  onError?(error: Error): void
}

/** The controller undici 7+ hands to a handler. */
interface Controller {
  abort(reason?: Error): void
  pause(): void
  resume(): void
  readonly aborted: boolean
  readonly paused: boolean
  readonly reason: Error | null
}

/** undici's handler API from 7.x. */
interface ModernHandler {
  onRequestStart?(controller: Controller, context: object): void
  onResponseStart?(controller: Controller, status: number, headers: Record<string, string | string[]>, statusText: string): void
  onResponseData?(controller: Controller, chunk: Buffer): void
  onResponseEnd?(controller: Controller, trailers: Record<string, string | string[]>): void
  onResponseError?(controller: Controller, error: Error): void
}

/** Either handler API. */
export type UndiciHandler = LegacyHandler & ModernHandler

/** Hop-by-hop and framing headers: undici computes them itself, and `Request` refuses some. */
const DROPPED = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade', 'expect', 'proxy-connection'])
const NULL_BODY = new Set([101, 204, 205, 304])

/**
 * The URL of a dispatch: `origin` + `path`, or an absolute `path` (a proxy's forward form).
 * @example
 * dispatchUrl('http://127.0.0.1:8080', '/v1/chat/completions?x=1')?.href
 */
export function dispatchUrl(origin: unknown, path: unknown): URL | undefined {
  if (typeof path !== 'string') return undefined
  try {
    if (/^https?:\/\//i.test(path)) return new URL(path)
    if (origin == null) return undefined
    const base = String(origin instanceof URL ? origin.origin : origin).replace(/\/+$/, '')
    return new URL(`${base}${path.startsWith('/') ? '' : '/'}${path}`)
  } catch {
    return undefined
  }
}

/**
 * Header pairs from any form undici accepts: a flat `[name, value, …]` array (strings or
 * Buffers), `[name, value]` pairs, an iterable (`Headers`, `Map`), a plain object, or the
 * `"name: value\r\n"` string undici 5 keeps on its request object.
 * @example
 * headerPairs(['content-type', 'application/json']) // [['content-type', 'application/json']]
 */
function headerPairs(headers: unknown): Array<[string, string]> {
  const out: Array<[string, string]> = []
  const add = (name: unknown, value: unknown) => {
    const n = text(name)
    if (DROPPED.has(n.toLowerCase())) return
    if (Array.isArray(value)) for (const v of value) out.push([n, text(v)])
    else if (value !== undefined && value !== null) out.push([n, text(value)])
  }
  if (headers == null) return out
  if (typeof headers === 'string') {
    for (const line of headers.split('\r\n')) {
      const i = line.indexOf(':')
      if (i > 0) add(line.slice(0, i).trim(), line.slice(i + 1).trim())
    }
  } else if (Array.isArray(headers)) {
    if (headers.length > 0 && Array.isArray(headers[0])) for (const [n, v] of headers as unknown[][]) add(n, v)
    else for (let i = 0; i + 1 < headers.length; i += 2) add(headers[i], headers[i + 1])
  } else if (typeof headers === 'object' && Symbol.iterator in headers) {
    for (const [n, v] of headers as Iterable<[unknown, unknown]>) add(n, v)
  } else if (typeof headers === 'object') {
    for (const [n, v] of Object.entries(headers)) add(n, v)
  }
  return out
}

const text = (v: unknown): string => (Buffer.isBuffer(v) ? v.toString('latin1') : String(v))

/**
 * Every byte of a dispatch body (undici's body forms: string, Buffer/typed array, ArrayBuffer,
 * Blob, a Readable or any (async) iterable), or `undefined` for none.
 * @example
 * await bodyBytes('{"a":1}') // a Buffer of 7 bytes
 */
async function bodyBytes(body: unknown): Promise<Buffer | undefined> {
  if (body == null) return undefined
  if (typeof body === 'string') return Buffer.from(body)
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength)
  if (body instanceof ArrayBuffer) return Buffer.from(body)
  if (body instanceof Blob) return Buffer.from(await body.arrayBuffer())
  if (typeof body === 'object' && (Symbol.asyncIterator in body || Symbol.iterator in body)) {
    const parts: Uint8Array[] = []
    for await (const chunk of body as AsyncIterable<unknown>) parts.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Uint8Array))
    return Buffer.concat(parts)
  }
  throw new TypeError(`undici request body of an unknown kind (${Object.prototype.toString.call(body)})`)
}

/**
 * The fetch `Request` a dispatch describes.
 * @example
 * const request = await toRequest(url, 'POST', opts.headers, opts.body)
 */
export async function toRequest(url: URL, method: string, headers: unknown, body: unknown): Promise<Request> {
  const h = new Headers()
  for (const [n, v] of headerPairs(headers)) h.append(n, v)
  if (body instanceof FormData) return new Request(url, { method, headers: h, body })
  const bytes = await bodyBytes(body)
  const hasBody = bytes !== undefined && method !== 'GET' && method !== 'HEAD'
  return new Request(url, { method, headers: h, body: hasBody ? new Uint8Array(bytes) : undefined })
}

/**
 * Feed `response` into an undici handler (either API), honouring pause/resume and abort, and
 * passing each body chunk as it comes (so an SSE stream keeps its chunk boundaries).
 * `answer` is called when the handler is ready for the response; it may throw, which fails the
 * request like a network error.
 * @example
 * void respond(handler, () => router(request))
 */
export async function respond(handler: UndiciHandler, answer: () => Promise<Response>): Promise<void> {
  const modern = typeof handler.onRequestStart === 'function'
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined
  let done = false
  let reason: Error | null = null
  let paused = false
  let wake: (() => void) | undefined
  const fail = (error: Error) => {
    if (done) return
    done = true
    void reader?.cancel(error).catch(() => {})
    wake?.()
    if (modern) handler.onResponseError?.(controller, error)
    else handler.onError?.(error)
  }
  const controller: Controller = {
    abort(why?: Error) {
      reason = why ?? Object.assign(new Error('Request aborted'), { name: 'AbortError', code: 'UND_ERR_ABORTED' })
      fail(reason)
    },
    pause: () => {
      paused = true
    },
    resume: () => {
      paused = false
      wake?.()
    },
    get aborted() {
      return reason !== null
    },
    get paused() {
      return paused
    },
    get reason() {
      return reason
    },
  }
  try {
    if (modern) handler.onRequestStart?.(controller, {})
    else handler.onConnect?.((why) => controller.abort(why), {})
    if (done) return
    const response = await answer()
    if (done) {
      void response.body?.cancel().catch(() => {})
      return
    }
    handler.onResponseStarted?.()
    if (modern) handler.onResponseStart?.(controller, response.status, headerRecord(response.headers), response.statusText)
    else if (handler.onHeaders?.(response.status, rawHeaders(response.headers), controller.resume, response.statusText) === false) paused = true
    if (response.body && !NULL_BODY.has(response.status)) {
      reader = response.body.getReader()
      for (;;) {
        while (paused && !done) await new Promise<void>((r) => (wake = r))
        if (done) return
        const { done: end, value } = await reader.read()
        if (done) return
        if (end) break
        const chunk = Buffer.from(value.buffer, value.byteOffset, value.byteLength)
        if (modern) handler.onResponseData?.(controller, chunk)
        else if (handler.onData?.(chunk) === false) paused = true
        // @note one chunk per macrotask, as a socket delivers them: undici's clients read the body
        // through a Readable, whose reader joins every chunk pushed before it gets to run.
        await new Promise<void>((r) => setImmediate(r))
      }
    } else void response.body?.cancel().catch(() => {})
    if (done) return
    done = true
    if (modern) handler.onResponseEnd?.(controller, {})
    else handler.onComplete?.([])
  } catch (e) {
    fail(e instanceof Error ? e : new Error(String(e)))
  }
}

function rawHeaders(headers: Headers): Buffer[] {
  const out: Buffer[] = []
  for (const [name, value] of headers) {
    if (name === 'set-cookie') continue
    out.push(Buffer.from(name, 'latin1'), Buffer.from(value, 'latin1'))
  }
  for (const cookie of headers.getSetCookie()) out.push(Buffer.from('set-cookie', 'latin1'), Buffer.from(cookie, 'latin1'))
  return out
}

function headerRecord(headers: Headers): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  for (const [name, value] of headers) if (name !== 'set-cookie') out[name] = value
  const cookies = headers.getSetCookie()
  if (cookies.length) out['set-cookie'] = cookies
  return out
}

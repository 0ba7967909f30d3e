import type { Chunk, TransportError } from '../../cassette/cell.js'
import { NEVER_KEPT } from '../../cassette/cell-fields.js'
import { encodeChunk } from '../../cassette/chunks.js'
import { sensitiveHeaders } from '../../cassette/redact-names.js'

/** Hop-by-hop headers (RFC 9110 §7.6.1): they describe one connection, not the response, and are never replayed. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'upgrade']

/**
 * Response headers never kept in a fixture (SPEC §4): secrets (the redactor's always-secret names: keys, tokens,
 * org and project ids), cookies, hop-by-hop headers, `date` (a replay served days later would say a stale time),
 * and the encoding of a body stored decoded. Every other header a client may read (request ids, rate limits,
 * `retry-after`) is kept as it came, so a replay answers with what the recording got.
 */
const DROPPED = new Set(['date', 'cookie', 'set-cookie', 'set-cookie2', ...HOP_BY_HOP, ...NEVER_KEPT])

/**
 * The headers kept in a fixture (lowercased, sorted): one set per response, never per chunk.
 * @example
 * keptHeaders(res.headers) // { 'content-type': 'text/event-stream', 'x-request-id': 'req_8f3a…' }
 */
export function keptHeaders(headers: Headers): Record<string, string> {
  // a header the `connection` header names is hop-by-hop too
  const connection = new Set((headers.get('connection') ?? '').split(',').map((n) => n.trim().toLowerCase()))
  const secret = new Set(sensitiveHeaders())
  const out: Record<string, string> = {}
  const names = [...headers.keys()].sort()
  for (const name of names) {
    const n = name.toLowerCase()
    if (DROPPED.has(n) || secret.has(n) || connection.has(n)) continue
    out[n] = headers.get(name) ?? ''
  }
  return out
}

/** Headers for a live response handed to the caller: the body is decoded, so its encoding and length go. */
export function decodedHeaders(headers: Headers): Headers {
  const out = new Headers(headers)
  out.delete('content-encoding')
  out.delete('content-length')
  out.delete('transfer-encoding')
  return out
}

/** What the capture of a live body kept: its chunks, and how it ended when not cleanly. */
interface Captured {
  chunks: Chunk[]
  transportError?: TransportError
  /** The run ended (or the client aborted) with the stream still open: the capture stopped there. */
  open?: true
}

/**
 * The caller's copy of a live body, and the capture of it beside the caller. Each chunk is handed on
 * the moment the upstream yields it (one reader on the upstream, no second branch to pull), then kept
 * with its time in ms since `start`. Encoding the kept chunks waits for the end of the body.
 * A failure mid-stream reaches the caller as it came, and is kept as the transport error with the
 * chunks before it. `stop` ends the capture (the stream is kept as open) and never the caller's copy; `client`, the
 * client's own signal, errors the caller's copy when it aborts.
 * @note issue 14: a recording holds no chunk: no tee, no per-chunk work before the caller's enqueue.
 * @example
 * const { body, captured } = forwardCapturing(res.body, performance.now(), stop.signal, request.signal)
 */
export function forwardCapturing(
  upstream: ReadableStream<Uint8Array> | null,
  start: number,
  stop?: AbortSignal,
  client?: AbortSignal,
): { body: ReadableStream<Uint8Array> | null; captured: Promise<Captured> } {
  if (!upstream) return { body: null, captured: Promise.resolve({ chunks: [] }) }
  const reader = upstream.getReader()
  const kept: Array<{ bytes: Uint8Array; t: number }> = []
  let capturing = true
  let callerGone = false
  let settle!: (c: Captured) => void
  const captured = new Promise<Captured>((resolve) => (settle = resolve))
  const finish = (end: Omit<Captured, 'chunks'>) => {
    if (!capturing) return
    capturing = false
    stop?.removeEventListener('abort', onStop)
    settle({ chunks: kept.map((c) => encodeChunk(c.bytes, c.t)), ...end })
  }
  // @note SPEC §3: the run ended with this stream still open: stop keeping it (the client reads on, ours alone).
  const onStop = () => {
    finish({ open: true })
    if (callerGone) void reader.cancel().catch(() => {})
  }
  let caller!: ReadableByteStreamController
  // A byte stream, as the fetch body it stands for (a BYOB reader works on it). Its enqueue transfers the chunk's
  // buffer, so the caller gets the copy and the capture keeps the upstream's own chunk.
  const body = new ReadableStream(
    {
      type: 'bytes',
      start: (c) => void (caller = c),
      // The client cancelling its copy leaves the capture reading to the end (as a tee's branch would).
      cancel: (reason) => {
        callerGone = true
        if (!capturing) return reader.cancel(reason).catch(() => {})
      },
    },
    { highWaterMark: 0 },
  )
  const hand = (f: () => void) => {
    if (callerGone) return
    try {
      f()
    } catch {
      callerGone = true
    }
  }
  const pump = async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        if (!value?.byteLength) continue
        const t = performance.now()
        hand(() => caller.enqueue(value.slice()))
        if (capturing) kept.push({ bytes: value, t: Math.round(t - start) })
      }
      hand(() => {
        caller.close()
        // a BYOB read waiting at the end is answered with its empty view (a byte stream's close leaves it pending)
        caller.byobRequest?.respond(0)
      })
      finish({})
    } catch (e) {
      hand(() => caller.error(e))
      const err = e as Error & { code?: string; cause?: { code?: string } }
      finish({ transportError: { name: err.name, message: err.message, code: err.code ?? err.cause?.code } })
    }
  }
  if (stop?.aborted) onStop()
  else stop?.addEventListener('abort', onStop, { once: true })
  // The client's own abort errors its copy at once, as fetch's body does: it does not wait for the upstream to see the
  // abort (under load the openai SDK read on to the end of the stream, past its own abort: a CI flake of abort.test).
  const onClientAbort = () => {
    if (callerGone) return
    callerGone = true
    try {
      caller.error(client!.reason ?? new DOMException('This operation was aborted', 'AbortError'))
    } catch {
      // already closed or errored
    }
  }
  if (client?.aborted) onClientAbort()
  else client?.addEventListener('abort', onClientAbort, { once: true })
  void pump()
  return { body, captured }
}

/**
 * The answer to a request the tape cannot explain: 400 with `x-should-retry: false`,
 * which no SDK retries, in an error shape OpenAI, Anthropic and Gemini clients all parse.
 * @note FACTS: a thrown resolver error reaches SDKs as a 500, which they retry.
 */
export function offTapeResponse(message: string): Response {
  const body = {
    type: 'error',
    error: { type: 'fluxlab_off_tape', code: 400, status: 'FAILED_PRECONDITION', message },
  }
  return new Response(JSON.stringify(body), {
    status: 400,
    headers: { 'content-type': 'application/json', 'x-should-retry': 'false', 'x-fluxlab': 'off-tape' },
  })
}

import type { Chunk, RecordedResponse, TransportError } from '../../cassette/cell.js'
import { decodeChunk, encodeChunk } from '../../cassette/chunks.js'

/** Headers never kept in a fixture: they change every call, or describe an encoding we undo. */
const VOLATILE = new Set([
  'date', 'age', 'expires', 'last-modified', 'etag', 'set-cookie', 'cookie',
  'content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive',
  'x-request-id', 'request-id', 'x-amzn-requestid', 'x-amz-request-id', 'apim-request-id', 'x-ms-request-id',
  'openai-processing-ms', 'openai-organization', 'openai-project', 'openai-version', 'anthropic-organization-id',
  'alt-svc', 'server-timing', 'via', 'x-envoy-upstream-service-time', 'x-cloud-trace-context', 'strict-transport-security',
  'x-goog-request-id',
])
const VOLATILE_PREFIX = ['cf-', 'x-ratelimit-', 'anthropic-ratelimit-', 'x-envoy-', 'x-stainless-', 'x-kong-']

/**
 * The headers kept in a fixture (lowercased, sorted).
 * @example
 * keptHeaders(res.headers) // { 'content-type': 'text/event-stream' }
 */
export function keptHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {}
  const names = [...headers.keys()].sort()
  for (const name of names) {
    const n = name.toLowerCase()
    if (VOLATILE.has(n) || VOLATILE_PREFIX.some((p) => n.startsWith(p))) continue
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

/**
 * Read a body branch to the end, timestamping each chunk (ms since `start`).
 * A failure mid-stream is kept as the transport error, with the chunks before it.
 */
export async function captureChunks(
  body: ReadableStream<Uint8Array> | null,
  start: number,
  stop?: AbortSignal,
): Promise<{ chunks: Chunk[]; transportError?: TransportError; open?: true }> {
  const chunks: Chunk[] = []
  if (!body) return { chunks }
  const reader = body.getReader()
  // @note SPEC §3: the run ended with this stream still open: stop reading our branch (the client keeps its own).
  let stopped = false
  const onStop = () => {
    stopped = true
    void reader.cancel().catch(() => {})
  }
  if (stop?.aborted) onStop()
  else stop?.addEventListener('abort', onStop, { once: true })
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      if (value && value.byteLength) chunks.push(encodeChunk(value, Math.round(performance.now() - start)))
    }
    return stopped ? { chunks, open: true } : { chunks }
  } catch (e) {
    if (stopped) return { chunks, open: true }
    const err = e as Error & { code?: string; cause?: { code?: string } }
    return { chunks, transportError: { name: err.name, message: err.message, code: err.code ?? err.cause?.code } }
  } finally {
    stop?.removeEventListener('abort', onStop)
  }
}

const NULL_BODY = new Set([101, 204, 205, 304])

/**
 * A Response that replays recorded chunks with their exact byte boundaries,
 * optionally paced by recorded gaps, and fails mid-stream like the original when it did.
 * @example
 * replayResponse(cell.response, { timing: 'recorded' })
 */
export function replayResponse(rec: RecordedResponse, opts: { timing?: 'recorded' | number; transportError?: TransportError; signal?: AbortSignal } = {}): Response {
  // @note status 0 is a call that never got a response (a fault a what-if injected: reset, timeout).
  if (rec.status === 0) return Response.error()
  const headers = new Headers(rec.headers)
  if (NULL_BODY.has(rec.status)) return new Response(null, { status: rec.status, headers })
  const scale = opts.timing === 'recorded' ? 1 : typeof opts.timing === 'number' ? opts.timing : 0
  let i = 0
  let last = 0
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (i >= rec.chunks.length) {
        // @note a stream open at the end of the recording, or one the client aborted, stays open until the client
        // closes (or aborts) it: the client sees its own abort, never a network error it did not get.
        // (the abort is wired here: a mocked body does not see the request's signal by itself)
        if (rec.open || rec.clientAbort)
          return new Promise<void>((resolve) => {
            const abort = () => {
              controller.error(new DOMException('This operation was aborted', 'AbortError'))
              resolve()
            }
            if (opts.signal?.aborted) abort()
            else opts.signal?.addEventListener('abort', abort, { once: true })
          })
        if (opts.transportError) controller.error(Object.assign(new TypeError('terminated'), { cause: opts.transportError }))
        else controller.close()
        return
      }
      const chunk = rec.chunks[i++]
      const gap = (chunk.t - last) * scale
      last = chunk.t
      if (gap > 0) await new Promise((r) => setTimeout(r, gap))
      controller.enqueue(decodeChunk(chunk))
    },
  })
  return new Response(body, { status: rec.status, headers })
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

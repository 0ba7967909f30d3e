/** What a fault answers the agent: an HTTP answer, a connection that never answers, a cut stream, a thrown error. */
import type { RecordedResponse } from '../cassette/cell.js'
import { decodeChunk } from '../cassette/chunks.js'
import type { ModelCallCodec } from '../providers/types.js'
import type { HttpFault } from './faults.js'

/** An HTTP answer, before it becomes a Response: built once, so the fixture keeps exactly what the client got. */
export interface HttpAnswer {
  status: number
  headers: Record<string, string>
  body: string
}

/**
 * The answer an HTTP fault (or substitute) gives: its body, or else on the model
 * channel the family's own error body (its codec's `errorBody`, which its SDKs parse),
 * on the tool channel `{ error: message }`.
 * @example
 * httpAnswer({ status: 429, headers: { 'retry-after': '0' } }, codecFor(cell.family), 'injectAt model#2')
 */
export function httpAnswer(f: HttpFault, channel: ModelCallCodec | 'tool', why: string): HttpAnswer {
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(f.headers ?? {})) headers[k.toLowerCase()] = String(v)
  let body: string
  if (f.body === undefined) {
    const message = `${f.status === 429 ? 'Rate limit exceeded' : `HTTP ${f.status}`} (injected by fluxlab: ${why})`
    body = JSON.stringify(channel === 'tool' ? { error: message } : channel.errorBody(f.status, message))
    headers['content-type'] = 'application/json'
  } else if (typeof f.body === 'string') {
    body = f.body
    headers['content-type'] ??= 'text/plain; charset=utf-8'
  } else {
    body = JSON.stringify(f.body)
    headers['content-type'] ??= 'application/json'
  }
  return { status: f.status, headers, body }
}

/**
 * The Response of an answer.
 * @note never `clone()` a fault response to store it: a tee'd body whose other branch
 * nobody reads keeps the SDK's `body.cancel()` (before a retry) pending forever.
 */
export const answerResponse = (a: HttpAnswer): Response => new Response(a.body, { status: a.status, headers: a.headers })

/** A Response that never arrives until the request's signal aborts (then the client sees its own abort). */
export function hangingResponse(signal: AbortSignal | undefined, register: (release: () => void) => void): Promise<Response> {
  return new Promise<Response>((resolve) => {
    const release = () => resolve(Response.error())
    if (signal?.aborted) return release()
    signal?.addEventListener('abort', release, { once: true })
    register(release)
  })
}

/** The recorded response's first `n` chunks, then a network error (`TypeError: terminated`, like undici's). */
export function cutResponse(rec: RecordedResponse, n: number): Response {
  let i = 0
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < Math.min(n, rec.chunks.length)) controller.enqueue(decodeChunk(rec.chunks[i++]))
      else controller.error(Object.assign(new TypeError('terminated'), { cause: { code: 'ECONNRESET', message: 'stream cut by fluxlab' } }))
    },
  })
  return new Response(body, { status: rec.status, headers: new Headers(rec.headers) })
}

/** The stored form of an `{ error }` fault: name, message and extra own properties. */
export function thrownShape(e: string | { name?: string; message: string; [k: string]: unknown }): { name: string; message: string; data?: unknown } {
  if (typeof e === 'string') return { name: 'Error', message: e }
  const { name, message, ...data } = e
  return { name: name ?? 'Error', message, ...(Object.keys(data).length ? { data } : {}) }
}

/** The error an `{ error }` fault throws into the agent. */
export function thrownError(e: string | { name?: string; message: string; [k: string]: unknown }): Error {
  const shape = thrownShape(e)
  const err = new Error(shape.message)
  err.name = shape.name
  if (shape.data) Object.assign(err, shape.data)
  return err
}

/** An `{ output }` fault on an HTTP tool: 200 with the output as JSON (a string as text). */
export const outputAnswer = (output: unknown): HttpAnswer => httpAnswer({ status: 200, body: output }, 'tool', '')

/**
 * Issue 39: a live call is sent by the process that made it. When the tape goes live for a request a process of the
 * tree forwarded (`./tree-wire.ts`), the process holding the tape says `live` on the request's connection; the child
 * sends the request itself, through the layers beneath fluxlab in its own process (its fetch wrappers, its undici
 * dispatcher, a proxy agent set as one, its `FLUX_UPSTREAM`), and streams what came back (`head`, `data`…, `end`, or
 * `error`) to the tape, which records it and answers the child as it answers any request. Only the decision and the
 * bytes that came back cross the socket.
 */
import type { Socket } from 'node:net'
import { encodeFrame, FRAME, type Frame, type FrameType } from './frames.js'

/** The head of a streamed answer. */
export interface WireHead {
  status: number
  statusText: string
  headers: Array<[string, string]>
}

/** A failure as it crosses the socket: the system error beneath fetch's `TypeError` (its class, message and code). */
interface WireError {
  name?: string
  message: string
  code?: string
}

/** Sends one request live in the process that made it, and gives back what came back as it streams. */
export type LiveSender = (request: Request) => Promise<Response>

const NULL_BODY = new Set([101, 204, 205, 304])
/** Headers that describe one hop, not the request: whoever sends it builds its own. */
const HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect', 'te', 'trailer', 'proxy-connection', 'content-length'])

/**
 * A request's headers without those of its hop.
 * @example
 * new Request(url, { headers: endToEnd(request.headers) })
 */
export function endToEnd(headers: Iterable<[string, string]>): Headers {
  const out = new Headers()
  for (const [k, v] of headers) if (!HOP.has(k.toLowerCase())) out.append(k, v)
  return out
}

export const wireJson = <T>(f: Frame): T => JSON.parse(Buffer.from(f.payload).toString('utf8')) as T

/** What a failed send says: the error beneath fetch's `TypeError('fetch failed')` when there is one. */
const wireError = (e: unknown): WireError => {
  const err = e as (Error & { code?: string; cause?: unknown }) | undefined
  const inner = (err?.cause instanceof Error ? err.cause : err) as (Error & { code?: string }) | undefined
  return { name: inner?.name, message: String(inner?.message ?? e), ...(inner?.code ? { code: inner.code } : {}) }
}

/**
 * An `error` frame as the error fetch gives: a `TypeError` (`message`) whose cause is the system error.
 * @example
 * throw wireFailure(frame, 'fetch failed')
 */
export function wireFailure(f: Frame, message = 'terminated'): TypeError {
  const e = wireJson<WireError>(f)
  const cause = Object.assign(new Error(e.message), e.name && e.name !== 'Error' ? { name: e.name } : {}, e.code ? { code: e.code } : {})
  return Object.assign(new TypeError(message), { cause })
}

const errorFrame = (e: unknown): Frame => ({ type: FRAME.error, payload: Buffer.from(JSON.stringify(wireError(e))) })

/**
 * The answer whose `head` frame is `first`, its body read frame by frame from `next` as the client reads it;
 * `settle(true)` once its body ended, `settle(false)` when it broke or the client cancelled it.
 * @example
 * return streamedAnswer(wireJson(first), next, (ok) => (ok ? socket.end() : socket.destroy()))
 */
export function streamedAnswer(meta: WireHead, next: () => Promise<Frame | undefined>, settle: (ok: boolean) => void): Response {
  const headers = new Headers(meta.headers)
  if (NULL_BODY.has(meta.status)) return (settle(true), new Response(null, { status: meta.status, statusText: meta.statusText, headers }))
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const f = await next().catch(errorFrame)
        if (!f || f.type === FRAME.end) controller.close(), settle(true)
        else if (f.type === FRAME.data) controller.enqueue(f.payload)
        else controller.error(wireFailure(f)), settle(false)
      },
      cancel: () => settle(false),
    },
    { highWaterMark: 0 },
  )
  return new Response(stream, { status: meta.status, statusText: meta.statusText, headers })
}

/**
 * The tape's end: a sender that asks the child on `socket` to send its request live, and gives back the answer the
 * child streams. Rejects as fetch does when the child's send failed (the child's system error as its cause).
 * @example
 * const live = askChild(socket, next); const response = await live(request)
 */
export function askChild(socket: Socket, next: () => Promise<Frame | undefined>): LiveSender {
  return async (request) => {
    if (!socket.destroyed) socket.write(encodeFrame(FRAME.live, JSON.stringify({ url: request.url })))
    const first = await next().catch(errorFrame)
    if (!first) throw Object.assign(new TypeError('fetch failed'), { cause: new Error('the child process closed its connection before it sent the request') })
    if (first.type === FRAME.error) throw wireFailure(first, 'fetch failed')
    if (first.type !== FRAME.head) throw new Error(`the child process answered frame type ${first.type} before the head`)
    // @note the socket stays open when this body ends: the tape's answer to the child goes back on it. A socket that ends
    // before the body's `end` frame is a broken body, never a whole one.
    const broken = () => errorFrame(new Error('the child process closed its connection before the answer ended'))
    return streamedAnswer(
      wireJson<WireHead>(first),
      () => next().then((f) => f ?? broken()),
      () => {},
    )
  }
}

/**
 * The child's end of a `live` frame: send the request with `send` and stream what came back over `socket`, each body
 * chunk as it arrives. Settles once the head (or the failure) is on its way: `{ error }`, what `send` threw, so the
 * client gets the very error it would get without fluxlab.
 * @example
 * const sent = relayLive(socket, () => liveFetch(request))
 */
export async function relayLive(socket: Socket, send: () => Promise<Response>): Promise<{ error: unknown } | undefined> {
  const write = (type: FrameType, payload?: Uint8Array | string) => void (socket.writable && socket.write(encodeFrame(type, payload)))
  let response: Response
  try {
    response = await send()
  } catch (error) {
    write(FRAME.error, JSON.stringify(wireError(error)))
    return { error }
  }
  write(FRAME.head, JSON.stringify({ status: response.status, statusText: response.statusText, headers: [...response.headers] } satisfies WireHead))
  void pump(response.body, socket, write)
  return undefined
}

async function pump(body: ReadableStream<Uint8Array> | null, socket: Socket, write: (type: FrameType, payload?: Uint8Array | string) => void): Promise<void> {
  if (body) {
    const reader = body.getReader()
    socket.once('close', () => void reader.cancel().catch(() => {}))
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        if (value?.byteLength) write(FRAME.data, value)
      }
    } catch (e) {
      return write(FRAME.error, JSON.stringify(wireError(e)))
    }
  }
  write(FRAME.end)
}

/**
 * The wire between a process whose requests go on another process's tape and the process that holds it: frames
 * `[type:1][length:4, big-endian][payload]`, so each body chunk reaches the program as the chunk it was (the socket
 * alone would merge them). A process of the tree sends each request as frames over a local socket, and gets the
 * answer back the same way (`./tree-wire.ts`).
 */
import type { Socket } from 'node:net'

export const FRAME = {
  /** JSON `{ status, statusText, headers: [name, value][] }`. */
  head: 1,
  /** One body chunk, raw bytes. */
  data: 2,
  /** JSON `{ message, code? }`: the request failed (before the head) or the body broke (after it). */
  error: 3,
  /** The body ended. */
  end: 4,
  /** No answer: the request is not the tape's, so the process sends it as it would without fluxlab. */
  pass: 5,
  /**
   * JSON `{ url }`: the tape goes live for this request, and the process that made it sends it itself (to `url`), through
   * its own layers beneath fluxlab, then streams what came back (`head`, `data`…, `end`, or `error`) to the tape, whose
   * answer follows as usual (issue 39).
   */
  live: 6,
} as const

export type FrameType = (typeof FRAME)[keyof typeof FRAME]

export interface Frame {
  type: FrameType
  payload: Uint8Array
}

/**
 * Encode one frame.
 * @example
 * socket.write(encodeFrame(FRAME.data, chunk))
 */
export function encodeFrame(type: FrameType, payload: Uint8Array | string = new Uint8Array()): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength)
  const head = Buffer.alloc(5)
  head.writeUInt8(type, 0)
  head.writeUInt32BE(body.length, 1)
  return Buffer.concat([head, body])
}

/**
 * Incremental decoder: push bytes as they arrive, get whole frames back.
 * @example
 * const reader = new FrameDecoder()
 * for (const f of reader.push(bytes)) handle(f)
 */
export class FrameDecoder {
  private buf = Buffer.alloc(0)

  push(bytes: Uint8Array): Frame[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, bytes]) : Buffer.from(bytes)
    const out: Frame[] = []
    while (this.buf.length >= 5) {
      const len = this.buf.readUInt32BE(1)
      if (this.buf.length < 5 + len) break
      out.push({ type: this.buf.readUInt8(0) as FrameType, payload: new Uint8Array(this.buf.subarray(5, 5 + len)) })
      this.buf = this.buf.subarray(5 + len)
    }
    return out
  }
}

/**
 * Frames read from a socket one at a time, in order: `undefined` once the socket ended, a rejection when it failed.
 * @example
 * const next = socketFrames(socket); const head = await next()
 */
export function socketFrames(socket: Socket): () => Promise<Frame | undefined> {
  const decoder = new FrameDecoder()
  const queue: Frame[] = []
  const waiting: Array<(f: Frame | undefined) => void> = []
  let ended: Error | true | undefined
  const settle = () => {
    while (waiting.length && (queue.length || ended)) waiting.shift()!(queue.shift())
  }
  socket.on('data', (bytes: Buffer) => {
    queue.push(...decoder.push(bytes))
    settle()
  })
  socket.on('end', () => ((ended ??= true), settle()))
  socket.on('close', () => ((ended ??= true), settle()))
  socket.on('error', (e) => ((ended ??= e), settle()))
  return () =>
    new Promise((resolve, reject) => {
      if (queue.length) return resolve(queue.shift())
      if (ended instanceof Error) return reject(ended)
      if (ended) return resolve(undefined)
      waiting.push((f) => (f === undefined && ended instanceof Error ? reject(ended) : resolve(f)))
    })
}

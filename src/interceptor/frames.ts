/**
 * The wire between a process whose requests go on another process's tape and the process that holds it: frames
 * `[type:1][length:4, big-endian][payload]`, so each body chunk reaches the program as the chunk it was (the socket
 * alone would merge them). A process of the tree sends each request as frames over a local socket, and gets the
 * answer back the same way (`./tree-wire.ts`).
 */

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

/**
 * AWS event streams (`application/vnd.amazon.eventstream`): the binary framing of Bedrock's
 * ConverseStream and InvokeModelWithResponseStream. Each frame is a 12-byte prelude (total length,
 * headers length, prelude CRC32), typed headers, a payload and a message CRC32. Frames are decoded
 * and encoded by the AWS SDK's own codec (`@smithy/core/event-streams`, loaded when first needed), so a
 * frame we rewrite is one the SDK accepts.
 */
import { createRequire } from 'node:module'
import type { EventStreamCodec } from '@smithy/core/event-streams'
import { FluxError } from '../../errors.js'

const toUtf8 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
const fromUtf8 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'))
type Message = ReturnType<EventStreamCodec['decode']>
type MessageHeaders = Message['headers']

let loaded: EventStreamCodec | undefined

/**
 * The AWS SDK's own event-stream codec, loaded the first time a Bedrock stream is read: `@smithy/core`
 * is an optional peer dependency, installed with every `@aws-sdk/*` client, so projects without
 * Bedrock never load it (and never install it for fluxlab).
 */
function sdkCodec(): EventStreamCodec {
  if (loaded) return loaded
  let mod: typeof import('@smithy/core/event-streams')
  try {
    mod = createRequire(import.meta.url)('@smithy/core/event-streams') as typeof import('@smithy/core/event-streams')
  } catch (e) {
    const cause = e instanceof Error ? e.message.split('\n')[0] : String(e)
    throw new FluxError('FLUX_BAD_CONFIG', {
      failed: 'read an AWS event stream (a Bedrock streaming response)',
      reason: `fluxlab reads it with the AWS SDK's codec from @smithy/core, which it cannot load (${cause})`,
      fix: 'Install it beside fluxlab: npm install --save-dev @smithy/core',
    })
  }
  return (loaded = new mod.EventStreamCodec(toUtf8, fromUtf8))
}

/** The content type of an AWS event stream. */
export const EVENT_STREAM = 'application/vnd.amazon.eventstream'

/** One decoded frame: its string headers (`:event-type`, `:message-type`, …) and its payload as text. */
export interface Frame {
  headers: Record<string, string>
  payload: string
}

/** What a body holds: its whole frames in order, and why reading stopped early (a cut or corrupt frame). */
interface Frames {
  frames: Frame[]
  /** The byte range of each whole frame in the body. */
  ranges: Array<[number, number]>
  problem?: string
}

/**
 * The frames of a body, each checked (lengths and both CRC32s) by the SDK's codec.
 * @example
 * readFrames(bytes).frames[0] // { headers: { ':event-type': 'messageStart', … }, payload: '{"role":"assistant","p":"abcd"}' }
 */
export function readFrames(bytes: Uint8Array): Frames {
  const frames: Frame[] = []
  const ranges: Array<[number, number]> = []
  let at = 0
  while (at < bytes.length) {
    if (bytes.length - at < 4) return { frames, ranges, problem: `the stream ends inside a frame (${bytes.length - at} bytes after frame ${frames.length})` }
    const total = new DataView(bytes.buffer, bytes.byteOffset + at, 4).getUint32(0, false)
    if (total < 16) return { frames, ranges, problem: `frame ${frames.length + 1} declares ${total} bytes, fewer than a frame's prelude and checksums` }
    if (at + total > bytes.length)
      return { frames, ranges, problem: `the stream ends inside frame ${frames.length + 1} (${bytes.length - at} of ${total} bytes)` }
    let message: Message
    try {
      message = sdkCodec().decode(bytes.subarray(at, at + total))
    } catch (e) {
      return { frames, ranges, problem: `frame ${frames.length + 1} does not decode: ${e instanceof Error ? e.message : String(e)}` }
    }
    frames.push({ headers: stringHeaders(message.headers), payload: toUtf8(message.body) })
    ranges.push([at, at + total])
    at += total
  }
  return { frames, ranges }
}

function stringHeaders(headers: MessageHeaders): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, h] of Object.entries(headers)) if (h.type === 'string') out[name] = h.value
  return out
}

/**
 * The body redacted inside its frames, one piece per frame. `redact` is the redactor's stream form:
 * it gets every frame's payload (one JSON document a line) together, so a key the model streams
 * in two deltas is found as one, and returns them redacted. A frame it changed (a payload, or a
 * string header, redacted one by one) is encoded again with new lengths and CRC32s; the others keep
 * their bytes. `undefined` when nothing changed. Bytes after the last whole frame (a cut stream)
 * are kept as a last piece only when `redact` finds nothing in them.
 * @example
 * redactEventStream(bytes, (parts) => redactor.chunks(parts)) // [{ bytes: frame1, end: 87 }, …] or undefined
 */
export function redactEventStream(bytes: Uint8Array, redact: (parts: readonly string[]) => string[]): Array<{ bytes: Uint8Array; end: number }> | undefined {
  const read = readFrames(bytes)
  const codec = sdkCodec()
  const messages = read.ranges.map(([start, end]) => codec.decode(bytes.subarray(start, end)))
  const payloads = messages.map((m) => `${toUtf8(m.body)}\n`)
  const redacted = payloads.length > 0 ? redact(payloads) : []
  let changed = false
  const out = read.ranges.map(([start, end], i) => {
    const message = messages[i]
    let touched = redacted[i] !== payloads[i]
    const headers: MessageHeaders = {}
    for (const [name, h] of Object.entries(message.headers)) {
      if (h.type !== 'string') {
        headers[name] = h
        continue
      }
      const [value] = redact([h.value])
      touched ||= value !== h.value
      headers[name] = { type: 'string', value }
    }
    if (!touched) return { bytes: bytes.subarray(start, end), end }
    changed = true
    return { bytes: codec.encode({ headers, body: fromUtf8(redacted[i].replace(/\n$/, '')) }), end }
  })
  const last = read.ranges.at(-1)?.[1] ?? 0
  if (last < bytes.length) {
    const tail = bytes.subarray(last)
    const asText = toUtf8(tail)
    if (redact([asText])[0] === asText) out.push({ bytes: tail, end: bytes.length })
    else changed = true
  }
  return changed ? out : undefined
}

/**
 * A readable view of a body, one line per frame: its type and payload (the viewer shows it).
 * @example
 * describeEventStream(bytes)
 * // 'event messageStart {"role":"assistant"}\nevent contentBlockDelta {…}'
 */
export function describeEventStream(bytes: Uint8Array): string {
  const read = readFrames(bytes)
  const lines = read.frames.map((f) => {
    const kind = f.headers[':message-type'] ?? 'event'
    const type = f.headers[':event-type'] ?? f.headers[':exception-type'] ?? f.headers[':error-code'] ?? '?'
    return `${kind} ${type} ${f.payload}`
  })
  if (read.problem !== undefined) lines.push(`(${read.problem})`)
  return lines.join('\n')
}

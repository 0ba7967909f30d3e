import type { Chunk } from '../../cassette/cell.js'
import { bodyText, decodeChunk, encodeChunk } from '../../cassette/chunks.js'
import type { Redactor } from '../../cassette/redact.js'
import type { BinaryBody } from '../../providers/types.js'

/** Redact secrets in recorded chunks, across chunk boundaries when every chunk is text. */
export function redactChunks(chunks: Chunk[], redactor: Redactor, binary?: BinaryBody): Chunk[] {
  if (binary) return redactBinary(chunks, redactor, binary)
  if (chunks.every((c) => c.text !== undefined)) {
    const texts = redactor.chunks(chunks.map((c) => c.text as string))
    return chunks.map((c, i) => ({ t: c.t, text: texts[i] }))
  }
  // @note a chunk that is not UTF-8 alone (split character) cannot be redacted in place: redact the
  // whole body and keep it as one chunk only when it actually held a secret.
  const whole = bodyText(chunks)
  const redacted = redactor.text(whole)
  if (redacted === whole) return chunks
  return [encodeChunk(new TextEncoder().encode(redacted), chunks[chunks.length - 1]?.t ?? 0)]
}

/**
 * A binary body (AWS event stream): its family redacts inside each frame, so framing and checksums
 * still hold. Unchanged, the chunks stay as they came; changed, each frame becomes one chunk, stamped
 * with the time of the chunk its last byte arrived in.
 */
function redactBinary(chunks: Chunk[], redactor: Redactor, binary: BinaryBody): Chunk[] {
  const parts = chunks.map((c) => decodeChunk(c))
  const pieces = binary.redact(Buffer.concat(parts), (texts) => redactor.chunks(texts))
  if (pieces === undefined) return chunks
  const ends: number[] = []
  let offset = 0
  for (const p of parts) ends.push((offset += p.length))
  return pieces.map((p) =>
    encodeChunk(
      p.bytes,
      chunks[
        Math.max(
          0,
          ends.findIndex((e) => e >= p.end),
        )
      ]?.t ?? 0,
    ),
  )
}

export function stripUndefined<T extends object>(o: T): T {
  for (const k of Object.keys(o) as Array<keyof T>) if (o[k] === undefined) delete o[k]
  return o
}

/** A JSON-safe copy (what a fixture can hold): `undefined` stays `undefined`, class instances become plain data. */
export function toJsonValue(v: unknown): unknown {
  if (v === undefined) return undefined
  try {
    return JSON.parse(JSON.stringify(v))
  } catch {
    return String(v)
  }
}

export function serializeError(e: unknown, redactor: Redactor): { name: string; message: string; data?: unknown } {
  if (!(e instanceof Error)) return { name: 'NonError', message: redactor.text(String(e)), data: redactor.json(toJsonValue(e)) }
  const own: Record<string, unknown> = {}
  for (const k of Object.keys(e)) own[k] = (e as unknown as Record<string, unknown>)[k]
  const data = Object.keys(own).length ? redactor.json(toJsonValue(own)) : undefined
  return { name: e.name, message: redactor.text(e.message), ...(data !== undefined ? { data } : {}) }
}

/** The recorded throw, rebuilt: same class name, message and own properties. */
export function restoreError(rec: { name: string; message: string; data?: unknown }): unknown {
  if (rec.name === 'NonError') return rec.data ?? rec.message
  const err = new Error(rec.message)
  err.name = rec.name
  if (rec.data && typeof rec.data === 'object') Object.assign(err, rec.data)
  return err
}

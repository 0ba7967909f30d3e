import type { Chunk } from './cell.js'

const strict = new TextDecoder('utf-8', { fatal: true })

/**
 * Store a received chunk: as text when it decodes as UTF-8 on its own, else base64.
 * @example
 * encodeChunk(new TextEncoder().encode('data: hi\n\n'), 3) // { t: 3, text: 'data: hi\n\n' }
 */
export function encodeChunk(bytes: Uint8Array, t: number): Chunk {
  try {
    return { t, text: strict.decode(bytes) }
  } catch {
    return { t, b64: Buffer.from(bytes).toString('base64') }
  }
}

/**
 * The exact bytes of a stored chunk.
 * @example
 * decodeChunk({ t: 0, b64: '4oI=' }) // Uint8Array [0xe2, 0x82]
 */
export function decodeChunk(chunk: Chunk): Uint8Array {
  if (chunk.b64 !== undefined) return new Uint8Array(Buffer.from(chunk.b64, 'base64'))
  return new Uint8Array(Buffer.from(chunk.text ?? '', 'utf8'))
}

/**
 * The whole body as text (joining bytes first, so a character split across chunks survives).
 * @example
 * bodyText(cell.response.chunks)
 */
export function bodyText(chunks: readonly Chunk[]): string {
  // well-formed text chunks are their own UTF-8 round trip: joined as they are (issue 14: every fixture read does this per cell)
  if (chunks.every((c) => c.b64 === undefined && typeof c.text === 'string' && (c.text as string & { isWellFormed(): boolean }).isWellFormed()))
    return chunks.map((c) => c.text).join('')
  return Buffer.concat(chunks.map((c) => decodeChunk(c))).toString('utf8')
}

/**
 * The whole body's exact bytes (a binary body, such as an AWS event stream, is read from these).
 * @example
 * bodyBuffer(cell.response.chunks).length // 2048
 */
export function bodyBuffer(chunks: readonly Chunk[]): Uint8Array {
  return Buffer.concat(chunks.map((c) => decodeChunk(c)))
}

/** Total size in bytes of the stored chunks. */
export function bodyBytes(chunks: readonly Chunk[]): number {
  let n = 0
  for (const c of chunks) n += c.b64 !== undefined ? Buffer.from(c.b64, 'base64').length : Buffer.byteLength(c.text ?? '')
  return n
}

/**
 * Keep chunks up to `maxBytes` of body; the rest is cut.
 * @example
 * capChunks(chunks, 1 << 20) // { chunks, truncated: false, originalBytes: 5120 }
 */
export function capChunks(chunks: readonly Chunk[], maxBytes: number): { chunks: Chunk[]; truncated: boolean; originalBytes: number } {
  const originalBytes = bodyBytes(chunks)
  if (originalBytes <= maxBytes) return { chunks: [...chunks], truncated: false, originalBytes }
  const kept: Chunk[] = []
  let used = 0
  for (const c of chunks) {
    const bytes = decodeChunk(c)
    if (used + bytes.length > maxBytes) {
      const rest = maxBytes - used
      if (rest > 0) kept.push(encodeChunk(bytes.subarray(0, rest), c.t))
      break
    }
    kept.push(c)
    used += bytes.length
  }
  return { chunks: kept, truncated: true, originalBytes }
}

/**
 * The secret scan of a recorded stream: its chunks searched as one body, so a key split across chunks or SSE events
 * is found, pointing at the chunk where it starts.
 */
import { findSecrets } from '../secrets/find.js'
import { placeholderFor } from '../secrets/redact.js'
import { appendPath } from './json-path.js'
import { dedupe, type Finding, type ScanOptions } from './scan-value.js'
import { decodedSpans } from './stream-view.js'

/**
 * The recorded stream of a cell line (a fixture cell, or a journal entry's `cell`), searched as a
 * whole: a key split across SSE events is in no single string of the line.
 */
export function storedStream(value: unknown, opts: ScanOptions): Finding[] {
  const v = value as { response?: { chunks?: unknown }; cell?: { response?: { chunks?: unknown } } } | null
  const [chunks, base] = Array.isArray(v?.response?.chunks)
    ? [v.response.chunks, 'response.chunks']
    : Array.isArray(v?.cell?.response?.chunks)
      ? [v.cell.response.chunks, 'cell.response.chunks']
      : [undefined, '']
  if (!chunks) return []
  const b64 = chunks.some((c: { b64?: unknown } | null) => typeof c?.b64 === 'string')
  if (!b64 && chunks.length < 2) return []
  const texts = b64 ? decodedChunks(chunks) : chunks.map((c: { text?: unknown } | null) => (typeof c?.text === 'string' ? c.text : ''))
  const pathOf = (i: number) => `${base}[${i}].${typeof chunks[i]?.b64 === 'string' ? 'b64' : 'text'}`
  if (!b64) return streamFindings(texts, opts, pathOf)
  // @note issue 14: a base64 chunk's text shows in no raw line, so the raw-text rules are run on the decoded body too.
  return [...textFindings(texts, opts, pathOf), ...streamFindings(texts, opts, pathOf)]
}

/**
 * A stored body's chunks as text, base64 ones decoded, as one UTF-8 decode of the joined bytes gives it: a character
 * split across chunks counts in the chunk where it ends. A chunk that is neither counts as empty.
 */
function decodedChunks(chunks: readonly unknown[]): string[] {
  const decoder = new TextDecoder('utf-8')
  const out = chunks.map((c) => {
    const { text, b64 } = (c ?? {}) as { text?: unknown; b64?: unknown }
    const bytes = typeof b64 === 'string' ? Buffer.from(b64, 'base64') : typeof text === 'string' ? Buffer.from(text) : Buffer.alloc(0)
    return decoder.decode(bytes, { stream: true })
  })
  out[out.length - 1] += decoder.decode()
  return out
}

/** The raw-text rules' findings in a body's chunks joined, at the chunk where each starts. */
function textFindings(chunks: readonly string[], opts: ScanOptions, pathOf: (index: number) => string): Finding[] {
  const ends: number[] = []
  let offset = 0
  for (const c of chunks) ends.push((offset += c.length))
  return findSecrets(chunks.join(''), opts).map((m) => ({ rule: m.rule, path: pathOf(ends.findIndex((end) => m.start < end)) }))
}

/** Findings of the decoded view of `chunks` (JSON strings decoded, deltas joined), at the chunk where each starts. */
function streamFindings(chunks: readonly string[], opts: ScanOptions, pathOf: (index: number) => string): Finding[] {
  const ends: number[] = []
  let offset = 0
  for (const c of chunks) ends.push((offset += c.length))
  const { rules } = decodedSpans(chunks.join(''), (text) => findSecrets(text, opts), placeholderFor)
  return rules.map(({ rule, at }) => ({ rule: rule ?? 'secret', path: pathOf(ends.findIndex((end) => at < end)) }))
}

/**
 * Finds secrets in a stream's chunks as received, including one split across
 * consecutive chunks or across SSE events; the finding points at the chunk where the secret starts.
 * @example
 * scanChunks(['data: {"text":"sk-ant-api03-AAAA', 'BBBB…"}\n\n'], 'response.chunks')
 * // [{ rule: 'anthropic-key', path: 'response.chunks[0]' }]
 */
export function scanChunks(chunks: readonly string[], basePath: string | ((index: number) => string) = 'chunks'): Finding[] {
  const ends: number[] = []
  let offset = 0
  for (const c of chunks) ends.push((offset += c.length))
  const pathOf = typeof basePath === 'function' ? basePath : (i: number) => appendPath(basePath, i)
  return dedupe([
    ...findSecrets(chunks.join('')).map((m) => {
      const index = ends.findIndex((end) => m.start < end)
      return { rule: m.rule, path: pathOf(index) }
    }),
    ...streamFindings(chunks, {}, pathOf),
  ])
}

/**
 * The text-level redaction every other layer builds on: placeholders, span replacement, and redacting a text or
 * a message. A leaf: it imports nothing from the project outside src/secrets, so error formatting can use it
 * without pulling in the cassette code.
 */
import { createRequire } from 'node:module'
import { findSecrets, type SecretOptions } from './find.js'

type Crypto = typeof import('node:crypto')
let crypto: Crypto | undefined
/**
 * The first 8 hex digits of the SHA-256 of `text`.
 * @note issue 14: node:crypto is loaded at the first placeholder, not with this module. fluxlab's vitest setup
 * file imports this module (through the error messages) into every test file's fresh process, and loading
 * node:crypto there was about 5 ms of each file's setup.
 */
function sha256Prefix(text: string): string {
  return (crypto ??= createRequire(import.meta.url)('node:crypto') as Crypto).createHash('sha256').update(text).digest('hex').slice(0, 8)
}

/**
 * A span of text to replace. `with` is the replacement; when absent the span
 * becomes the placeholder of its own text.
 */
export interface ReplaceSpan {
  start: number
  end: number
  with?: string
}

/** Matches a placeholder written by {@link placeholderFor}. */
export const PLACEHOLDER_PATTERN = /\[REDACTED:[0-9a-f]{8}\]/

/**
 * The placeholder for a secret: `[REDACTED:` + first 8 hex of its sha256 + `]`.
 * The same secret always gives the same placeholder.
 * @example
 * placeholderFor('hunter2') // '[REDACTED:f52fbd32]'
 */
export function placeholderFor(secret: string): string {
  return `[REDACTED:${sha256Prefix(canonicalSecret(secret))}]`
}

const JSON_ESCAPE = /\\(?:u[0-9a-fA-F]{4}|["\\/bfnrt])/
const UNESCAPE: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }

/**
 * What a placeholder is the hash of: the secret with JSON escapes undone (up to three levels, for JSON
 * inside a JSON string), line endings as `\n`, and a PEM block without whitespace.
 * @note Issue 13: the same PEM key travelled raw in a tool output and `\n`-escaped in the next request,
 * and got two placeholders, so every replay drifted. One secret gets one placeholder in any encoding.
 */
function canonicalSecret(secret: string): string {
  let s = secret
  for (let i = 0; i < 3 && JSON_ESCAPE.test(s); i++)
    s = s.replace(/\\(u[0-9a-fA-F]{4}|["\\/bfnrt])/g, (_, e: string) => (e.length === 5 ? String.fromCharCode(parseInt(e.slice(1), 16)) : (UNESCAPE[e] ?? e)))
  s = s.replace(/\r\n?/g, '\n')
  return /^-----BEGIN/.test(s) ? s.replace(/\s+/g, '') : s
}

/**
 * Replaces spans of `text` (merged when they overlap; a merged group of
 * several spans becomes the placeholder of its whole text).
 * @example
 * replaceSpans('abc', [{ start: 1, end: 2, with: '_' }]) // 'a_c'
 */
export function replaceSpans(text: string, spans: readonly ReplaceSpan[]): string {
  let out = ''
  let pos = 0
  for (const s of mergeReplaceSpans(spans)) {
    out += text.slice(pos, s.start) + (s.with ?? placeholderFor(text.slice(s.start, s.end)))
    pos = s.end
  }
  return out + text.slice(pos)
}

/**
 * Sorts spans and merges overlapping ones into their union, as the merge of found secrets does (find.ts), but a
 * span keeps its own `with` only when nothing overlaps it.
 * @example
 * mergeReplaceSpans([{ start: 0, end: 3, with: 'x' }, { start: 2, end: 5 }]) // [{ start: 0, end: 5 }]
 */
export function mergeReplaceSpans(spans: readonly ReplaceSpan[]): ReplaceSpan[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start || b.end - a.end)
  const out: ReplaceSpan[] = []
  for (const s of sorted) {
    const last = out[out.length - 1]
    if (last && s.start < last.end) {
      out[out.length - 1] = { start: last.start, end: Math.max(last.end, s.end) }
    } else out.push({ ...s })
  }
  return out
}

/**
 * Applies spans found in the concatenation of `chunks` back onto the chunks:
 * a span's replacement goes into the chunk where it starts, and the rest of
 * the span is cut from the chunks after it. Text outside spans is unchanged
 * and the number of chunks stays the same (a chunk that held only the rest of
 * a secret stays, shorter or empty). A key streamed in two SSE events is two
 * spans: the placeholder where it starts, and an empty replacement for its
 * part in the later event.
 * @example
 * replaceAcrossChunks(['a sec', 'ret b'], [{ start: 2, end: 8, with: 'X' }]) // ['a X', ' b']
 */
export function replaceAcrossChunks(chunks: readonly string[], found: readonly ReplaceSpan[]): string[] {
  const all = chunks.join('')
  const merged = mergeReplaceSpans(found)
  const out: string[] = []
  let offset = 0
  let k = 0
  for (const chunk of chunks) {
    const cs = offset
    const ce = offset + chunk.length
    offset = ce
    let pos = cs
    let piece = ''
    while (k < merged.length && merged[k].start < ce) {
      const s = merged[k]
      if (s.start >= cs) {
        piece += all.slice(pos, s.start) + (s.with ?? placeholderFor(all.slice(s.start, s.end)))
      }
      pos = Math.min(Math.max(pos, s.end), ce)
      if (s.end > ce) break
      k++
    }
    out.push(piece + all.slice(pos, ce))
  }
  return out
}

/**
 * Replaces each secret with its placeholder. For `Bearer <token>` only the
 * token is replaced.
 * @example
 * redactText('Authorization: Bearer ' + token) // 'Authorization: Bearer [REDACTED:1a2b3c4d]'
 */
export function redactText(text: string, opts: SecretOptions = {}): string {
  return replaceSpans(text, findSecrets(text, opts))
}

/**
 * Redacts text headed for a terminal or log (error messages, warnings); all
 * rules run. Non-string input is stringified first.
 * @example
 * throw new Error(redactMessage(`request failed: ${url}`))
 */
export function redactMessage(text: unknown): string {
  return redactText(typeof text === 'string' ? text : String(text))
}

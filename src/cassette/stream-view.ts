/**
 * The decoded view of a body that redaction and the secret scan both search: every JSON string
 * literal in it (a JSON body, SSE `data:` lines, NDJSON), decoded, and the string values at the same
 * JSON path joined across a stream's events. A key a provider streams in two text deltas, or
 * JSON-escapes (`\n` in a PEM key, `\/` in a URL), is one piece of text here.
 */
import type { ReplaceSpan } from '../secrets/redact.js'

/** One JSON string literal of a text: its decoded value and where each decoded character came from. */
interface JsonString {
  /** JSON path inside its document (`choices[0].delta.content`); object keys get their own, never joined. */
  path: string
  value: string
  /** `offsets[i]`: raw offset of decoded character `i`; `offsets[value.length] === end`. */
  offsets: number[]
}

/** A finding in decoded text: `[start, end)`, and the replacement when it is not the placeholder of its text. */
export type DecodedSpan = { start: number; end: number; with?: string; rule?: string }

const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }
/** Nesting deeper than this is not walked (a hostile body must not cost unbounded memory); its strings are still read. */
const MAX_DEPTH = 512

/**
 * Reads one JSON string literal whose opening quote is at `q`. Undefined when it is not closed
 * (a truncated body) or holds a raw line break (not JSON).
 */
function readString(text: string, q: number): { value: string; offsets: number[]; end: number } | undefined {
  let value = ''
  const offsets: number[] = []
  for (let i = q + 1; i < text.length; i++) {
    const c = text[i]
    if (c === '"') {
      offsets.push(i)
      return { value, offsets, end: i }
    }
    if (c === '\n' || c === '\r') return undefined
    if (c !== '\\') {
      value += c
      offsets.push(i)
      continue
    }
    const e = text[i + 1]
    if (e === 'u') {
      const hex = text.slice(i + 2, i + 6)
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) return undefined
      value += String.fromCharCode(parseInt(hex, 16))
      offsets.push(i)
      i += 5
    } else if (e !== undefined && e in ESCAPES) {
      value += ESCAPES[e]
      offsets.push(i)
      i += 1
    } else return undefined
  }
  return undefined
}

type Frame = { kind: 'object'; key?: string; expectKey: boolean; path: string } | { kind: 'array'; index: number; path: string }

/**
 * Walks one JSON value starting at `from` (`{` or `[`), collecting its strings, tolerant of a value
 * that is cut short: the strings read before the cut are kept. Returns where it stopped.
 */
function walkValue(text: string, from: number, rootArray: boolean, out: JsonString[]): number {
  const stack: Frame[] = []
  const childPath = (): string => {
    const top = stack[stack.length - 1]
    if (!top) return ''
    if (top.kind === 'array') return rootArray && stack.length === 1 ? '' : `${top.path}[${top.index}]`
    return top.path ? `${top.path}.${top.key}` : (top.key ?? '')
  }
  let i = from
  while (i < text.length) {
    const c = text[i]
    if (c === '{' || c === '[') {
      const path = childPath()
      if (stack.length >= MAX_DEPTH) return i
      stack.push(c === '{' ? { kind: 'object', expectKey: true, path } : { kind: 'array', index: 0, path })
      i++
    } else if (c === '}' || c === ']') {
      stack.pop()
      i++
      if (stack.length === 0) return i
    } else if (c === '"') {
      const s = readString(text, i)
      if (!s) return i
      const top = stack[stack.length - 1]
      if (top?.kind === 'object' && top.expectKey) {
        out.push({ path: `${top.path}{${s.value}}`, value: s.value, offsets: s.offsets })
        top.key = s.value
        top.expectKey = false
      } else out.push({ path: childPath(), value: s.value, offsets: s.offsets })
      i = s.end + 1
    } else if (c === ',') {
      const top = stack[stack.length - 1]
      if (top?.kind === 'array') top.index++
      else if (top) top.expectKey = true
      i++
    } else if (stack.length === 0) return i
    else i++
  }
  return i
}

/**
 * Every JSON string literal in `text`: in a JSON document, NDJSON lines, or SSE `data:` lines.
 * The items of a top-level array (Gemini's JSON-array stream) share their paths.
 */
function jsonStrings(text: string): JsonString[] {
  const out: JsonString[] = []
  let i = 0
  while (i < text.length) {
    let j = i
    if (text.startsWith('data:', j)) j += 5
    while (text[j] === ' ' || text[j] === '\t') j++
    if (text[j] === '{' || text[j] === '[') j = walkValue(text, j, text[j] === '[', out)
    const nl = text.indexOf('\n', j)
    if (nl < 0) break
    i = nl + 1
  }
  return out
}

/** A text with a JSON value at the start of a line (a JSON body, NDJSON, SSE `data:`): the only texts with a decoded view. */
export const LOOKS_JSON = /(?:^|\n)(?:data:)?[ \t]*[{[]/

/**
 * Finds secrets in the decoded view of `text` and maps them back onto the raw text. A secret inside
 * one string becomes one span; one spread over the string values at one path (a stream's deltas)
 * gets `with` set: the placeholder where it starts, and `''` in each later part, so every part of it
 * is cut from the raw text and the decoded stream reads the placeholder once. `rules` says which
 * rule found each secret and the raw offset where it starts (for the scan).
 * @example
 * decodedSpans('data: {"t":"sk-ant-api03-AAA"}\n\ndata: {"t":"BBB…"}\n\n', findSecrets, placeholderFor)
 */
export function decodedSpans(
  text: string,
  find: (s: string) => DecodedSpan[],
  placeholder: (secret: string) => string,
): { spans: ReplaceSpan[]; rules: Array<{ rule?: string; at: number }> } {
  if (!LOOKS_JSON.test(text)) return { spans: [], rules: [] }
  const strings = jsonStrings(text)
  const groups = new Map<string, JsonString[]>()
  for (const s of strings) {
    const g = groups.get(s.path)
    if (g) g.push(s)
    else groups.set(s.path, [s])
  }
  const spans: ReplaceSpan[] = []
  const rules: Array<{ rule?: string; at: number }> = []
  // @note one search over every group joined by NUL (which no rule matches across): the per-call cost of a search
  // per group would be most of a fixture's load time (see scan.ts).
  const list = [...groups.values()]
  const joined = list.map((g) => (g.length === 1 ? g[0].value : g.map((s) => s.value).join('')))
  const groupStarts: number[] = []
  let total = 0
  for (const j of joined) {
    groupStarts.push(total)
    total += j.length + 1
  }
  for (const f of find(joined.join('\u0000'))) {
    const gi = lastAtOrBefore(groupStarts, f.start)
    const group = list[gi]
    const text = joined[gi]
    const from = f.start - groupStarts[gi]
    const to = Math.min(f.end - groupStarts[gi], text.length)
    const replacement = f.with ?? placeholder(text.slice(from, to))
    let first = true
    let offset = 0
    for (const s of group) {
      const lo = Math.max(from, offset)
      const hi = Math.min(to, offset + s.value.length)
      if (lo < hi) {
        const start = s.offsets[lo - offset]
        spans.push({ start, end: s.offsets[hi - offset], with: first ? replacement : '' })
        if (first) rules.push({ rule: f.rule, at: start })
        first = false
      }
      offset += s.value.length
    }
  }
  return { spans, rules }
}

/**
 * Index of the last element of the ascending `sorted` that is <= `x`.
 * @example
 * lastAtOrBefore([0, 4, 9], 5) // 1
 */
export function lastAtOrBefore(sorted: readonly number[], x: number): number {
  let lo = 0
  let hi = sorted.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (sorted[mid] <= x) lo = mid
    else hi = mid - 1
  }
  return lo
}

/**
 * The secret scan that runs on every fixture write and read. A finding says
 * where a secret is (file, line, JSON path) and which rule matched, never
 * what the secret is.
 */
import { findSecrets, redactMessage, redactText } from '../secrets.js'
import { appendPath } from './json-path.js'

export interface Finding {
  /** Id of the rule that matched, e.g. `openai-key`. */
  rule: string
  /** JSON path of the value, e.g. `response.chunks[2].text`. Keys that look secret appear redacted. */
  path?: string
  /** 1-based line in the scanned text. */
  line?: number
  file?: string
}

/**
 * Finds secrets in every string and object key of a JSON-like value.
 * @example
 * scanValue({ messages: [{ content: 'my key is ' + key }] }, 'request.body')
 * // [{ rule: 'openai-key', path: 'request.body.messages[0].content' }]
 */
export function scanValue(value: unknown, basePath = ''): Finding[] {
  return dedupe(walk(value, basePath, []))
}

function walk(value: unknown, path: string, out: Finding[]): Finding[] {
  if (typeof value === 'string') {
    for (const m of findSecrets(value)) out.push(withPath(m.rule, path))
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => walk(v, appendPath(path, i), out))
  } else if (value !== null && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      const keyPath = appendPath(path, redactText(key))
      for (const m of findSecrets(key)) out.push(withPath(m.rule, keyPath))
      walk(v, keyPath, out)
    }
  }
  return out
}

const withPath = (rule: string, path: string): Finding => (path ? { rule, path } : { rule })

/**
 * Scans a file's text. Findings carry a 1-based `line` (of the secret's first
 * character). When the whole text is JSON, or a line is JSON (JSONL, or an
 * SSE `data:` line), findings also carry the JSON path inside it.
 * @example
 * scanText('{"a":1}\n{"text":"' + key + '"}\n', 'model.jsonl')
 * // [{ rule: 'anthropic-key', file: 'model.jsonl', line: 2, path: 'text' }]
 */
export function scanText(text: string, file?: string): Finding[] {
  const lineStarts = [0]
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1)
  const lineOf = (offset: number): number => {
    let lo = 0
    let hi = lineStarts.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (lineStarts[mid] <= offset) lo = mid
      else hi = mid - 1
    }
    return lo + 1
  }
  const matches: Finding[] = findSecrets(text).map((m) => ({ rule: m.rule, line: lineOf(m.start) }))

  let found: Finding[]
  // A one-line document goes through the per-line branch, which knows its line.
  const whole = text.trim().includes('\n') ? parseJson(text) : { ok: false as const }
  if (whole.ok) {
    found = pair(matches, walk(whole.value, '', []))
  } else {
    found = []
    const byLine = new Map<number, Finding[]>()
    for (const m of matches) byLine.set(m.line!, [...(byLine.get(m.line!) ?? []), m])
    lineStarts.forEach((start, i) => {
      const line = i + 1
      const lineText = text.slice(start, i + 1 < lineStarts.length ? lineStarts[i + 1] - 1 : text.length)
      const parsed = parseJson(lineText.replace(/^data:[ \t]?/, ''))
      const own = byLine.get(line) ?? []
      if (parsed.ok) found.push(...pair(own, walk(parsed.value, '', []).map((f) => ({ ...f, line }))))
      else found.push(...own)
    })
  }
  return dedupe(file === undefined ? found : found.map((f) => ({ file, ...f })))
}

/** Gives text matches the JSON path of a value finding with the same rule, in order; unmatched value findings are kept. */
function pair(textMatches: readonly Finding[], valueFindings: readonly Finding[]): Finding[] {
  const unused = [...valueFindings]
  const out: Finding[] = []
  for (const m of textMatches) {
    const i = unused.findIndex((v) => v.rule === m.rule)
    if (i < 0) out.push(m)
    else out.push({ ...m, ...unused.splice(i, 1)[0], line: m.line })
  }
  return [...out, ...unused]
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  const t = text.trim()
  if (!(t.startsWith('{') || t.startsWith('['))) return { ok: false }
  try {
    return { ok: true, value: JSON.parse(t) }
  } catch {
    return { ok: false }
  }
}

/**
 * Finds secrets in a stream's chunks as received, including one split across
 * consecutive chunks; the finding points at the chunk where the secret starts.
 * @example
 * scanChunks(['data: {"text":"sk-ant-api03-AAAA', 'BBBB…"}\n\n'], 'response.chunks')
 * // [{ rule: 'anthropic-key', path: 'response.chunks[0]' }]
 */
export function scanChunks(chunks: readonly string[], basePath: string | ((index: number) => string) = 'chunks'): Finding[] {
  const ends: number[] = []
  let offset = 0
  for (const c of chunks) ends.push((offset += c.length))
  const pathOf = typeof basePath === 'function' ? basePath : (i: number) => appendPath(basePath, i)
  return dedupe(
    findSecrets(chunks.join('')).map((m) => {
      const index = ends.findIndex((end) => m.start < end)
      return { rule: m.rule, path: pathOf(index) }
    }),
  )
}

/**
 * One line for an error message: where, and which rule. Never the value.
 * @example
 * describeFinding({ rule: 'openai-key', file: 'model.jsonl', line: 3, path: 'response.chunks[2].text' })
 * // 'model.jsonl:3 response.chunks[2].text (openai-key)'
 */
export function describeFinding(f: Finding): string {
  const where = f.file !== undefined ? `${f.file}${f.line !== undefined ? `:${f.line}` : ''}` : f.line !== undefined ? `line ${f.line}` : ''
  return redactMessage([where, f.path, `(${f.rule})`].filter(Boolean).join(' '))
}

function dedupe(findings: readonly Finding[]): Finding[] {
  const seen = new Set<string>()
  return findings.filter((f) => {
    const k = JSON.stringify([f.rule, f.path, f.line, f.file])
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}

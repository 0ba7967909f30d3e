import { isRecord } from '../providers/json.js'

/** One difference between a recorded and an actual JSON value. */
export interface JsonDiffRow {
  path: string
  kind: 'changed' | 'added' | 'removed'
  recorded?: unknown
  actual?: unknown
}

/**
 * Structural diff of two JSON values, as JSON paths (`messages[3].content`).
 * Stops after `limit` rows.
 * @example
 * diffJson({ a: [1, 2] }, { a: [1, 3] }) // [{ path: 'a[1]', kind: 'changed', recorded: 2, actual: 3 }]
 */
export function diffJson(recorded: unknown, actual: unknown, limit = 20): JsonDiffRow[] {
  const rows: JsonDiffRow[] = []
  walk(recorded, actual, '', rows, limit)
  return rows
}

function walk(a: unknown, b: unknown, path: string, rows: JsonDiffRow[], limit: number): void {
  if (rows.length >= limit) return
  if (Object.is(a, b)) return
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.max(a.length, b.length)
    for (let i = 0; i < n && rows.length < limit; i++) {
      const p = `${path}[${i}]`
      if (i >= a.length) rows.push({ path: p, kind: 'added', actual: b[i] })
      else if (i >= b.length) rows.push({ path: p, kind: 'removed', recorded: a[i] })
      else walk(a[i], b[i], p, rows, limit)
    }
    return
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()
    for (const k of keys) {
      if (rows.length >= limit) return
      const p = path ? `${path}.${k}` : k
      if (!(k in a)) rows.push({ path: p, kind: 'added', actual: b[k] })
      else if (!(k in b)) rows.push({ path: p, kind: 'removed', recorded: a[k] })
      else walk(a[k], b[k], p, rows, limit)
    }
    return
  }
  rows.push({ path: path || '(root)', kind: 'changed', recorded: a, actual: b })
}

/**
 * One line per row, values shortened: `messages[3].content differs: "hi" → "hello"`.
 * @example
 * renderDiff(diffJson(a, b)).join('\n')
 */
export function renderDiff(rows: readonly JsonDiffRow[], width = 80): string[] {
  return rows.map((r) => {
    if (r.kind === 'added') return `${r.path} added: ${short(r.actual, width)}`
    if (r.kind === 'removed') return `${r.path} removed (was ${short(r.recorded, width)})`
    if (typeof r.recorded === 'string' && typeof r.actual === 'string') {
      const [a, b] = aroundDifference(r.recorded, r.actual, width)
      return `${r.path} differs at character ${firstDifference(r.recorded, r.actual) + 1}: ${a} → ${b}`
    }
    return `${r.path} differs: ${short(r.recorded, width)} → ${short(r.actual, width)}`
  })
}

function firstDifference(a: string, b: string): number {
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  return i
}

/**
 * Both strings shown around their first differing character, so two long prompts that share
 * a prefix still show what changed: `"…Use the tool, then answer."` → `"…Use the tool twice."`.
 */
function aroundDifference(a: string, b: string, width: number): [string, string] {
  const at = firstDifference(a, b)
  const before = Math.max(8, Math.floor(width / 3))
  const from = Math.max(0, at - before)
  const cut = (s: string) => {
    const body = JSON.stringify(s.slice(from)).slice(1, -1)
    const head = from > 0 ? '…' : ''
    return body.length > width ? `"${head}${body.slice(0, width - 1)}…"` : `"${head}${body}"`
  }
  return [cut(a), cut(b)]
}

function short(v: unknown, width: number): string {
  const s = JSON.stringify(v) ?? String(v)
  return s.length > width ? `${s.slice(0, width - 1)}…` : s
}

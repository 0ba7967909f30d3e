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
  if (isObject(a) && isObject(b)) {
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

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * One line per row, values shortened: `messages[3].content differs: "hi" → "hello"`.
 * @example
 * renderDiff(diffJson(a, b)).join('\n')
 */
export function renderDiff(rows: readonly JsonDiffRow[], width = 80): string[] {
  return rows.map((r) => {
    if (r.kind === 'added') return `${r.path} added: ${short(r.actual, width)}`
    if (r.kind === 'removed') return `${r.path} removed (was ${short(r.recorded, width)})`
    return `${r.path} differs: ${short(r.recorded, width)} → ${short(r.actual, width)}`
  })
}

function short(v: unknown, width: number): string {
  const s = JSON.stringify(v) ?? String(v)
  return s.length > width ? `${s.slice(0, width - 1)}…` : s
}

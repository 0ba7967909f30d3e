import { isRecord, str, type JsonRecord } from '../json.js'

type Segment = string | number

/** `$.recipe.items[2].name` → `['recipe', 'items', 2, 'name']`. */
function segmentsOf(path: string): Segment[] {
  const segments: Segment[] = []
  for (const part of path.replace(/^\$\.?/, '').split('.')) {
    if (part === '') continue
    const bracket = part.indexOf('[')
    if (bracket === -1) {
      segments.push(part)
      continue
    }
    if (bracket > 0) segments.push(part.slice(0, bracket))
    for (const m of part.matchAll(/\[(\d+)\]/g)) segments.push(Number(m[1]))
  }
  return segments
}

function getAt(root: JsonRecord, segments: Segment[]): unknown {
  let node: unknown = root
  for (const s of segments) {
    if (node === null || typeof node !== 'object') return undefined
    node = (node as Record<string | number, unknown>)[s]
  }
  return node
}

function setAt(root: JsonRecord, segments: Segment[], value: unknown): void {
  let node: Record<string | number, unknown> = root
  segments.forEach((s, i) => {
    if (i === segments.length - 1) {
      node[s] = value
      return
    }
    const next = node[s]
    if (next === null || typeof next !== 'object') node[s] = typeof segments[i + 1] === 'number' ? [] : {}
    node = node[s] as Record<string | number, unknown>
  })
}

/**
 * Fold Vertex AI's streamed function-call argument pieces (`partialArgs`)
 * into an arguments object. Each piece sets the value at its `jsonPath`;
 * a `stringValue` for a path that already holds a string continues it.
 * @note A piece with no value creates an empty container (`[]` when the path
 * ends in `[]`), unless it says more will follow.
 * @example
 * const args = {}
 * applyPartialArgs(args, [{ jsonPath: '$.location', stringValue: 'San ', willContinue: true }])
 * applyPartialArgs(args, [{ jsonPath: '$.location', stringValue: 'Francisco' }])
 * args // { location: 'San Francisco' }
 */
export function applyPartialArgs(args: JsonRecord, partialArgs: unknown): void {
  if (!Array.isArray(partialArgs)) return
  for (const piece of partialArgs) {
    if (!isRecord(piece)) continue
    const path = str(piece.jsonPath) ?? ''
    const isArray = path.endsWith('[]')
    const segments = segmentsOf(isArray ? path.slice(0, -2) : path)
    if (segments.length === 0) continue
    const existing = getAt(args, segments)
    if (typeof piece.stringValue === 'string' && typeof existing === 'string') {
      setAt(args, segments, existing + piece.stringValue)
      continue
    }
    const value =
      typeof piece.stringValue === 'string'
        ? piece.stringValue
        : typeof piece.numberValue === 'number'
          ? piece.numberValue
          : typeof piece.boolValue === 'boolean'
            ? piece.boolValue
            : 'nullValue' in piece
              ? null
              : undefined
    if (value !== undefined) setAt(args, segments, value)
    else if (existing === undefined && piece.willContinue !== true) setAt(args, segments, isArray ? [] : {})
  }
}

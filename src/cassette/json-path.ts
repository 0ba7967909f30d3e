/**
 * The small JSON path dialect used in config (`bodyPaths`) and in findings:
 * `messages[0].content`, `metadata.user_id`, `messages[*].content`,
 * `headers.x-api-key`, `["odd.key"]`.
 */

/** Matches any object key or array index. */
export const ANY: unique symbol = Symbol('any')
export type PathSegment = string | number | typeof ANY

const NAME = /^[A-Za-z_$][\w$-]*$/

/**
 * Appends one key or index to a path.
 * @example
 * appendPath('response.chunks', 3) // 'response.chunks[3]'
 * appendPath('request', 'odd.key') // 'request["odd.key"]'
 */
export function appendPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`
  if (NAME.test(key)) return base ? `${base}.${key}` : key
  return `${base}[${JSON.stringify(key)}]`
}

/**
 * Parses a path into segments; `*` and `[*]` become {@link ANY}. A leading `$`
 * is allowed.
 * @example
 * parsePath('messages[*].content') // ['messages', ANY, 'content']
 */
export function parsePath(path: string): PathSegment[] {
  const out: PathSegment[] = []
  let i = path.startsWith('$') ? 1 : 0
  const fail = (): never => {
    throw new Error(`invalid JSON path ${JSON.stringify(path)} at ${i}`)
  }
  while (i < path.length) {
    const c = path[i]
    if (c === '.') {
      i++
      if (i >= path.length || path[i] === '.' || path[i] === '[') fail()
      continue
    }
    if (c === '[') {
      const close = findClose(path, i)
      if (close < 0) fail()
      out.push(bracketSegment(path.slice(i + 1, close)) ?? fail())
      i = close + 1
      continue
    }
    let j = i
    while (j < path.length && path[j] !== '.' && path[j] !== '[') j++
    const name = path.slice(i, j)
    out.push(name === '*' ? ANY : name)
    i = j
  }
  return out
}

function findClose(path: string, open: number): number {
  const q = path[open + 1]
  if (q === '"' || q === "'") {
    for (let k = open + 2; k < path.length; k++) {
      if (path[k] === '\\') k++
      else if (path[k] === q) return path[k + 1] === ']' ? k + 1 : -1
    }
    return -1
  }
  return path.indexOf(']', open)
}

function bracketSegment(inner: string): PathSegment | undefined {
  if (inner === '*') return ANY
  if (/^\d+$/.test(inner)) return Number(inner)
  if (inner.startsWith('"')) {
    try {
      return JSON.parse(inner) as string
    } catch {
      return undefined
    }
  }
  if (inner.startsWith("'")) return inner.slice(1, -1).replace(/\\(.)/g, '$1')
  return undefined
}

/**
 * Returns a copy of `value` in which every node matched by `path` is replaced
 * by `replace(node)`. Missing nodes are left alone.
 * @example
 * replaceAtPath({ a: [{ b: 1 }, { b: 2 }] }, parsePath('a[*].b'), () => 0) // { a: [{ b: 0 }, { b: 0 }] }
 */
export function replaceAtPath(value: unknown, path: readonly PathSegment[], replace: (node: unknown) => unknown): unknown {
  if (path.length === 0) return replace(value)
  const [head, ...rest] = path
  if (Array.isArray(value)) {
    if (head === ANY) return value.map((v) => replaceAtPath(v, rest, replace))
    if (typeof head === 'number' && head < value.length) {
      const copy = [...value]
      copy[head] = replaceAtPath(value[head], rest, replace)
      return copy
    }
    return value
  }
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>
    const copy: Record<string, unknown> = { ...obj }
    for (const key of Object.keys(obj)) {
      if (head === ANY || key === String(head)) copy[key] = replaceAtPath(obj[key], rest, replace)
    }
    return copy
  }
  return value
}

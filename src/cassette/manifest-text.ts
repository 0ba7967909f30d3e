/**
 * Reading `scenario.yaml` without the `yaml` package when it has the shape fluxlab writes: a mapping of plain keys to
 * one-line scalars, `[]`/`{}`, and blocks one level deep (a list of scalars, or a mapping of keys to scalars). Anything
 * else (a comment, a blank line, a nested block, a multi-line or ambiguous scalar, a repeated key) goes to `yaml`.
 * @note issue 39 (bench section 6): loading `yaml` took about 35 ms of CPU in each Playwright worker, at its first fixture
 * read. The reader gives what `yaml`'s `parse` gives (YAML 1.2, core schema) or nothing: ./manifest-text.test.ts
 * holds it to that on what fluxlab writes and on strings built to be awkward.
 */
import { yaml } from './fixture-files.js'

/**
 * The value of a manifest's text, as `yaml().parse(text)` gives it; `yaml` is loaded only for a text the reader does not take.
 * @example
 * parseManifestText('formatVersion: 1\nname: weather\n') // { formatVersion: 1, name: 'weather' }
 */
export function parseManifestText(text: string): unknown {
  return readSimpleYaml(text) ?? yaml().parse(text)
}

// @note a key is a plain scalar too: `null:` or `False:` is not the key it reads as (so CORE refuses it below).
const KEY = /^([A-Za-z][A-Za-z0-9_]*):(?: (.*))?$/
// YAML 1.2 core schema: a plain scalar matching one of these is a null, a boolean or a number (yaml's core tags).
const CORE = [
  /^(?:~|[Nn]ull|NULL)?$/,
  /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/,
  /^0o[0-7]+$/,
  /^[-+]?[0-9]+$/,
  /^0x[0-9a-fA-F]+$/,
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/,
]
/** A character the reader leaves to `yaml`: C0 and C1 controls (tab included), DEL, a byte order mark, U+2028/2029. */
const ODD = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]/
const NOT = Symbol('not simple')
type Value = string | number | [] | Record<string, never>

/** One scalar after `key: ` or `- `, or {@link NOT}. */
function scalar(s: string): Value | typeof NOT {
  if (s === '[]') return []
  if (s === '{}') return {}
  if (ODD.test(s)) return NOT
  if (s.startsWith('"')) {
    // @note JSON's escapes are a subset of YAML's double-quoted ones, with the same meanings; any other goes to `yaml`.
    if (s.length < 2 || !s.endsWith('"')) return NOT
    try {
      const v: unknown = JSON.parse(s)
      return typeof v === 'string' ? v : NOT
    } catch {
      return NOT
    }
  }
  if (s.startsWith("'")) {
    const inner = s.slice(1, -1)
    return s.length >= 2 && s.endsWith("'") && !/'(?!')/.test(inner.replaceAll("''", '')) ? inner.replaceAll("''", "'") : NOT
  }
  // A plain scalar: no indicator first, no `: ` or ` #` inside, no space at either end.
  if (/^[-?:,[\]{}#&*!|>%@`\s]/.test(s) || /:(?: |$)| #|\s$/.test(s)) return NOT
  if (/^(?:0|[1-9][0-9]{0,14})$/.test(s)) return Number(s)
  return CORE.some((re) => re.test(s)) ? NOT : s
}

const plainKey = (k: string) => !CORE.some((re) => re.test(k))

/**
 * `text` as fluxlab writes a manifest, read; `undefined` when it is not that shape (then `yaml` reads it).
 * @example
 * readSimpleYaml('models:\n  - gpt-4o\n') // { models: ['gpt-4o'] }
 */
export function readSimpleYaml(text: string): Record<string, unknown> | undefined {
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  const out: Record<string, unknown> = {}
  for (let i = 0; i < lines.length; i++) {
    const m = KEY.exec(lines[i]!)
    if (!m || !plainKey(m[1]!) || Object.hasOwn(out, m[1]!)) return undefined
    if (m[2] !== undefined) {
      const v = scalar(m[2])
      if (v === NOT) return undefined
      out[m[1]!] = v
      continue
    }
    // `key:` and its block, each line indented by two: `  - item` lines, or `  key: value` lines.
    const block: string[] = []
    while (lines[i + 1]?.startsWith('  ')) block.push(lines[++i]!.slice(2))
    if (!block.length) return undefined
    if (block[0]!.startsWith('- ')) {
      const items = block.map((l) => (l.startsWith('- ') ? scalar(l.slice(2)) : NOT))
      if (items.includes(NOT)) return undefined
      out[m[1]!] = items
      continue
    }
    const map: Record<string, unknown> = {}
    for (const l of block) {
      const k = KEY.exec(l)
      const v = k?.[2] === undefined ? NOT : scalar(k[2])
      if (!k || v === NOT || !plainKey(k[1]!) || Object.hasOwn(map, k[1]!)) return undefined
      map[k[1]!] = v
    }
    out[m[1]!] = map
  }
  return lines.length ? out : undefined
}

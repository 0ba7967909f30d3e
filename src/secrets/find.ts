/**
 * Finding secrets in a text: each rule is searched only where one of its anchors occurs. A leaf: it imports
 * nothing from the project outside src/secrets.
 */
import { escapeRegExp, SECRET_RULES, START, type SecretRule } from './rules.js'

/** A secret's position in a text: `text.slice(start, end)` is the secret. */
export interface SecretMatch {
  rule: string
  start: number
  end: number
}

export interface SecretOptions {
  /** Rule ids to skip. */
  disable?: readonly string[]
}

/**
 * A rule's search form: global, with match indices. A rule that starts with the
 * word guard `START` is searched without it and the guard is checked per match.
 * @note Measured (bench/README.md): a leading lookbehind keeps V8 from jumping to
 * the literal prefix (`xai-`, `AIza`), so every rule was tried at every character;
 * checking the guard after the match made the fixture scan several times faster.
 */
interface SearchForm {
  re: RegExp
  /** The guard taken off the front: `START`, or `(?<![A-Za-z0-9])` (issue 14: halved labelled-secret's search). */
  guarded: 'start' | 'word' | false
}
/**
 * The other leading guard of the rules: no letter or digit before (case-insensitive rules included: under `i` without
 * `u`, no non-ASCII character folds to ASCII).
 */
const WORD_START = '(?<![A-Za-z0-9])'
const globalCache = new WeakMap<RegExp, SearchForm>()
function globalOf(pattern: RegExp): SearchForm {
  let g = globalCache.get(pattern)
  if (!g) {
    const flags = new Set(pattern.flags.replace(/[gy]/g, ''))
    flags.add('g')
    flags.add('d')
    const guarded = pattern.source.startsWith(START) ? 'start' : pattern.source.startsWith(WORD_START) ? 'word' : false
    const source = guarded === 'start' ? pattern.source.slice(START.length) : guarded === 'word' ? pattern.source.slice(WORD_START.length) : pattern.source
    g = { re: new RegExp(source, [...flags].join('')), guarded }
    globalCache.set(pattern, g)
  }
  return g
}

const WORD = /[A-Za-z0-9_-]/
const ALNUM = /[A-Za-z0-9]/
/** The `START` guard at `i`: not continuing a word, unless right after a JSON escape (`\n`, `\r`, `\t`). */
function guardHolds(text: string, i: number): boolean {
  if (i === 0 || !WORD.test(text[i - 1])) return true
  return i >= 2 && text[i - 2] === '\\' && 'nrt'.includes(text[i - 1])
}

/**
 * Every match of `pattern` in `text` as `[start, end)`, using the `secret`
 * group when the pattern has one. Zero-length matches are skipped.
 * @example
 * matchSpans('a=1 a=2', /a=(?<secret>\d)/) // [[2, 3], [6, 7]]
 */
export function matchSpans(text: string, pattern: RegExp): Array<[number, number]> {
  const { re, guarded } = globalOf(pattern)
  re.lastIndex = 0
  const out: Array<[number, number]> = []
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0].length === 0 || (guarded === 'start' && !guardHolds(text, m.index)) || (guarded === 'word' && m.index > 0 && ALNUM.test(text[m.index - 1]))) {
      re.lastIndex = m.index + 1
      continue
    }
    const span = m.indices?.groups?.secret ?? m.indices?.[0]
    if (span && span[1] > span[0]) out.push([span[0], span[1]])
  }
  return out
}

/**
 * Sorts spans and merges overlapping ones into their union.
 * @example
 * mergeSpans([{ start: 4, end: 9 }, { start: 0, end: 5 }]) // [{ start: 0, end: 9 }]
 */
function mergeSpans<T extends { start: number; end: number }>(spans: readonly T[]): T[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start || b.end - a.end)
  const out: T[] = []
  for (const s of sorted) {
    const last = out[out.length - 1]
    if (last && s.start < last.end) {
      if (s.end > last.end) out[out.length - 1] = { ...last, end: s.end }
    } else out.push({ ...s })
  }
  return out
}

/**
 * Finds secret-looking values. Overlapping matches are merged and reported
 * under the rule of the one that starts first (the longer on a tie).
 * @example
 * findSecrets('key: AKIA' + 'ABCDEFGH23456789') // [{ rule: 'aws-access-key-id', start: 5, end: 25 }]
 */
export function findSecrets(text: string, opts: SecretOptions = {}): SecretMatch[] {
  const candidates = rulesIn(text)
  if (candidates.size === 0) return []
  const disabled = opts.disable?.length ? new Set(opts.disable) : undefined
  const found: SecretMatch[] = []
  for (const r of SECRET_RULES) {
    if (!candidates.has(r) || disabled?.has(r.id)) continue
    for (const [start, end] of matchSpans(text, r.pattern)) found.push({ rule: r.id, start, end })
  }
  return found.length > 1 ? mergeSpans(found) : found
}

/** One search for the anchors of some rules: their alternation, longest first, and the rules each anchor stands for. */
interface AnchorSearch {
  rules: readonly SecretRule[]
  re: RegExp
  rulesOf: Map<string, ReadonlySet<SecretRule>>
  /** The case the anchors are matched in: a rule's own (`i` or not). */
  key: (found: string) => string
}

/**
 * The anchor search of `rules`, matched as the rules are (case-insensitively under `i`). An anchor stands for its own
 * rules and those of every anchor that is a prefix of it (`sk-ant-` is also an `sk-`).
 */
function anchorSearch(rules: readonly SecretRule[], ignoreCase: boolean): AnchorSearch {
  const key = ignoreCase ? (a: string) => a.toLowerCase() : (a: string) => a
  const own = new Map<string, SecretRule[]>()
  for (const r of rules) for (const a of r.anchors) own.set(key(a), [...(own.get(key(a)) ?? []), r])
  const list = [...own.keys()].sort((a, b) => b.length - a.length || (a < b ? -1 : 1))
  const rulesOf = new Map(list.map((a) => [a, new Set(list.filter((b) => a.startsWith(b)).flatMap((b) => own.get(b)!))] as const))
  return { rules, re: new RegExp(list.map(escapeRegExp).join('|'), ignoreCase ? 'gi' : 'g'), rulesOf, key }
}

const CASED = anchorSearch(
  SECRET_RULES.filter((r) => !r.pattern.flags.includes('i')),
  false,
)
const UNCASED = anchorSearch(
  SECRET_RULES.filter((r) => r.pattern.flags.includes('i')),
  true,
)
/**
 * From this length on, the case-insensitive rules are run without looking for their anchors first: in a long text
 * their words (`key`, `access`, `auth`) occur all the time, and the search for them costs about what the rules do.
 */
const LONG_TEXT = 16 * 1024

/**
 * The rules whose anchors occur in `text`: the only ones that can match in it.
 * @note Issue 14: every rule was run over every string a request holds (18 searches per string, most of
 * them in a few words of prose); one pass for the anchors finds most texts hold none. Every start
 * position is tried, and at each the longest anchor that occurs there wins, so an anchor that is a
 * prefix of another is never hidden by it. The anchors of case-sensitive rules are searched case-sensitively,
 * which V8 does several times faster than the same search under `i` (bench/README.md).
 * @example
 * rulesIn('Bearer abc').has(SECRET_RULES.find((r) => r.id === 'bearer-token')!) // true
 */
function rulesIn(text: string): ReadonlySet<SecretRule> {
  const out = new Set<SecretRule>()
  addAnchored(text, CASED, out)
  if (text.length < LONG_TEXT) addAnchored(text, UNCASED, out)
  else for (const r of UNCASED.rules) out.add(r)
  return out
}

/** Adds to `out` the rules of `search` whose anchors occur in `text`. */
function addAnchored(text: string, { rules, re, rulesOf, key }: AnchorSearch, out: Set<SecretRule>): void {
  let flagged = 0
  re.lastIndex = 0
  for (let m = re.exec(text); m && flagged < rules.length; m = re.exec(text)) {
    for (const r of rulesOf.get(key(m[0]))!) if (!out.has(r)) out.add(r), flagged++
    re.lastIndex = m.index + 1
  }
}

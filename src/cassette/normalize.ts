/**
 * SPEC §3 `normalize`: rules that rewrite the strings of a canonical request before it is keyed (a date, a uuid, a
 * temp path, a model's date suffix that changes every run), so a replay still matches exactly. They never touch what
 * is sent, what is stored as the response, or what the agent receives: unlike a `redact.replace` rule, which rewrites
 * responses too. Built here once per configuration; applied per request in canonical.ts, only when rules are set.
 */
import { createHash } from 'node:crypto'
import { tmpdir } from 'node:os'
import { stableJson } from './stable-json.js'
import { FluxError } from '../errors.js'
import { escapeRegExp } from '../secrets/rules.js'
import type { JsonDiffRow } from './json-diff.js'

/** The built-in rules, by name. */
type NormalizeBuiltin = 'iso-dates' | 'uuids' | 'temp-paths' | 'model-dates'

/** One `normalize` rule: a built-in's name, or a pattern (a string is literal text, a RegExp is used as given) and its replacement. */
export type NormalizeRule = NormalizeBuiltin | { pattern: RegExp | string; replace: string }

/** One rule, ready to apply to a string. */
export interface CompiledRule {
  /** The built-in's name, or `custom #n`. */
  name: string
  re: RegExp
  replace: string | ((match: string, ...groups: string[]) => string)
}

/** The rules of one configuration, and their identity (stored as `normalize` in scenario.yaml). */
export interface Normalizer {
  readonly rules: readonly CompiledRule[]
  readonly config: readonly NormalizeRule[]
  /** `v1:<8 hex>`, absent when no rule is configured. */
  readonly marker?: string
  /** Every replacement is a string, so a text always normalizes the same (a function's answer may change). */
  readonly pure: boolean
}

/** Bumped when a built-in's pattern changes, so fixtures keyed under the old one say so. */
const BUILTINS_VERSION = 1

const ISO_DATE = String.raw`\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])`
const ISO_TIME = String.raw`(?:[T ](?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:[.,]\d{1,9})?)?(?:Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?)?`
const ISO = new RegExp(String.raw`(?<!\d)${ISO_DATE}${ISO_TIME}(?![\d:])`, 'g')
const UUID = /(?<![0-9A-Fa-f-])[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[1-8][0-9A-Fa-f]{3}-[89ABab][0-9A-Fa-f]{3}-[0-9A-Fa-f]{12}(?![0-9A-Fa-f-])/g
/** `gpt-4o-2024-08-06`, `claude-3-5-sonnet-20241022`: a name that starts with a letter, then `-` and a date. */
const MODEL_DATE = /(?<![\w.-])([A-Za-z][\w.]*(?:-[\w.:]+)*?)-(?:20\d\d-[01]\d-[0-3]\d|20\d\d[01]\d[0-3]\d)(?![\w])/g

/**
 * A temp directory and the one segment after it (the random part `mkdtemp` draws): `/tmp/vitest-x1y2/a.txt` →
 * `<tmp>/a.txt`. A segment stops at whitespace, quotes and punctuation, so the rest of a line is never eaten.
 */
function tempPaths(): RegExp {
  const roots = [...new Set([tmpdir(), '/tmp', '/private/tmp'])].map(escapeRegExp)
  const folders = String.raw`(?:/private)?/var/folders/[\w+-]+/[\w+-]+/[TC]`
  return new RegExp(String.raw`(?<![\w.-])(?:${folders}|${roots.join('|')})(?:[\\/][\w.@%+=~-]+)?(?![\w.@%+=~-])`, 'g')
}

function builtin(name: NormalizeBuiltin): CompiledRule {
  switch (name) {
    case 'iso-dates':
      return { name, re: ISO, replace: (m) => (m.length > 10 ? '<datetime>' : '<date>') }
    case 'uuids':
      return { name, re: UUID, replace: '<uuid>' }
    case 'temp-paths':
      return { name, re: tempPaths(), replace: '<tmp>' }
    case 'model-dates':
      return { name, re: MODEL_DATE, replace: '$1-<date>' }
  }
}

const BUILTINS: readonly NormalizeBuiltin[] = ['iso-dates', 'uuids', 'temp-paths', 'model-dates']
const normalizers = new Map<string, Normalizer>()

/**
 * The normalizer of a `normalize` option; an unknown built-in name is an error.
 * @example
 * createNormalizer(['iso-dates', { pattern: /run-\d+/g, replace: 'run-<n>' }]).marker // 'v1:…'
 */
export function createNormalizer(config: readonly NormalizeRule[] = []): Normalizer {
  const identity = config.map((r) =>
    typeof r === 'string'
      ? r
      : typeof r.pattern === 'string'
        ? { text: r.pattern, replace: r.replace }
        : { source: r.pattern.source, flags: r.pattern.flags, replace: r.replace },
  )
  // @note a replacement function is not in `identity` (JSON has no functions): such a normalizer is made anew, never shared.
  const pure = config.every((r) => typeof r === 'string' || typeof r.replace === 'string')
  const key = JSON.stringify(identity)
  const known = pure ? normalizers.get(key) : undefined
  if (known) return known
  const rules = config.map((r, i): CompiledRule => {
    if (typeof r === 'string') {
      if (!BUILTINS.includes(r))
        throw new FluxError('FLUX_BAD_CONFIG', {
          failed: 'read the fluxlab option `normalize`',
          reason: `${JSON.stringify(r)} is not a built-in rule`,
          fix: `Use one of ${BUILTINS.map((b) => `'${b}'`).join(', ')}, or a rule of your own: { pattern: /…/g, replace: '<x>' }.`,
        })
      return builtin(r)
    }
    const re = typeof r.pattern === 'string' ? new RegExp(escapeRegExp(r.pattern), 'g') : r.pattern
    return { name: `custom #${i + 1}`, re, replace: r.replace }
  })
  const marker = rules.length
    ? `v1:${createHash('sha256')
        .update(stableJson({ builtins: BUILTINS_VERSION, rules: identity }))
        .digest('hex')
        .slice(0, 8)}`
    : undefined
  const made: Normalizer = Object.freeze({ rules, config: [...config], pure, ...(marker ? { marker } : {}) })
  if (!pure) return made
  if (normalizers.size >= 64) normalizers.delete(normalizers.keys().next().value!)
  normalizers.set(key, made)
  return made
}

/**
 * `s` with one rule applied.
 * @example
 * applyRule('on 2026-12-03', builtin('iso-dates')) // 'on <date>'
 */
function applyRule(s: string, rule: CompiledRule): string {
  return typeof rule.replace === 'string' ? s.replace(rule.re, rule.replace) : s.replace(rule.re, rule.replace)
}

/**
 * Every string of a canonical value (body, or URL path) with the rules applied, in order; object keys stay.
 * @example
 * normalizeValue({ content: 'id 7f1c…' }, normalizer.rules) // { content: 'id <uuid>' }
 */
export function normalizeValue(value: unknown, rules: readonly CompiledRule[]): unknown {
  if (typeof value === 'string') return rules.reduce(applyRule, value)
  if (Array.isArray(value)) return value.map((v) => normalizeValue(v, rules))
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalizeValue(v, rules)]))
  return value
}

/**
 * The fewest built-in rules that make a drift's changed strings equal (one alone if one does), or none: a drift with an
 * added or removed field, or a value no built-in explains, is not theirs to absorb.
 * @example
 * absorbingRules([{ path: 'messages[0].content', kind: 'changed', recorded: 'on 2026-12-02', actual: 'on 2026-12-03' }]) // ['iso-dates']
 */
function absorbingRules(diff: readonly JsonDiffRow[] | undefined): NormalizeBuiltin[] {
  const rows = diff ?? []
  if (rows.length === 0 || !rows.every((r) => r.kind === 'changed' && typeof r.recorded === 'string' && typeof r.actual === 'string')) return []
  const absorbs = (names: readonly NormalizeBuiltin[]) => {
    const rules = names.map(builtin)
    return rows.every((r) => normalizeValue(r.recorded, rules) === normalizeValue(r.actual, rules))
  }
  const one = BUILTINS.find((n) => absorbs([n]))
  if (one) return [one]
  if (!absorbs(BUILTINS)) return []
  let needed = [...BUILTINS]
  for (const n of BUILTINS) if (absorbs(needed.filter((x) => x !== n))) needed = needed.filter((x) => x !== n)
  return needed
}

/**
 * The words a drift message ends with when built-in rules would absorb it, or nothing.
 * @example
 * absorbHint(diff) // "; the normalize rule 'iso-dates' would absorb this difference: fluxlab({ normalize: ['iso-dates'] })"
 */
export function absorbHint(diff: readonly JsonDiffRow[] | undefined): string {
  const names = absorbingRules(diff)
  if (names.length === 0) return ''
  const list = names.map((n) => `'${n}'`).join(', ')
  return `; the normalize rule${names.length > 1 ? 's' : ''} ${list} would absorb this difference: fluxlab({ normalize: [${list}] })`
}

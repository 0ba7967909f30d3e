/**
 * The secret scan of a JSON-like value: every string and object key, each finding with its JSON path. A finding
 * says where a secret is and which rule matched, never what the secret is.
 */
import { findSecrets } from '../secrets/find.js'
import { redactText } from '../secrets/redact.js'
import { SECRET_RULES } from '../secrets/rules.js'
import { appendPath } from './json-path.js'
import { lastAtOrBefore } from './stream-view.js'

export interface Finding {
  /** Id of the rule that matched, e.g. `openai-key`. */
  rule: string
  /** JSON path of the value, e.g. `response.chunks[2].text`. Keys that look secret appear redacted. */
  path?: string
  /** 1-based line in the scanned text. */
  line?: number
  file?: string
}

/** Scan options: rule ids the user disabled in the redactor (`redact: { disable }`) are not looked for. */
export interface ScanOptions {
  disable?: readonly string[]
}

/**
 * Finds secrets in every string and object key of a JSON-like value.
 * @example
 * scanValue({ messages: [{ content: 'my key is ' + key }] }, 'request.body')
 * // [{ rule: 'openai-key', path: 'request.body.messages[0].content' }]
 */
export function scanValue(value: unknown, basePath = ''): Finding[] {
  return dedupe(walk(value, basePath, {}, false))
}

/** An object key to scan (its path is the path of its value). */
class Key {
  constructor(readonly text: string) {}
}

/** Control characters other than line breaks: a JSON text holds them escaped (`\t`, `\b`, `\f`, `\u0001`), which the rules read differently. */
const OTHER_CONTROL = /[\u0000-\u0009\u000b\u000c\u000e-\u001f]/
const BREAK = /[\n\r]/g

/**
 * The rules that start with a word guard other than `START` of ../secrets/rules.ts (`(?<![A-Za-z0-9])`), searched sticky
 * at one position. A line break before a match satisfies that guard in a string, but its raw text `\n` ends in `n`.
 */
const WORD_GUARD = '(?<![A-Za-z0-9])'
const GUARDED_AT_START = SECRET_RULES.filter((r) => r.pattern.source.startsWith(WORD_GUARD)).map((r) => ({
  id: r.id,
  re: new RegExp(r.pattern.source, `${r.pattern.flags.replace(/[gyd]/g, '')}yd`),
}))

/**
 * Findings of a string the raw text also holds, with `"`, `\` and line breaks escaped. Every rule reads `"` and `\`
 * the same escaped or not (no rule's classes hold them but the label gap `[\\"']*` and the PEM body, which hold both
 * forms; a guard or lookahead sees `"` or `\` in both). Rules guarded by `START` accept `\n` and `\r` before a match,
 * and no rule's classes hold a line break but the PEM body (whose raw form matches as well). So the only match the raw
 * search can miss is one of {@link GUARDED_AT_START} right after a line break: those are looked for there.
 */
function afterBreaks(text: string, opts: ScanOptions): string[] {
  const disabled = new Set(opts.disable ?? [])
  const rules: string[] = []
  for (const m of text.matchAll(BREAK))
    for (const r of GUARDED_AT_START) {
      if (disabled.has(r.id)) continue
      r.re.lastIndex = m.index + 1
      const hit = r.re.exec(text)
      const span = hit?.indices?.groups?.secret ?? hit?.indices?.[0]
      if (span && span[1] > span[0]) rules.push(r.id)
    }
  return rules
}

/**
 * The findings in every string and object key of `value`, in document order.
 * @note Iterative, so a value nested 100,000 deep (JSON.parse accepts it) does not overflow the stack; and all strings
 * are searched in one `findSecrets` call, joined by NUL (which no rule matches across), because the per-call cost of
 * one search per string was most of a fixture's load time. A path is built only for a string that holds a finding.
 * With `escapedOnly`, strings the caller's raw-text search already saw as they are (no character JSON escapes) are
 * skipped: a secret in them would have been a text match; so are strings whose only escapes are `"`, `\\` and line
 * breaks, but for the matches {@link afterBreaks} looks for (issue 14: every SSE chunk is such a string, and searching
 * them all again was the largest part of a fixture's load).
 */
export function walk(value: unknown, basePath: string, opts: ScanOptions, escapedOnly: boolean): Finding[] {
  // @note issue 14: building every node's path took most of a fixture line's scan; it is built only when a search finds something.
  if (escapedOnly && !escapedHit(value, opts)) return []
  const parents: number[] = [-1]
  const segments: Array<string | number> = ['']
  const texts: string[] = []
  const owners: number[] = []
  /** Strings (`escapedOnly`) whose only escaped characters are `"`, `\` and line breaks. */
  const broken: Array<[string, number]> = []
  const stack: Array<[unknown, number]> = [[value, 0]]
  while (stack.length) {
    const [v, node] = stack.pop()!
    if (typeof v === 'string' || v instanceof Key) {
      const text = typeof v === 'string' ? v : v.text
      if (!escapedOnly || OTHER_CONTROL.test(text)) {
        texts.push(text)
        owners.push(node)
      } else if (text.includes('\n') || text.includes('\r')) broken.push([text, node])
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        segments.push(i)
        stack.push([v[i], parents.push(node) - 1])
      }
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v)
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, child] = entries[i]
        const n = parents.push(node) - 1
        segments.push(k)
        stack.push([child, n], [new Key(k), n])
      }
    }
  }
  const pathOf = (node: number): string => {
    const chain: Array<string | number> = []
    for (let n = node; n > 0; n = parents[n]) chain.push(segments[n])
    return chain.reduceRight<string>((p, seg) => appendPath(p, typeof seg === 'string' ? redactText(seg) : seg), basePath)
  }
  const found: Finding[] = []
  for (const [text, node] of broken) for (const rule of afterBreaks(text, opts)) found.push(withPath(rule, pathOf(node)))
  if (texts.length === 0) return found
  const starts: number[] = []
  let offset = 0
  for (const t of texts) {
    starts.push(offset)
    offset += t.length + 1
  }
  return [...findSecrets(texts.join('\u0000'), opts).map((m) => withPath(m.rule, pathOf(owners[lastAtOrBefore(starts, m.start)]))), ...found]
}

/** Whether {@link walk} with `escapedOnly` would find anything in `value` (the same strings searched, no paths kept). */
function escapedHit(value: unknown, opts: ScanOptions): boolean {
  const texts: string[] = []
  const check = (text: string): boolean => {
    if (OTHER_CONTROL.test(text)) texts.push(text)
    else if ((text.includes('\n') || text.includes('\r')) && afterBreaks(text, opts).length) return true
    return false
  }
  const stack: unknown[] = [value]
  while (stack.length) {
    const v = stack.pop()
    if (typeof v === 'string') {
      if (check(v)) return true
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i])
    } else if (v !== null && typeof v === 'object') {
      for (const k of Object.keys(v)) {
        if (check(k)) return true
        stack.push((v as Record<string, unknown>)[k])
      }
    }
  }
  return texts.length > 0 && findSecrets(texts.join('\u0000'), opts).length > 0
}

const withPath = (rule: string, path: string): Finding => (path ? { rule, path } : { rule })

/** The findings without repeats (the same rule, path, line and file). */
export function dedupe(findings: readonly Finding[]): Finding[] {
  const seen = new Set<string>()
  return findings.filter((f) => {
    const k = JSON.stringify([f.rule, f.path, f.line, f.file])
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}

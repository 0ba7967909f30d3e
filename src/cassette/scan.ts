/**
 * The secret scan that runs on every fixture write and read. A finding says
 * where a secret is (file, line, JSON path) and which rule matched, never
 * what the secret is.
 */
import { findSecrets } from '../secrets/find.js'
import { placeholderFor, redactMessage, redactText } from '../secrets/redact.js'
import { SECRET_RULES } from '../secrets/rules.js'
import { appendPath } from './json-path.js'
import { decodedSpans, lastAtOrBefore } from './stream-view.js'

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
 * The rules that start with a word guard other than `START` of ../secrets.ts (`(?<![A-Za-z0-9])`), searched sticky
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
function walk(value: unknown, basePath: string, opts: ScanOptions, escapedOnly: boolean): Finding[] {
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

/**
 * Scans a file's text. Findings carry a 1-based `line` (of the secret's first
 * character). When the whole text is JSON, or a line is JSON (JSONL, or an
 * SSE `data:` line), findings also carry the JSON path inside it. Rules in
 * `opts.disable` are not looked for.
 * @example
 * scanText('{"a":1}\n{"text":"' + key + '"}\n', 'model.jsonl')
 * // [{ rule: 'anthropic-key', file: 'model.jsonl', line: 2, path: 'text' }]
 */
export function scanText(text: string, file?: string, opts: ScanOptions = {}): Finding[] {
  // A one-line document goes through the per-line branch, which knows its line.
  const whole = text.trim().includes('\n') ? parseJson(text) : { ok: false as const }
  if (whole.ok) {
    const matches = textMatches(text, opts)
    return located(pair(matches.all, walk(whole.value, '', opts, false)), file)
  }
  return scanLines(text, file, opts, (lineText) => parseJson(lineText.replace(/^data:[ \t]?/, '')))
}

/**
 * {@link scanText} for a JSONL file its reader already parsed: `values[i]` is the value of line `i + 1`,
 * `undefined` for a line that is blank, not JSON, or not to be walked. Each line is parsed once, not twice.
 * @example
 * scanJsonl(text, 'model.jsonl', lines.map((l) => JSON.parse(l)), { disable: ['jwt'] })
 */
export function scanJsonl(text: string, file: string, values: ReadonlyArray<unknown>, opts: ScanOptions = {}): Finding[] {
  return scanLines(text, file, opts, (_, i) => (values[i] === undefined ? { ok: false } : { ok: true, value: values[i] }))
}

type Parsed = { ok: true; value: unknown } | { ok: false }

function scanLines(text: string, file: string | undefined, opts: ScanOptions, valueOf: (lineText: string, index: number) => Parsed): Finding[] {
  const { lineStarts, byLine } = textMatches(text, opts)
  const found: Finding[] = []
  for (let i = 0; i < lineStarts.length; i++) {
    const line = i + 1
    const lineText = text.slice(lineStarts[i], i + 1 < lineStarts.length ? lineStarts[i + 1] - 1 : text.length)
    const own = byLine.get(line) ?? []
    const parsed = valueOf(lineText, i)
    if (!parsed.ok) {
      found.push(...own)
      continue
    }
    // @note `\u` and `\/` escapes can spell any character, so such a line is searched string by string in full.
    const escapedOnly = own.length === 0 && !SPELLS_ANY.test(lineText)
    // @note issue 14: with `escapedOnly`, the walk searches only strings holding a control character (escaped in the
    // raw text as `\t`, `\b` or `\f`) and looks after line breaks (`\n`, `\r`) only for a rule that starts with a
    // letter; a line whose raw text has neither is one the walk finds nothing in, so it is not walked.
    if (!escapedOnly || mayHideEscaped(lineText)) found.push(...pair(own, walk(parsed.value, '', opts, escapedOnly).map((f) => ({ ...f, line }))))
    else found.push(...own)
    found.push(...storedStream(parsed.value, opts).map((f) => ({ ...f, line })))
  }
  return located(found, file)
}

/**
 * `\u` or `\/` in raw JSON text (whatever precedes the backslash).
 * @note issue 14: one search, not two `includes` (those were 0.3× `JSON.parse` of a fixture's read).
 */
const SPELLS_ANY = /\\[u/]/

/**
 * An escape in raw JSON text: `\t`, `\b`, `\f` (a control character {@link walk} searches decoded), or a line break
 * followed by a letter that can start one of {@link GUARDED_AT_START} (`(aws_)secret…`, `Bearer`, `api_key`, `access_token`,
 * `auth…`, `refresh…`, `client…`, `password`, in either case; a JSON escape itself is lowercase). An even run of backslashes before it is an escaped backslash, not an escape.
 */
const ESCAPE_HINT = /\\(?:[tbf]|[nr][asbrcpASBRCP])/g

/** Whether the raw text of a JSON line holds an escape after which {@link walk} with `escapedOnly` could find something. */
function mayHideEscaped(lineText: string): boolean {
  ESCAPE_HINT.lastIndex = 0
  for (let m = ESCAPE_HINT.exec(lineText); m; m = ESCAPE_HINT.exec(lineText)) {
    let run = 1
    while (m.index - run >= 0 && lineText.charCodeAt(m.index - run) === 0x5c) run++
    if (run % 2 === 1) return true
    ESCAPE_HINT.lastIndex = m.index + 1
  }
  return false
}

/** The raw-text matches of `text`, each with its 1-based line, also grouped by line. */
function textMatches(text: string, opts: ScanOptions): { lineStarts: number[]; all: Finding[]; byLine: Map<number, Finding[]> } {
  const lineStarts = [0]
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1)
  const all: Finding[] = findSecrets(text, opts).map((m) => ({ rule: m.rule, line: lastAtOrBefore(lineStarts, m.start) + 1 }))
  const byLine = new Map<number, Finding[]>()
  for (const m of all) {
    const list = byLine.get(m.line!)
    if (list) list.push(m)
    else byLine.set(m.line!, [m])
  }
  return { lineStarts, all, byLine }
}

const located = (found: Finding[], file: string | undefined): Finding[] => dedupe(file === undefined ? found : found.map((f) => ({ file, ...f })))

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

function parseJson(text: string): Parsed {
  const t = text.trim()
  if (!(t.startsWith('{') || t.startsWith('['))) return { ok: false }
  try {
    return { ok: true, value: JSON.parse(t) }
  } catch {
    return { ok: false }
  }
}

/**
 * The recorded stream of a cell line (a fixture cell, or a journal entry's `cell`), searched as a
 * whole: a key split across SSE events is in no single string of the line.
 */
function storedStream(value: unknown, opts: ScanOptions): Finding[] {
  const v = value as { response?: { chunks?: unknown }; cell?: { response?: { chunks?: unknown } } } | null
  const [chunks, base] = Array.isArray(v?.response?.chunks) ? [v.response.chunks, 'response.chunks'] : Array.isArray(v?.cell?.response?.chunks) ? [v.cell.response.chunks, 'cell.response.chunks'] : [undefined, '']
  if (!chunks) return []
  const b64 = chunks.some((c: { b64?: unknown } | null) => typeof c?.b64 === 'string')
  if (!b64 && chunks.length < 2) return []
  const texts = b64 ? decodedChunks(chunks) : chunks.map((c: { text?: unknown } | null) => (typeof c?.text === 'string' ? c.text : ''))
  const pathOf = (i: number) => `${base}[${i}].${typeof chunks[i]?.b64 === 'string' ? 'b64' : 'text'}`
  if (!b64) return streamFindings(texts, opts, pathOf)
  // @note issue 14: a base64 chunk's text shows in no raw line, so the raw-text rules are run on the decoded body too.
  return [...textFindings(texts, opts, pathOf), ...streamFindings(texts, opts, pathOf)]
}

/**
 * A stored body's chunks as text, base64 ones decoded, as one UTF-8 decode of the joined bytes gives it: a character
 * split across chunks counts in the chunk where it ends. A chunk that is neither counts as empty.
 */
function decodedChunks(chunks: readonly unknown[]): string[] {
  const decoder = new TextDecoder('utf-8')
  const out = chunks.map((c) => {
    const { text, b64 } = (c ?? {}) as { text?: unknown; b64?: unknown }
    const bytes = typeof b64 === 'string' ? Buffer.from(b64, 'base64') : typeof text === 'string' ? Buffer.from(text) : Buffer.alloc(0)
    return decoder.decode(bytes, { stream: true })
  })
  out[out.length - 1] += decoder.decode()
  return out
}

/** The raw-text rules' findings in a body's chunks joined, at the chunk where each starts. */
function textFindings(chunks: readonly string[], opts: ScanOptions, pathOf: (index: number) => string): Finding[] {
  const ends: number[] = []
  let offset = 0
  for (const c of chunks) ends.push((offset += c.length))
  return findSecrets(chunks.join(''), opts).map((m) => ({ rule: m.rule, path: pathOf(ends.findIndex((end) => m.start < end)) }))
}

/** Findings of the decoded view of `chunks` (JSON strings decoded, deltas joined), at the chunk where each starts. */
function streamFindings(chunks: readonly string[], opts: ScanOptions, pathOf: (index: number) => string): Finding[] {
  const ends: number[] = []
  let offset = 0
  for (const c of chunks) ends.push((offset += c.length))
  const { rules } = decodedSpans(chunks.join(''), (text) => findSecrets(text, opts), placeholderFor)
  return rules.map(({ rule, at }) => ({ rule: rule ?? 'secret', path: pathOf(ends.findIndex((end) => at < end)) }))
}

/**
 * Finds secrets in a stream's chunks as received, including one split across
 * consecutive chunks or across SSE events; the finding points at the chunk where the secret starts.
 * @example
 * scanChunks(['data: {"text":"sk-ant-api03-AAAA', 'BBBB…"}\n\n'], 'response.chunks')
 * // [{ rule: 'anthropic-key', path: 'response.chunks[0]' }]
 */
export function scanChunks(chunks: readonly string[], basePath: string | ((index: number) => string) = 'chunks'): Finding[] {
  const ends: number[] = []
  let offset = 0
  for (const c of chunks) ends.push((offset += c.length))
  const pathOf = typeof basePath === 'function' ? basePath : (i: number) => appendPath(basePath, i)
  return dedupe([
    ...findSecrets(chunks.join('')).map((m) => {
      const index = ends.findIndex((end) => m.start < end)
      return { rule: m.rule, path: pathOf(index) }
    }),
    ...streamFindings(chunks, {}, pathOf),
  ])
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

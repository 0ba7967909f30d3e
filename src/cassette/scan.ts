/**
 * The secret scan that runs on every fixture write and read: a file's text, line by line, with the JSON path of
 * each finding (./scan-value.ts) and the recorded streams searched whole (./scan-stream.ts). A finding says
 * where a secret is (file, line, JSON path) and which rule matched, never what the secret is.
 */
import { findSecrets } from '../secrets/find.js'
import { redactMessage } from '../secrets/redact.js'
import { storedStream } from './scan-stream.js'
import { dedupe, walk, type Finding, type ScanOptions } from './scan-value.js'
import { lastAtOrBefore } from './stream-view.js'

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

function scanLines(text: string, file: string | undefined, opts: ScanOptions, parsedAt: (lineText: string, index: number) => Parsed): Finding[] {
  const { lineStarts, byLine } = textMatches(text, opts)
  const found: Finding[] = []
  for (let i = 0; i < lineStarts.length; i++) {
    const line = i + 1
    const lineText = text.slice(lineStarts[i], i + 1 < lineStarts.length ? lineStarts[i + 1] - 1 : text.length)
    const own = byLine.get(line) ?? []
    const parsed = parsedAt(lineText, i)
    if (!parsed.ok) {
      found.push(...own)
      continue
    }
    // @note `\u` and `\/` escapes can spell any character, so such a line is searched string by string in full.
    const escapedOnly = own.length === 0 && !SPELLS_ANY.test(lineText)
    // @note issue 14: with `escapedOnly`, the walk searches only strings holding a control character (escaped in the
    // raw text as `\t`, `\b` or `\f`) and looks after line breaks (`\n`, `\r`) only for a rule that starts with a
    // letter; a line whose raw text has neither is one the walk finds nothing in, so it is not walked.
    if (!escapedOnly || mayHideEscaped(lineText))
      found.push(
        ...pair(
          own,
          walk(parsed.value, '', opts, escapedOnly).map((f) => ({ ...f, line })),
        ),
      )
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
 * An escape in raw JSON text: `\t`, `\b`, `\f` (a control character `walk` (./scan-value.ts) searches decoded), or a line break
 * followed by a letter that can start one of `GUARDED_AT_START` (./scan-value.ts) (`(aws_)secret…`, `Bearer`, `api_key`, `access_token`,
 * `auth…`, `refresh…`, `client…`, `password`, in either case; a JSON escape itself is lowercase). An even run of
 * backslashes before it is an escaped backslash, not an escape.
 */
const ESCAPE_HINT = /\\(?:[tbf]|[nr][asbrcpASBRCP])/g

/** Whether the raw text of a JSON line holds an escape after which `walk` with `escapedOnly` could find something. */
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
 * One line for an error message: where, and which rule. Never the value.
 * @example
 * describeFinding({ rule: 'openai-key', file: 'model.jsonl', line: 3, path: 'response.chunks[2].text' })
 * // 'model.jsonl:3 response.chunks[2].text (openai-key)'
 */
export function describeFinding(f: Finding): string {
  const where = f.file !== undefined ? `${f.file}${f.line !== undefined ? `:${f.line}` : ''}` : f.line !== undefined ? `line ${f.line}` : ''
  return redactMessage([where, f.path, `(${f.rule})`].filter(Boolean).join(' '))
}

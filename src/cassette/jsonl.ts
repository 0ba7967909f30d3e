/**
 * The one JSONL store. Every `*.jsonl` fluxlab reads (model.jsonl, tools.jsonl, judge.jsonl,
 * journal.jsonl, the jest reporter's facts file) goes through {@link readJsonl}: 1-based line
 * numbers, each line parsed once and checked against a schema, the one secret scan (honouring the
 * redactor's `disable`), and problems thrown as errors that carry where and why as fields (./fixture-error.ts).
 * The bytes come from the fixture store (src/store); this file only parses and checks them.
 */
import { isUtf8 } from 'node:buffer'
import { basename, relative } from 'node:path'
import { redactMessage } from '../secrets/redact.js'
import { fixtureStore } from '../store/current.js'
import { describeIssue, fixtureError, refuseSecrets, type FixtureProblem, type Issue } from './fixture-error.js'
import { invalidUtf8Lines, lineBlocks } from './line-blocks.js'
import { scanJsonl } from './scan.js'
import type { Finding, ScanOptions } from './scan-value.js'

/** Deepest nesting a line may have: far above any recorded request or response, far below what overflows the stack. */
const MAX_DEPTH = 1000
/**
 * The largest JSONL file fluxlab reads (256 MiB): a bigger one is refused before it is read, with its size,
 * instead of running the process out of memory or past V8's longest string.
 */
const MAX_FILE_BYTES = 256 * 1024 * 1024

/** A line schema: a zod schema, or anything with the same `safeParse`. */
interface LineSchema {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: ReadonlyArray<Issue> } }
}

interface ReadJsonlOptions {
  /** What every non-blank line must be. */
  schema: LineSchema
  /**
   * A fast check that accepts exactly what `schema` accepts (cell-check.ts `isModelCell`); `schema` then runs only on a
   * line it refuses, for the message (issue 14: zod on every line was an eighth of a fixture's first read).
   */
  accepts?: (value: unknown) => boolean
  /** What a bad line's message tells the user to do (a function: built only when a line is bad). */
  fix: string | (() => string)
  /** In messages: `Failed to read <noun> <file>:<line>` (default `fixture`; `''` for none). */
  noun?: string
  /**
   * The secret scan of the whole text, with the redactor's disabled rules and what its message tells
   * the user to do; `false` for a file fluxlab writes only for itself (the facts file).
   */
  scan: (ScanOptions & { fix: string }) | false
  /** A missing file is an error with this fix; without it, a missing file has no lines. */
  missing?: string
  /** An append-only file: text after the last newline is a line cut by a crash, reported as `tornTail` and never parsed. */
  tornTail?: boolean
  /** Return bad lines in `problems` instead of throwing at the first one. */
  collect?: boolean
  /** The file's content passed every check before (./verified.ts): only parse it. */
  trusted?: boolean
}

interface JsonlLine<T> {
  /** 1-based. */
  line: number
  value: T
}

interface JsonlFile<T> {
  lines: Array<JsonlLine<T>>
  /** Bad lines (only with `collect`; otherwise the first one is thrown). */
  problems: FixtureProblem[]
  /** The text after the last newline was not blank (only with `tornTail`). */
  tornTail: boolean
  /** The lines were only parsed, since the content passed every check before (`trust`). */
  trusted?: true
}

/**
 * Read a JSONL file from the fixture store: blank lines skipped, every other line parsed once and checked against the
 * schema, the whole text secret-scanned first (a finding throws FLUX_CREDENTIAL_FOUND naming file:line and JSON
 * path), then the first bad line thrown as FLUX_FIXTURE_INVALID carrying its {@link FixtureProblem}.
 * `T` is what the schema guarantees; the values are returned as parsed.
 * @example
 * const { lines } = readJsonl<ModelCell>(join(dir, 'model.jsonl'), { schema: modelCellSchema, fix, scan: { fix: secretFix }, missing: restoreFix })
 */
export function readJsonl<T>(file: string, opts: ReadJsonlOptions): JsonlFile<T> {
  return parseJsonl<T>(fixtureStore().readFile(file), file, opts)
}

/**
 * {@link readJsonl} of bytes a store handed over (`undefined`: the file is missing); `file` names it in messages.
 * @example
 * const { lines } = parseJsonl<ModelCell>(read.files[1], join(dir, 'model.jsonl'), { schema: modelCellSchema, fix, scan })
 */
export function parseJsonl<T>(data: Uint8Array | undefined, file: string, opts: ReadJsonlOptions): JsonlFile<T> {
  const noun = opts.noun ?? 'fixture'
  if (data === undefined) {
    if (opts.missing === undefined) return { lines: [], problems: [], tornTail: false, ...(opts.trusted ? { trusted: true as const } : {}) }
    throw fixtureError('FLUX_FIXTURE_INVALID', { file, reason: 'the file is missing', fix: opts.missing }, noun)
  }
  const size = data.length
  const fix = () => (typeof opts.fix === 'string' ? opts.fix : opts.fix())
  if (size > MAX_FILE_BYTES) {
    const reason =
      `the file is ${size} bytes, more than the ${MAX_FILE_BYTES} fluxlab reads ` + '(a body over the cap is stored cut, so a recording is never this big)'
    throw fixtureError('FLUX_FIXTURE_INVALID', { file, reason, fix: fix() }, noun)
  }
  const all = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  if (opts.trusted) return readTrusted<T>(all, opts.tornTail === true) ?? parseJsonl<T>(data, file, { ...opts, trusted: false })
  const lines: Array<JsonlLine<T>> = []
  const problems: FixtureProblem[] = []
  const findings: Finding[] = []
  const bad = (line: number, reason: string, field?: string) =>
    problems.push({ file, line, ...(field ? { field } : {}), reason: redactMessage(reason), fix: fix() })
  let tail = ''
  // @note issue 14: parsed in blocks of whole lines, so a big file is never one string (and its lines and its values
  // all at once). A block ends after a '\n', which no multi-byte UTF-8 sequence holds, so each block is checked for
  // UTF-8 and secret-scanned on its own.
  for (const block of lineBlocks(all)) {
    const blockText = block.bytes.toString('utf8')
    const texts = blockText.split('\n')
    // every block but the last ends with '\n': its last element is empty. The last holds what follows the last '\n'.
    const rest = texts.pop()!
    if (block.last && opts.tornTail) tail = rest
    else if (block.last && rest !== '') texts.push(rest)
    // @note issue 13: a byte that is not UTF-8 would be read as U+FFFD and served as other bytes; the lines holding one are bad.
    const notUtf8 = isUtf8(block.bytes) ? undefined : invalidUtf8Lines(block.bytes)
    const values: unknown[] = new Array(texts.length)
    for (let i = 0; i < texts.length; i++) {
      const line = block.firstLine + i
      const lineText = texts[i]
      if (notUtf8?.has(i + 1)) {
        bad(line, 'not valid UTF-8 (the line holds a byte sequence no UTF-8 text has)')
        continue
      }
      if (lineText.trim() === '') continue
      let value: unknown
      try {
        value = JSON.parse(lineText)
      } catch (e) {
        bad(line, `not valid JSON (${(e as Error).message})`)
        continue
      }
      if (tooDeep(value)) {
        bad(line, `its JSON nests deeper than ${MAX_DEPTH} levels, more than fluxlab reads`)
        continue
      }
      values[i] = value
      if (opts.accepts?.(value)) {
        lines.push({ line, value: value as T })
        continue
      }
      const checked = opts.schema.safeParse(value)
      if (checked.success) lines.push({ line, value: value as T })
      else {
        const { reason, field } = describeIssue(checked.error.issues[0], value)
        bad(line, reason, field)
      }
    }
    if (opts.scan)
      for (const f of scanJsonl(blockText, basename(file), values, opts.scan))
        findings.push(f.line === undefined ? f : { ...f, line: f.line + block.firstLine - 1 })
  }
  if (opts.scan)
    refuseSecrets(findings, {
      failed: `read ${noun ? `${noun} ` : ''}${rel(file)}`,
      fix: opts.scan.fix,
    })
  if (problems.length && !opts.collect) throw fixtureError('FLUX_FIXTURE_INVALID', problems[0], noun)
  return { lines, problems, tornTail: tail.trim() !== '' }
}

/** A trusted read: lines split and parsed, nothing else; `undefined` when a line does not parse (checked in full then). */
function readTrusted<T>(all: Buffer, tornTail: boolean): JsonlFile<T> | undefined {
  const lines: Array<JsonlLine<T>> = []
  let tail = ''
  for (const block of lineBlocks(all)) {
    const texts = block.bytes.toString('utf8').split('\n')
    const rest = texts.pop()!
    if (block.last && tornTail) tail = rest
    else if (block.last && rest !== '') texts.push(rest)
    for (let i = 0; i < texts.length; i++) {
      if (texts[i].trim() === '') continue
      try {
        lines.push({ line: block.firstLine + i, value: JSON.parse(texts[i]) as T })
      } catch {
        return undefined
      }
    }
  }
  return { lines, problems: [], tornTail: tail.trim() !== '', trusted: true }
}

/**
 * Whether `value` nests deeper than {@link MAX_DEPTH} (iteratively: the check itself must not overflow).
 * @example
 * tooDeep(JSON.parse('['.repeat(5000) + ']'.repeat(5000))) // true
 */
export function tooDeep(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false
  // two parallel stacks, no pair allocated per node (issue 14: this runs on every line of a fixture)
  const stack: object[] = [value]
  const depths: number[] = [1]
  while (stack.length) {
    const v = stack.pop()!
    const depth = depths.pop()!
    if (depth > MAX_DEPTH) return true
    if (Array.isArray(v)) {
      for (const child of v)
        if (child !== null && typeof child === 'object') {
          stack.push(child)
          depths.push(depth + 1)
        }
    } else
      for (const k in v) {
        const child = (v as Record<string, unknown>)[k]
        if (child !== null && typeof child === 'object' && Object.hasOwn(v, k)) {
          stack.push(child)
          depths.push(depth + 1)
        }
      }
  }
  return false
}

const rel = (file: string) => relative(process.cwd(), file) || file

/**
 * The one JSONL store. Every `*.jsonl` fluxlab reads (model.jsonl, tools.jsonl, judge.jsonl,
 * journal.jsonl, the jest reporter's facts file) goes through {@link readJsonl}: 1-based line
 * numbers, each line parsed once and checked against a schema, the one secret scan (honouring the
 * redactor's `disable`), and problems thrown as errors that carry where and why as fields.
 * Whole files are written with `writeFileAtomic` and appends go through `AppendFile` (./atomic.ts).
 */
import { isUtf8 } from 'node:buffer'
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs'
import { basename, relative } from 'node:path'
import { FluxError } from '../errors.js'
import { redactMessage } from '../secrets/redact.js'
import { appendPath } from './json-path.js'
import { describeFinding, scanJsonl, type Finding, type ScanOptions } from './scan.js'
import { trustHash, type Trust } from './verified.js'

/** Deepest nesting a line may have: far above any recorded request or response, far below what overflows the stack. */
const MAX_DEPTH = 1000
/**
 * The largest JSONL file fluxlab reads (256 MiB): a bigger one is refused before it is read, with its size,
 * instead of running the process out of memory or past V8's longest string.
 */
const MAX_FILE_BYTES = 256 * 1024 * 1024

/** Where and why a file is not what its reader expects: the fields of a FLUX_FIXTURE_INVALID or FLUX_FORMAT_VERSION error. */
export interface FixtureProblem {
  /** The file, as given to the reader (absolute when the caller's path was). */
  file: string
  /** 1-based line, when the problem is on one line. */
  line?: number
  /** JSON path of the field at fault inside the line (`response.chunks`), when one is. */
  field?: string
  /** What is wrong, one sentence, redacted. */
  reason: string
  /** What to do, with the exact command. */
  fix: string
}

/** A FluxError that also says, as fields, which file and line is at fault (`fluxlab test` reads them; nothing parses the message). */
class FixtureError extends FluxError {
  constructor(
    code: 'FLUX_FIXTURE_INVALID' | 'FLUX_FORMAT_VERSION',
    readonly problem: FixtureProblem,
    noun: string,
  ) {
    super(code, { failed: `read ${noun ? `${noun} ` : ''}${rel(problem.file)}${problem.line ? `:${problem.line}` : ''}`, reason: problem.reason, fix: problem.fix })
  }
}

/**
 * The error for a file (or one of its lines) its reader cannot use: `Failed to read <noun> <file>:<line>: <reason>. <fix>`.
 * @example
 * throw fixtureError('FLUX_FIXTURE_INVALID', { file, line: 3, reason: 'the key repeats line 1', fix: 'Delete one of the two lines.' })
 */
export function fixtureError(code: 'FLUX_FIXTURE_INVALID' | 'FLUX_FORMAT_VERSION', problem: FixtureProblem, noun = 'fixture'): FluxError {
  return new FixtureError(code, { ...problem, reason: redactMessage(problem.reason) }, noun)
}

/**
 * The problem a read error carries (also from another copy of fluxlab), or `undefined` for any other error.
 * @example
 * try { readFixture(dir) } catch (e) { const p = problemOf(e); if (p) console.log(`${p.file}:${p.line}`) }
 */
export function problemOf(e: unknown): FixtureProblem | undefined {
  const p = (e as { problem?: unknown } | null)?.problem
  return (e as Error | null)?.name === 'FluxError' && typeof p === 'object' && p !== null && typeof (p as FixtureProblem).file === 'string' ? (p as FixtureProblem) : undefined
}

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
  /**
   * The file's content passed every check before (./verified.ts): only parse it, as long as its bytes hash to this
   * while they are read. Bytes that differ (the file changed since it was hashed) are read again with every check.
   */
  trust?: Trust
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
 * Read a JSONL file: blank lines skipped, every other line parsed once and checked against the schema,
 * the whole text secret-scanned first (a finding throws FLUX_CREDENTIAL_FOUND naming file:line and JSON
 * path), then the first bad line thrown as FLUX_FIXTURE_INVALID carrying its {@link FixtureProblem}.
 * `T` is what the schema guarantees; the values are returned as parsed.
 * @example
 * const { lines } = readJsonl<ModelCell>(join(dir, 'model.jsonl'), { schema: modelCellSchema, fix, scan: { fix: secretFix }, missing: restoreFix })
 */
export function readJsonl<T>(file: string, opts: ReadJsonlOptions): JsonlFile<T> {
  const noun = opts.noun ?? 'fixture'
  if (!existsSync(file)) {
    if (opts.missing === undefined) return { lines: [], problems: [], tornTail: false, ...(opts.trust ? { trusted: true as const } : {}) }
    throw fixtureError('FLUX_FIXTURE_INVALID', { file, reason: 'the file is missing', fix: opts.missing }, noun)
  }
  const size = statSync(file).size
  if (size > MAX_FILE_BYTES)
    throw fixtureError(
      'FLUX_FIXTURE_INVALID',
      { file, reason: `the file is ${size} bytes, more than the ${MAX_FILE_BYTES} fluxlab reads (a body over the cap is stored cut, so a recording is never this big)`, fix: typeof opts.fix === 'string' ? opts.fix : opts.fix() },
      noun,
    )
  const lines: Array<JsonlLine<T>> = []
  const problems: FixtureProblem[] = []
  const findings: Finding[] = []
  const bad = (line: number, reason: string, field?: string) =>
    problems.push({ file, line, ...(field ? { field } : {}), reason: redactMessage(reason), fix: typeof opts.fix === 'string' ? opts.fix : opts.fix() })
  if (opts.trust) {
    const read = readTrusted<T>(file, opts.trust, opts.tornTail === true)
    if (read) return read
    return readJsonl(file, { ...opts, trust: undefined })
  }
  let tail = ''
  // @note issue 14: read in blocks of whole lines, so a big file is never one string (and its bytes, its lines and
  // its values all at once); memory stays near the size of what is kept. A block ends after a '\n', which no
  // multi-byte UTF-8 sequence holds, so each block is checked for UTF-8 and secret-scanned on its own.
  for (const block of lineBlocks(file)) {
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
      for (const f of scanJsonl(blockText, basename(file), values, opts.scan)) findings.push(f.line === undefined ? f : { ...f, line: f.line + block.firstLine - 1 })
  }
  if (opts.scan)
    refuseSecrets(findings, {
      failed: `read ${noun ? `${noun} ` : ''}${rel(file)}`,
      fix: opts.scan.fix,
    })
  if (problems.length && !opts.collect) throw fixtureError('FLUX_FIXTURE_INVALID', problems[0], noun)
  return { lines, problems, tornTail: tail.trim() !== '' }
}

/**
 * A trusted read: lines split and parsed, nothing else, while the bytes hash as `trust` says; `undefined`
 * when they do not (the caller reads again with every check).
 */
function readTrusted<T>(file: string, trust: Trust, tornTail: boolean): JsonlFile<T> | undefined {
  const hash = trustHash()
  const lines: Array<JsonlLine<T>> = []
  let tail = ''
  for (const block of lineBlocks(file)) {
    hash.update(block.bytes)
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
  if (hash.digest('hex') !== trust.sha256) return undefined
  return { lines, problems: [], tornTail: tail.trim() !== '', trusted: true }
}

/**
 * Throw FLUX_CREDENTIAL_FOUND when the secret scan found anything: one bullet per finding (file:line, JSON path, rule), never the value.
 * @example
 * refuseSecrets(scanText(text, 'judge.jsonl', { disable }), { failed: `write ${file}`, fix: 'Nothing was written. …' })
 */
export function refuseSecrets(findings: readonly Finding[], parts: { failed: string; fix: string; reason?: string }): void {
  if (findings.length === 0) return
  throw new FluxError('FLUX_CREDENTIAL_FOUND', {
    failed: parts.failed,
    reason: parts.reason ?? `found ${findings.length} secret-looking value${findings.length > 1 ? 's' : ''} (credential_found).`,
    fix: parts.fix,
    details: findings.map(describeFinding),
  })
}

type Issue = { message: string; path: ReadonlyArray<PropertyKey>; code?: string; keys?: readonly string[] }

/**
 * A schema issue as one sentence: what was expected at which field, and what the line holds there.
 * @example
 * describeIssue({ message: 'expected "t" (a number ≥ 0)', path: ['response', 'chunks', 0, 't'] }, line)
 * // { field: 'response.chunks[0].t', reason: 'expected "t" (a number ≥ 0) at response.chunks[0].t, found "x"' }
 */
export function describeIssue(issue: Issue, value: unknown): { reason: string; field?: string } {
  const field = issue.path.reduce<string>((p, k) => appendPath(p, typeof k === 'number' ? k : String(k)), '')
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys ?? []
    return { reason: `unexpected field${keys.length > 1 ? 's' : ''} ${keys.map((k) => JSON.stringify(k)).join(', ')}${field ? ` in ${field}` : ''}`, ...(field ? { field } : {}) }
  }
  let found: unknown = value
  let present = true
  for (const k of issue.path) {
    if (found === null || typeof found !== 'object' || !Object.hasOwn(found, k as string)) {
      present = false
      break
    }
    found = (found as Record<PropertyKey, unknown>)[k]
  }
  const where = field && !issue.message.includes(`"${field}"`) ? ` at ${field}` : ''
  return { reason: `${issue.message}${where}, found ${present ? shown(found) : 'nothing: the field is missing'}`, ...(field ? { field } : {}) }
}

/** A found value in a message: short JSON for scalars, the kind for containers. */
function shown(v: unknown): string {
  if (Array.isArray(v)) return `an array of ${v.length}`
  if (v !== null && typeof v === 'object') return 'an object'
  const json = JSON.stringify(v) ?? String(v)
  return json.length > 60 ? `${json.slice(0, 57)}…` : json
}

/**
 * Bytes read at a time; a block is cut after its last '\n' (a longer line grows it).
 * @note measured (bench/fixture-rss.mjs, 10,000 cells / 36 MB): peak RSS 2.46× the file with 4 MiB blocks, 2.13× with 1 MiB,
 * 2.03× with 256 KiB, no slower; the values kept are about 2.0× (issue 14 asks ~2×).
 */
const BLOCK_BYTES = 256 * 1024

/** The file as blocks of whole lines: `firstLine` is the 1-based line the block starts at; the `last` block holds what follows the last '\n' (maybe nothing). */
function* lineBlocks(file: string): Generator<{ bytes: Buffer; firstLine: number; last: boolean }> {
  const fd = openSync(file, 'r')
  try {
    let carry = Buffer.alloc(0)
    let firstLine = 1
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.max(BLOCK_BYTES, carry.length * 2))
      carry.copy(buf)
      let filled = carry.length
      let eof = false
      while (filled < buf.length) {
        const n = readSync(fd, buf, filled, buf.length - filled, null)
        if (n === 0) {
          eof = true
          break
        }
        filled += n
      }
      const data = buf.subarray(0, filled)
      if (eof) {
        yield { bytes: data, firstLine, last: true }
        return
      }
      const cut = data.lastIndexOf(0x0a)
      if (cut < 0) {
        carry = Buffer.from(data)
        continue
      }
      const bytes = data.subarray(0, cut + 1)
      carry = Buffer.from(data.subarray(cut + 1))
      yield { bytes, firstLine, last: false }
      for (let i = bytes.indexOf(0x0a); i >= 0; i = bytes.indexOf(0x0a, i + 1)) firstLine++
    }
  } finally {
    closeSync(fd)
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * The 1-based lines of `bytes` that are not valid UTF-8 (none, in one pass, for a valid file).
 * @example
 * invalidUtf8Lines(Buffer.from([0x61, 0x0a, 0xff])) // Set { 2 }
 */
export function invalidUtf8Lines(bytes: Buffer): Set<number> {
  const bad = new Set<number>()
  try {
    utf8.decode(bytes)
    return bad
  } catch {
    let start = 0
    for (let line = 1; start <= bytes.length; line++) {
      const end = bytes.indexOf(0x0a, start)
      const stop = end < 0 ? bytes.length : end
      try {
        utf8.decode(bytes.subarray(start, stop))
      } catch {
        bad.add(line)
      }
      start = stop + 1
    }
    return bad
  }
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

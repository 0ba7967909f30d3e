/**
 * What a traced window says about the path of a call, and what docs/architecture.md says it is.
 *
 * - A *stay* is a maximal run of consecutive events (`tracer.ts`) in one file: control stayed in that file.
 * - A stay is a *return* when control came back to its file rather than being called into it: its first event is an
 *   `exit`, `suspend` or `resume` of a frame of that file (the callee in another file returned, or an awaited one
 *   settled), or a call made by a caller in that same file (it came back, then called). Every other stay is an *entry*:
 *   a call from another file, or from outside src/ (the interception library, a stream, a promise job).
 * - The path is the list of stays' files, in order; the page lists the same, one numbered line per stay.
 */
import type { TraceEvent, WindowTrace } from './tracer.js'

export interface Stay {
  file: string
  via: 'entry' | 'return'
  events: number
}

export interface FileCounts {
  /** Stays entered by a call from another file (or from outside src/). */
  entries: number
  /** Stays control returned to. */
  returns: number
  /** Functions of the file called in the window (`enter` events). */
  calls: number
}

export interface CallPath {
  name: string
  request: string
  endedBy: string
  /** The files of the stays, in order. */
  files: string[]
  stays: Stay[]
  returns: number
  /** Per file, in order of first appearance. */
  perFile: Record<string, FileCounts>
  events: number
  /** Events outside the window while it was open (not counted). */
  outside: number
}

/**
 * The stays of a window's events.
 * @example
 * stays([{ kind: 'enter', file: 'src/a.ts' }, { kind: 'enter', file: 'src/b.ts', from: 'src/a.ts' }, { kind: 'exit', file: 'src/b.ts' }, { kind: 'exit', file: 'src/a.ts' }])
 * // a (entry), b (entry), a (return)
 */
export function stays(events: readonly TraceEvent[]): Stay[] {
  const out: Stay[] = []
  for (const e of events) {
    const last = out.at(-1)
    if (last?.file === e.file) {
      last.events++
      continue
    }
    const entry = e.kind === 'enter' && e.from !== e.file
    out.push({ file: e.file, via: entry ? 'entry' : 'return', events: 1 })
  }
  return out
}

/**
 * The path of one traced window.
 * @example
 * const model = callPath(trace.windows.find((w) => w.name === 'model')!)
 */
export function callPath(window: WindowTrace): CallPath {
  const list = stays(window.events)
  const perFile: Record<string, FileCounts> = {}
  const counts = (file: string) => (perFile[file] ??= { entries: 0, returns: 0, calls: 0 })
  for (const s of list) counts(s.file)[s.via === 'entry' ? 'entries' : 'returns']++
  for (const e of window.events) if (e.kind === 'enter') counts(e.file).calls++
  return {
    name: window.name,
    request: window.request,
    endedBy: window.endedBy,
    files: list.map((s) => s.file),
    stays: list,
    returns: list.filter((s) => s.via === 'return').length,
    perFile,
    events: window.events.length,
    outside: window.outside,
  }
}

/**
 * The path as the lead reads it: stays in order (↩ marks a return), the counts, and a table per file.
 * @example
 * console.log(formatPath(callPath(window)))
 */
export function formatPath(p: CallPath): string {
  const width = String(p.stays.length).length
  const lines = [
    `path ${p.name}: ${p.request} (from the first function entered in src/sources/ to ${p.endedBy})`,
    ...p.stays.map((s, i) => `  ${String(i + 1).padStart(width)}. ${s.via === 'return' ? '↩ ' : '  '}${s.file}`),
    `  stays ${p.stays.length} · returns ${p.returns} · files ${Object.keys(p.perFile).length} · events ${p.events}${p.outside ? ` · ${p.outside} events outside the window ignored` : ''}`,
    `  ${'file'.padEnd(44)} entries  returns  calls`,
    ...Object.entries(p.perFile).map(
      ([f, c]) => `  ${f.padEnd(44)} ${String(c.entries).padStart(7)}  ${String(c.returns).padStart(7)}  ${String(c.calls).padStart(5)}`,
    ),
  ]
  return lines.join('\n')
}

/**
 * The ```path <name>``` blocks of a markdown page: each a numbered list of src files, one per stay.
 * Lines other than `N. src/…` (blank lines, `<!-- -->` comments) are not allowed inside a block; the numbers must count
 * 1, 2, 3, … so a line dropped by hand is noticed. A file may be written in backticks, and a note may follow it after ` — `.
 * @example
 * parsePathBlocks('```path model\n1. src/sources/index.ts\n```') // { model: ['src/sources/index.ts'] }
 */
export function parsePathBlocks(markdown: string): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  const re = /^```path[ \t]+([\w-]+)[ \t]*\n([\s\S]*?)^```[ \t]*$/gm
  for (let m = re.exec(markdown); m; m = re.exec(markdown)) {
    const [, name, body] = m
    if (out[name]) throw new Error(`docs: two \`\`\`path ${name}\`\`\` blocks`)
    const files: string[] = []
    for (const raw of body.split('\n')) {
      const line = raw.trim()
      if (!line) continue
      const item = /^(\d+)\.\s+`?(src\/[^\s`]+)`?(\s+—\s.*)?$/.exec(line)
      if (!item) throw new Error(`docs: \`\`\`path ${name}\`\`\` has a line that is not "N. src/<file>": ${JSON.stringify(line)}`)
      if (Number(item[1]) !== files.length + 1)
        throw new Error(`docs: \`\`\`path ${name}\`\`\` line ${JSON.stringify(line)} should be number ${files.length + 1}`)
      files.push(item[2])
    }
    out[name] = files
  }
  return out
}

/**
 * The fenced block for a traced path, as the page holds it.
 * @example
 * pathBlock('model', ['src/sources/index.ts']) // '```path model\n1. src/sources/index.ts\n```'
 */
export function pathBlock(name: string, files: readonly string[]): string {
  return ['```path ' + name, ...files.map((f, i) => `${i + 1}. ${f}`), '```'].join('\n')
}

/**
 * What differs between the page's list and the traced one, line by line (a longest-common-subsequence diff:
 * `-` only on the page, `+` only in the trace), or `undefined` when they are the same.
 * @example
 * diffPaths(['src/a.ts'], ['src/a.ts', 'src/b.ts']) // '  1 src/a.ts\n+ 2 src/b.ts'
 */
export function diffPaths(page: readonly string[], traced: readonly string[]): string | undefined {
  if (page.length === traced.length && page.every((f, i) => f === traced[i])) return undefined
  const n = page.length
  const m = traced.length
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0))
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) lcs[i][j] = page[i] === traced[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1])
  const lines: string[] = []
  let i = 0
  let j = 0
  while (i < n || j < m) {
    if (i < n && j < m && page[i] === traced[j]) lines.push(`  ${j + 1} ${traced[j++]}`), i++
    else if (i < n && (j >= m || lcs[i + 1][j] >= lcs[i][j + 1])) lines.push(`- ${i + 1} ${page[i++]}`)
    else lines.push(`+ ${j + 1} ${traced[j++]}`)
  }
  return lines.join('\n')
}

export interface Bound {
  /** The most distinct files the path may enter. */
  maxFiles: number
  /** Files that may be entered more than once (globs: `*` within a path segment, `**` across segments). */
  allowRepeat: readonly string[]
}

/**
 * Where a path breaks a bound: too many files, or a file entered (not returned to) more than once that is not allowed to be.
 * @example
 * checkBound(model, { maxFiles: 8, allowRepeat: ['src/scenario/pipeline/index.ts', 'src/providers/*\/**'] }) // [] when it holds
 */
export function checkBound(path: CallPath, bound: Bound): string[] {
  const problems: string[] = []
  const files = Object.keys(path.perFile)
  if (files.length > bound.maxFiles) problems.push(`enters ${files.length} files, more than ${bound.maxFiles}`)
  const allowed = bound.allowRepeat.map(glob)
  for (const [file, c] of Object.entries(path.perFile))
    if (c.entries > 1 && !allowed.some((re) => re.test(file))) problems.push(`enters ${file} ${c.entries} times`)
  return problems
}

/**
 * Fail unless the path meets the bound (for the redesign: a replayed call crosses few files, each once).
 * @example
 * assertBound(callPath(window), { maxFiles: 8, allowRepeat: ['src/scenario/pipeline/index.ts', 'src/providers/*\/**'] })
 */
export function assertBound(trace: CallPath, bound: Bound): void {
  const problems = checkBound(trace, bound)
  if (problems.length)
    throw new Error(
      `the ${trace.name} path breaks its bound (at most ${bound.maxFiles} files, each entered once except ${bound.allowRepeat.join(', ')}):\n${problems.map((p) => `  • ${p}`).join('\n')}\n\n${formatPath(trace)}`,
    )
}

function glob(pattern: string): RegExp {
  const re = pattern
    .split('**')
    .map((part) =>
      part
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*'),
    )
    .join('.*')
  return new RegExp(`^${re}$`)
}

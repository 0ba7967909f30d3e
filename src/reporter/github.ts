/**
 * Issue 41 item 1: GitHub Actions output, shared by the vitest, jest and Playwright reporters. Under `GITHUB_ACTIONS=true`
 * (off with the reporter option `github: false` or `FLUX_GITHUB=0`):
 * - an `::error` at the test's file and line for each failed test fluxlab failed (a divergence, a refusal, a fluxlab error),
 *   titled with its code, its message one line ending with the command that runs the test again;
 * - a `::warning` there for each drift and unwrapped tool, the first few and a count of the rest;
 * - the run summary, as Markdown, appended to the file `$GITHUB_STEP_SUMMARY` names.
 * @note never twice: where the runner's own annotator runs (vitest's `github-actions`, which vitest adds by itself when
 * it is given no reporter, jest's `github-actions`, Playwright's `github`), it already annotates every failed test with
 * its error, and a fluxlab error carries its code and the command to run: fluxlab adds the warnings and the step summary.
 * Everything written passes through the secret redactor.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs'
import { relative, resolve, sep } from 'node:path'
import pc from 'picocolors'
import { testCommand } from '../runners/command.js'
import { redactMessage } from '../secrets/redact.js'
import { usd } from './cost-text.js'
import type { SessionFacts } from './facts.js'
import { formatSummary } from './summary-format.js'
import type { RanTest, SuiteSummary } from './summary.js'

/** GitHub shows 10 annotations of each kind per step: the first 9, then one that counts the rest. */
const SHOWN = 10
/** Rows of the step summary's table before it counts the rest. */
const ROWS = 50
const FLUX_CODE = /\[fluxlab\] (FLUX_[A-Z_]+):/

/**
 * Whether this run writes GitHub Actions output: on GitHub (`GITHUB_ACTIONS=true`), unless turned off.
 * @example
 * githubOn(options.github) // false under `FLUX_GITHUB=0`
 */
export function githubOn(option?: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  if (option === false || env.FLUX_GITHUB === '0' || env.FLUX_GITHUB === 'false') return false
  return env.GITHUB_ACTIONS === 'true'
}

/** A workflow command's message: `%`, CR and LF escaped, as GitHub's toolkit does. */
export const escapeData = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
/** A workflow command's property value: the message's escapes, plus `:` and `,`. */
export const escapeProperty = (s: string) => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C')

/**
 * One workflow command line (`::error file=…,line=…,title=…::message`), redacted.
 * @example
 * annotation('warning', { file: 'test/a.test.ts', line: 4, title: 'model_request_drift' }, 'messages[0].content differs')
 */
export function annotation(kind: 'error' | 'warning', props: { file?: string; line?: number; title?: string }, message: string): string {
  const parts = Object.entries(props)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${k}=${escapeProperty(redactMessage(String(v)))}`)
  return `::${kind}${parts.length ? ` ${parts.join(',')}` : ''}::${escapeData(redactMessage(message))}`
}

export interface GithubInput {
  tests: readonly RanTest[]
  summary: SuiteSummary
  /** The directory paths are written relative to (the repository's checkout, where the runner was started). */
  cwd: string
  /** The runner whose reporter this is (the rerun command of a test that reported no facts). */
  runner: string
  /** Playwright's config file, when it is not in `cwd` (`e2e/playwright.config.ts`): the rerun command needs `-c`. */
  config?: string
  /** The runner's own annotator runs and annotates the failed tests (or this one): fluxlab adds no `::error` for them. */
  runnerAnnotates: boolean | ((t: RanTest) => boolean)
}

/**
 * The annotations of a run: errors (unless the runner annotates), then warnings, each kind capped.
 * @example
 * for (const line of githubAnnotations({ tests, summary, cwd, runnerAnnotates: false })) console.log(line)
 */
export function githubAnnotations(input: GithubInput): string[] {
  const rel = relTo(input.cwd)
  const annotated = typeof input.runnerAnnotates === 'function' ? input.runnerAnnotates : () => input.runnerAnnotates === true
  const errors: string[] = []
  const warnings: string[] = []
  for (const t of input.tests) {
    const at = { file: rel(t.file), line: t.line }
    if (t.state === 'failed' && !annotated(t)) {
      const failed = failureOf(t)
      const rerun = rerunOf(t, input.runner, input.config)
      // a fluxlab error that names the command already says it once
      const message = failed?.message.includes(rerun) ? failed.message : `${failed?.message}; rerun: ${rerun}`
      if (failed) errors.push(annotation('error', { ...at, title: failed.code }, message))
    }
    for (const run of t.facts?.sessions ?? [])
      for (const w of run.warnings)
        if (w.code === 'model_request_drift' || w.code === 'unwrapped_tool')
          warnings.push(annotation('warning', { ...at, title: w.code }, `scenario "${run.name}" ${w.step}: ${oneLine(w.message)}`))
  }
  if (input.runnerAnnotates !== true)
    for (const f of input.summary.fileFailures)
      errors.push(annotation('error', { file: rel(f.file), title: f.code }, `outside its tests: ${oneLine(f.message)}`))
  return [...capped(errors, 'error', 'failed tests fluxlab failed'), ...capped(warnings, 'warning', 'fluxlab warnings')]
}

/** The first fluxlab failure of a failed test: a divergence or refusal of one of its scenarios, else a fluxlab error. */
function failureOf(t: RanTest): { code: string; message: string } | undefined {
  const all = (t.facts?.sessions ?? []).flatMap((run) => run.failures.map((f) => ({ run, f })))
  if (all.length) {
    const { run, f } = all[0]
    const code = f.code === 'fatal' ? (FLUX_CODE.exec(f.message)?.[1] ?? 'FLUX_INTERNAL') : f.code
    const more = all.length > 1 ? ` (+${all.length - 1} more)` : ''
    return { code, message: `scenario "${run.name}" ${f.step}: ${f.code === 'fatal' ? '' : `${code}: `}${oneLine(f.message)}${more}` }
  }
  for (const e of t.errors ?? []) {
    const code = FLUX_CODE.exec(e)?.[1]
    if (code) return { code, message: oneLine(e.slice(e.indexOf('[fluxlab]'))) }
  }
  return undefined
}

function rerunOf(t: RanTest, runner: string, config: string | undefined): string {
  const f = t.facts
  const file = relative(f?.rootDir ?? process.cwd(), t.file)
    .split(sep)
    .join('/')
  return testCommand({ runner, file, name: f?.test ?? t.name, project: t.project, ...(config ? { config } : {}) })
}

function capped(lines: string[], kind: 'error' | 'warning', what: string): string[] {
  if (lines.length <= SHOWN) return lines
  return [...lines.slice(0, SHOWN - 1), annotation(kind, { title: 'fluxlab' }, `${lines.length - SHOWN + 1} more ${what}: see the run summary in the log`)]
}

/**
 * The step summary: the summary line, a table of the scenarios that did not replay cleanly, the cost.
 * @example
 * appendFileSync(process.env.GITHUB_STEP_SUMMARY!, stepSummary({ tests, summary, cwd, runnerAnnotates }))
 */
export function stepSummary(input: GithubInput): string {
  const rel = relTo(input.cwd)
  const line = formatSummary(input.summary, pc.createColors(false), { cwd: input.cwd, ci: true })
    .split('\n')[0]
    .replace(/^ fluxlab {2}/, '')
  const rows: string[] = []
  for (const t of input.tests) {
    const where = `\`${cell(`${rel(t.file)}${t.line ? `:${t.line}` : ''}`)}\` ${cell(t.name)}`
    const before = rows.length
    for (const run of t.facts?.sessions ?? []) {
      const result = resultOf(run)
      if (!result) continue
      const first = run.failures[0] ?? run.warnings[0]
      const problem = first ? cell(`${first.step} ${first.code}: ${first.message}`, 200) : ''
      rows.push(`| ${cell(run.name)} | ${where} | ${result} | ${problem} |`)
    }
    // a test fluxlab failed before any scenario ran (a refusal at `scenario()`, a fluxlab error): the test is the row
    const failed = t.state === 'failed' && rows.length === before ? failureOf(t) : undefined
    if (failed) rows.push(`| | ${where} | failed (${failed.code}) | ${cell(failed.message, 200)} |`)
  }
  for (const f of input.summary.fileFailures)
    rows.push(`| | \`${cell(rel(f.file))}\`, outside its tests | failed (${f.code}) | ${cell(oneLine(f.message), 200)} |`)
  const table = rows.length
    ? ['', '| scenario | test | result | first problem |', '|---|---|---|---|', ...rows.slice(0, ROWS)]
    : ['', 'Every scenario replayed cleanly.']
  if (rows.length > ROWS) table.push(`| … ${rows.length - ROWS} more |`)
  return `${redactMessage(['## fluxlab', '', line, ...table, '', `Recorded cost: ${usd(input.summary.cost)}`].join('\n'))}\n\n`
}

/** What went wrong with a scenario's run, or nothing when it replayed (or recorded) cleanly. */
function resultOf(run: SessionFacts): string | undefined {
  if (run.refused) return 'refused'
  if (run.failures.length) return `diverged (${run.failures.length})`
  const live = run.mode === 'replay' && run.modelLive > 0 ? [`${run.modelLive} live model call${run.modelLive === 1 ? '' : 's'}`] : []
  const drift = run.warnings.filter((w) => w.code === 'model_request_drift').length
  const unwrapped = run.warnings.filter((w) => w.code === 'unwrapped_tool').length
  const parts = [...live, ...(drift ? [`drifted (${drift})`] : []), ...(unwrapped ? [`unwrapped tools (${unwrapped})`] : [])]
  return parts.length ? parts.join(', ') : undefined
}

/**
 * Write the run's GitHub Actions output: its annotations to `write`, its step summary to `$GITHUB_STEP_SUMMARY`.
 * @example
 * reportToGithub({ tests, summary, cwd, runnerAnnotates: false }, (s) => process.stdout.write(s))
 */
export function reportToGithub(input: GithubInput, write: (text: string) => void, env: NodeJS.ProcessEnv = process.env): void {
  const lines = githubAnnotations(input)
  if (lines.length) write(`\n${lines.join('\n')}\n`)
  const file = env.GITHUB_STEP_SUMMARY
  if (!file) return
  try {
    appendFileSync(file, stepSummary(input))
  } catch (e) {
    write(`[fluxlab] Failed to write the step summary to GITHUB_STEP_SUMMARY (${file}): ${(e as Error).message}.\n`)
  }
}

/**
 * The line of a test's declaration when the runner did not give it: the first line that calls `test`/`it` with its title.
 * @example
 * declarationLine('/repo/test/a.test.ts', 'answers') // 12
 */
export function declarationLine(file: string, title: string, read: (f: string) => string = (f) => readFileSync(f, 'utf8')): number | undefined {
  let text: string
  try {
    text = read(file)
  } catch {
    return undefined
  }
  const quoted = [`'${title}'`, `"${title}"`, `\`${title}\``]
  const i = text.split('\n').findIndex((l) => /\b(test|it)(\.\w+)*\s*\(/.test(l) && quoted.some((q) => l.includes(q)))
  return i < 0 ? undefined : i + 1
}

/**
 * Whether an error's stack has a frame vitest's `github-actions` reporter can place its annotation at: a file of the
 * project (not under `node_modules`, not Node's own) that exists. Without one, vitest writes no annotation for it.
 * @example
 * placeable(error.stack) // false for an error thrown by fluxlab's end-of-test check
 */
export function placeable(stack: string | undefined, exists: (f: string) => boolean = existsSync): boolean {
  for (const m of (stack ?? '').matchAll(/(?:\(|at )((?:file:\/\/)?\/[^():\s]+):\d+:\d+\)?$/gm)) {
    const file = m[1].replace(/^file:\/\//, '')
    if (!/[\\/]node_modules[\\/]/.test(file) && exists(file)) return true
  }
  return false
}

const relTo = (cwd: string) => (p: string) => {
  const r = relative(cwd, resolve(cwd, p))
  return (r.startsWith('..') ? p : r).split(sep).join('/')
}
const oneLine = (s: string) => s.split('\n')[0].trim()
const cell = (s: string, max = 120) => {
  const one = s.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|')
  return one.length > max ? `${one.slice(0, max - 1)}…` : one
}

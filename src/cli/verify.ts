import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { diffLinesUnified } from 'jest-diff'
import * as z from 'zod/mini'
import { requestKey, toolKey } from '../cassette/canonical.js'
import type { Fixture, ModelCell, ToolCell } from '../cassette/cell.js'
import { readFixtureLines } from '../cassette/fixture.js'
import { FILES } from '../cassette/fixture-files.js'
import { readSource, rerecordCommand } from '../cassette/fixture-source.js'
import { writeTrace } from '../cassette/fixture-write.js'
import { problemOf, type FixtureProblem } from '../cassette/fixture-error.js'
import { readJsonl } from '../cassette/jsonl.js'
import { createRedactor, type RedactorConfig } from '../cassette/redact.js'
import { scanText } from '../cassette/scan.js'
import { testCommand } from '../commands.js'
import { isFluxError } from '../errors.js'
import { fixtureSteps, renderTrace } from '../golden/trace.js'
import { readJudgeTape } from '../judge/tape.js'
import { redactMessage } from '../secrets/redact.js'
import { SECRET_RULES } from '../secrets/rules.js'
import { display, forkParent } from './fixtures.js'

/** Stable problem codes of `fluxlab test` (part of the `--json` schema). */
type ProblemCode =
  | 'fixture_invalid'
  | 'format_version'
  | 'credential_found'
  | 'key_mismatch'
  | 'truncated_cell'
  | 'redaction_mismatch'
  | 'trace_missing'
  | 'trace_mismatch'
  | 'internal_error'

interface Problem {
  code: ProblemCode
  /** Path of the file, relative to the working directory. */
  file: string
  /** 1-based line in `file`, when the problem is on one line. */
  line?: number
  /** JSON path of the field at fault inside the line (`response.chunks[2].b64`), when one is. */
  field?: string
  /** The step as numbered in trace.snap (`model#2`, `tool#1`), when the problem belongs to one. */
  step?: string
  /** What is wrong and what to do. Never contains a secret. */
  message: string
  /** `trace_mismatch`: unified diff, trace.snap (`-`) against the trace rebuilt from the cells (`+`), without colours. */
  diff?: string
}

type TraceStatus = 'matched' | 'mismatch' | 'missing' | 'updated' | 'added' | 'unchecked'

export interface FixtureReport {
  /** The scenario name from scenario.yaml (the directory name when the manifest is unreadable). */
  name: string
  /** The fixture directory, relative to the working directory. */
  dir: string
  /** For a fork, its parent's directory (relative); else absent. */
  forkOf?: string
  ok: boolean
  modelCalls: number
  toolCalls: number
  trace: TraceStatus
  problems: Problem[]
}

export interface VerifyOptions {
  /** Today's redaction rules (from fluxlab.config): the marker every fixture must carry, and the rules the scan skips. */
  redact?: RedactorConfig
  /** `FLUX_GOLDEN=snapshots`: rewrite trace.snap from the cells instead of failing on a difference. */
  rewriteTrace?: boolean
}

const ALL_RULES = SECRET_RULES.map((r) => r.id)

/**
 * Verify one fixture offline: everything replay would reject (every file parsed, every field replay reads
 * checked, errors naming file:line and field; `formatVersion`; each model cell's fields against what its
 * chunks parse to; judge.jsonl as the judge reads it), then re-derive every key from its stored canonical
 * request, scan for secrets, check truncation flags and the redaction marker, and rebuild the trace from the
 * cells to compare with `trace.snap`. Never throws: whatever goes wrong is a problem of this fixture, so
 * `fluxlab test` goes on to the next one.
 * @example
 * const report = verifyFixture('/abs/tests/scenarios/capital', { redact: config.redact })
 * report.ok // true
 */
export function verifyFixture(dir: string, opts: VerifyOptions = {}): FixtureReport {
  const problems: Problem[] = []
  try {
    return verifyInto(dir, opts, problems)
  } catch (e) {
    // @note a bug in fluxlab, not in the fixture: said so, with its stack, and the other fixtures are still verified.
    const parent = forkParent(dir)
    problems.push({
      code: 'internal_error',
      file: display(dir),
      message: `fluxlab failed while verifying this fixture (a bug in fluxlab, please report it with this stack): ${String((e as Error)?.stack ?? e)}`,
    })
    redactProblems(problems)
    return { name: dir.split(/[\\/]/).pop() ?? dir, dir: display(dir), ...(parent ? { forkOf: display(parent) } : {}), ok: false, modelCalls: 0, toolCalls: 0, trace: 'unchecked', problems }
  }
}

function verifyInto(dir: string, opts: VerifyOptions, problems: Problem[]): FixtureReport {
  const parent = forkParent(dir)
  const report: FixtureReport = {
    name: dir.split(/[\\/]/).pop() ?? dir,
    dir: display(dir),
    ...(parent ? { forkOf: display(parent) } : {}),
    ok: false,
    modelCalls: 0,
    toolCalls: 0,
    trace: 'unchecked',
    problems,
  }
  const disable = opts.redact?.disable ?? []

  // Secrets first, in every file, so a fixture that also fails to parse still reports them all.
  for (const file of [FILES.manifest, FILES.model, FILES.tools, FILES.judge, FILES.trace]) {
    const path = join(dir, file)
    if (!existsSync(path)) continue
    for (const f of scanText(readFileSync(path, 'utf8'), undefined, { disable })) {
      problems.push({
        code: 'credential_found',
        file: display(path),
        line: f.line,
        message: `a secret-looking value (rule ${f.rule}${f.path ? ` at ${f.path}` : ''}). Remove it from the file and rotate it (it may have been committed), or re-record with FLUX_GOLDEN=update.`,
      })
    }
  }

  let read: ReturnType<typeof readFixtureLines>
  try {
    // @note the scan above already reported every finding with its line; here only parsing counts.
    read = readFixtureLines(dir, { disable: ALL_RULES, rerun: false, collect: true })
  } catch (e) {
    if (!isFluxError(e)) throw e
    const p = problemOf(e)
    problems.push(
      p
        ? { code: e.code === 'FLUX_FORMAT_VERSION' ? 'format_version' : 'fixture_invalid', file: display(p.file), ...(p.line ? { line: p.line } : {}), message: problemText(p) }
        : { code: 'fixture_invalid', file: display(dir), message: e.message.replace(/^\[fluxlab\] \w+: /, '') },
    )
    redactProblems(problems)
    return report
  }
  const { fixture: fx, lines } = read
  for (const p of read.problems)
    problems.push({ code: 'fixture_invalid', file: display(p.file), ...(p.line ? { line: p.line } : {}), ...(p.field ? { field: p.field } : {}), message: problemText(p) })
  const cellsOk = read.problems.length === 0
  checkJudgeLines(dir, problems)
  report.name = fx.manifest.name ?? report.name
  report.modelCalls = fx.model.length
  report.toolCalls = fx.tools.length

  const rerecord = rerecordText(fx)
  fx.model.forEach((cell, i) => checkModelCell(cell, display(join(dir, FILES.model)), lines.model[i], rerecord, problems))
  fx.tools.forEach((cell, i) => checkToolCell(cell, display(join(dir, FILES.tools)), lines.tools[i], rerecord, problems))

  const marker = createRedactor(opts.redact).marker
  if (fx.manifest.redaction !== marker)
    problems.push({
      code: 'redaction_mismatch',
      file: display(join(dir, FILES.manifest)),
      line: lineOf(join(dir, FILES.manifest), /^redaction:/m),
      message: `the fixture was redacted under ${JSON.stringify(fx.manifest.redaction)}, today's rules give ${marker}. Re-record it with FLUX_GOLDEN=update, or put the redact options it was recorded with in fluxlab.config.mjs.`,
    })

  // @note with a bad cell left out, the rebuilt trace would differ for that reason alone: the bad line is the problem.
  if (!cellsOk) {
    report.ok = false
    redactProblems(problems)
    return report
  }
  // @note a fork's trace may be headed by its parent's name (the run it came from): either is this fixture's trace.
  const names = [fx.manifest.name, (fx.manifest as { fork?: { parent?: unknown } }).fork?.parent].filter((n): n is string => typeof n === 'string')
  const traces = names.map((n) => renderTrace(n, fixtureSteps(fx)))
  const trace = traces.find((t) => t === fx.trace) ?? traces[0]
  const traceFile = join(dir, FILES.trace)
  if (fx.trace === trace) report.trace = 'matched'
  else if (opts.rewriteTrace) {
    try {
      writeTrace(dir, trace, { disable })
      report.trace = fx.trace === undefined ? 'added' : 'updated'
    } catch (e) {
      if (!isFluxError(e)) throw e
      report.trace = fx.trace === undefined ? 'missing' : 'mismatch'
      problems.push({ code: 'credential_found', file: display(traceFile), message: `trace.snap was not rewritten: ${e.message.replace(/^\[fluxlab\] \w+: /, '')}` })
    }
  } else if (fx.trace === undefined) {
    report.trace = 'missing'
    problems.push({
      code: 'trace_missing',
      file: display(traceFile),
      message: 'the fixture has no trace.snap. Write it offline with FLUX_GOLDEN=snapshots npx fluxlab test, then commit it.',
    })
  } else {
    report.trace = 'mismatch'
    const first = firstDifferentLine(fx.trace, trace)
    problems.push({
      code: 'trace_mismatch',
      file: display(traceFile),
      line: first,
      message:
        'trace.snap differs from the trace rebuilt from the cells (model.jsonl, tools.jsonl). If the cells are right, rewrite it offline with FLUX_GOLDEN=snapshots npx fluxlab test; if trace.snap is right, the cells were edited: re-record with FLUX_GOLDEN=update.',
      diff: unifiedDiff(fx.trace, trace),
    })
  }
  report.ok = problems.length === 0
  redactProblems(problems)
  return report
}

/** Problems end up on stdout (and in --json): a secret in a cell must not travel with them. */
function redactProblems(problems: Problem[]): void {
  for (const p of problems) {
    p.message = redactMessage(p.message)
    if (p.diff !== undefined) p.diff = redactMessage(p.diff)
  }
}

/**
 * The unified diff of two traces, `-` trace.snap / `+` rebuilt, as plain text.
 * @example
 * unifiedDiff(fx.trace, renderTrace(name, steps))
 */
function unifiedDiff(expected: string, actual: string, labels: [string, string] = ['trace.snap', 'rebuilt from the cells']): string {
  const id = (s: string) => s
  // Plain text (colours are added when printing): the same diff goes into --json.
  return diffLinesUnified(expected.split('\n'), actual.split('\n'), {
    aAnnotation: labels[0],
    bAnnotation: labels[1],
    expand: false,
    contextLines: 2,
    aColor: id,
    bColor: id,
    commonColor: id,
    patchColor: id,
    changeColor: id,
    includeChangeCounts: false,
  })
}

/** How a message says to re-record this fixture: the exact command when scenario.yaml names what recorded it. */
function rerecordText(fx: Fixture): string {
  const command = rerecordCommand(fx.manifest, fx.dir)
  return command ? `re-record it: \`${command}\`` : 're-record it with FLUX_GOLDEN=update and the test or command that recorded it (scenario.yaml names neither)'
}

/** A problem's message: its reason and its fix, as the error's text has them after "Failed to read …: ". */
const problemText = (p: FixtureProblem) => `${p.reason}${/[.!?)`]$/.test(p.reason) ? '' : '.'} ${p.fix}`

function checkModelCell(cell: ModelCell, file: string, line: number | undefined, rerecord: string, problems: Problem[]): void {
  const step = cell.step ?? `seq ${cell.seq}`
  const key = requestKey(cell.request)
  if (key !== cell.key)
    problems.push({
      code: 'key_mismatch',
      file,
      line,
      step,
      message: `its key ${short(cell.key)} is not the hash of its stored canonical request (${short(key)}): the request was edited by hand or written by another fluxlab. Restore the line from version control, or ${rerecord}.`,
    })
  if (cell.truncated) problems.push(truncated(cell, file, line, step))
}

function checkToolCell(cell: ToolCell, file: string, line: number | undefined, rerecord: string, problems: Problem[]): void {
  const step = cell.step ?? `seq ${cell.seq}`
  const key = toolKey(cell.name, cell.args)
  if (key !== cell.key)
    problems.push({
      code: 'key_mismatch',
      file,
      line,
      step: `${step} ${cell.name}`,
      message: `its key ${short(cell.key)} is not the hash of its name and args (${short(key)}): the args were edited by hand. Restore the line from version control, or ${rerecord}.`,
    })
  if (cell.truncated) problems.push(truncated(cell, file, line, `${step} ${cell.name}`))
}

function truncated(cell: ModelCell | ToolCell, file: string, line: number | undefined, step: string): Problem {
  const cap = Math.max(1, (cell.originalBytes ?? 0) * 2)
  return {
    code: 'truncated_cell',
    file,
    line,
    step,
    message: `the recorded body was ${cell.originalBytes ?? 'more than the cap in'} bytes, over the cap, and was stored cut, so replay refuses it. Re-record with a larger cap: FLUX_CASSETTE_MAX_BYTES=${cap} FLUX_GOLDEN=update.`,
  }
}

/** judge.jsonl is read by the judge layer; here each line only has to be a JSON object. Every bad line is listed. */
function checkJudgeLines(dir: string, problems: Problem[]): void {
  const source = readSource(dir)
  const regrade = source ? `\`${testCommand(source, 'FLUX_GOLDEN=judge')}\`` : 'FLUX_GOLDEN=judge'
  const { problems: bad } = readJsonl(join(dir, FILES.judge), {
    schema: anyObject,
    noun: '',
    fix: `Fix the line by hand or re-grade with ${regrade}.`,
    // @note verifyFixture scanned every file above, naming each finding.
    scan: false,
    collect: true,
  })
  for (const p of bad) problems.push({ code: 'fixture_invalid', file: display(p.file), line: p.line, message: problemText(p) })
  if (bad.length) return
  // @note the judge's own read: its schema and its duplicate-key rule (what toPassJudge would reject).
  try {
    readJudgeTape(dir, { disable: ALL_RULES })
  } catch (e) {
    const p = problemOf(e)
    if (!p) throw e
    problems.push({ code: 'fixture_invalid', file: display(p.file), ...(p.line ? { line: p.line } : {}), ...(p.field ? { field: p.field } : {}), message: problemText(p) })
  }
}

const anyObject = z.looseObject({}, 'expected a JSON object (one verdict)')

function lineOf(file: string, re: RegExp): number | undefined {
  const text = readFileSync(file, 'utf8')
  const m = re.exec(text)
  return m ? text.slice(0, m.index).split('\n').length : undefined
}

function firstDifferentLine(a: string, b: string): number {
  const x = a.split('\n')
  const y = b.split('\n')
  let i = 0
  while (i < x.length && i < y.length && x[i] === y[i]) i++
  return i + 1
}

const short = (key: string | undefined) => (key ? `${key.slice(0, 19)}…` : '(none)')

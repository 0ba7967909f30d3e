/**
 * `fluxlab test` on one fixture: everything replay would reject, the keys, secrets, truncation and redaction
 * marker (./verify-checks.ts), and trace.snap against the cells (./verify-trace.ts), as one report.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Fixture } from '../cassette/cell.js'
import { readFixtureLines } from '../cassette/fixture.js'
import { problemOf } from '../cassette/fixture-error.js'
import { FILES } from '../cassette/fixture-files.js'
import { rerecordCommand } from '../cassette/fixture-source.js'
import { createNormalizer, type NormalizeRule } from '../cassette/normalize.js'
import { createRedactor, type RedactorConfig } from '../cassette/redact.js'
import { scanText } from '../cassette/scan.js'
import { isFluxError } from '../errors.js'
import { redactMessage } from '../secrets/redact.js'
import { display, forkParent } from './fixtures.js'
import { ALL_RULES, checkJudgeLines, checkModelCell, checkToolCell, problemText, type Problem } from './verify-checks.js'
import { checkTrace, type TraceStatus } from './verify-trace.js'

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
  /** Today's `normalize` rules: the marker every fixture must carry (none when there are none). */
  normalize?: NormalizeRule[]
  /** `FLUX_GOLDEN=snapshots`: rewrite trace.snap from the cells instead of failing on a difference. */
  rewriteTrace?: boolean
}

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
    problems.push({
      code: 'internal_error',
      file: display(dir),
      message: `fluxlab failed while verifying this fixture (a bug in fluxlab, please report it with this stack): ${String((e as Error)?.stack ?? e)}`,
    })
    redactProblems(problems)
    return unchecked(dir, problems)
  }
}

/** A fixture's report before anything is checked: not ok, nothing counted, its trace unchecked. */
function unchecked(dir: string, problems: Problem[]): FixtureReport {
  const parent = forkParent(dir)
  return {
    name: dir.split(/[\\/]/).pop() ?? dir,
    dir: display(dir),
    ...(parent ? { forkOf: display(parent) } : {}),
    ok: false,
    modelCalls: 0,
    toolCalls: 0,
    trace: 'unchecked',
    problems,
  }
}

function verifyInto(dir: string, opts: VerifyOptions, problems: Problem[]): FixtureReport {
  const report = unchecked(dir, problems)
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
        message:
          `a secret-looking value (rule ${f.rule}${f.path ? ` at ${f.path}` : ''}). Remove it from the file and rotate it (it may have been ` +
          `committed), or re-record with FLUX_GOLDEN=update.`,
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
        ? {
            code: e.code === 'FLUX_FORMAT_VERSION' ? 'format_version' : 'fixture_invalid',
            file: display(p.file),
            ...(p.line ? { line: p.line } : {}),
            message: problemText(p),
          }
        : { code: 'fixture_invalid', file: display(dir), message: e.message.replace(/^\[fluxlab\] \w+: /, '') },
    )
    redactProblems(problems)
    return report
  }
  const { fixture: fx, lines } = read
  for (const p of read.problems)
    problems.push({
      code: p.code ?? 'fixture_invalid',
      file: display(p.file),
      ...(p.line ? { line: p.line } : {}),
      ...(p.field ? { field: p.field } : {}),
      message: problemText(p).replace(/^digest_mismatch: /, ''),
    })
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
      message:
        `the fixture was redacted under ${JSON.stringify(fx.manifest.redaction)}, today's rules give ${marker}. Re-record it with FLUX_GOLDEN=update, ` +
        `or put the redact options it was recorded with in fluxlab.config.mjs.`,
    })
  const normalized = createNormalizer(opts.normalize).marker
  if (fx.manifest.normalize !== normalized)
    problems.push({
      code: 'redaction_mismatch',
      file: display(join(dir, FILES.manifest)),
      line: lineOf(join(dir, FILES.manifest), /^normalize:/m),
      message:
        `the fixture's requests were normalized under ${fx.manifest.normalize ?? 'no normalize rules'}, today's rules give ${normalized ?? 'none'}. ` +
        `Re-record it with FLUX_GOLDEN=update, or put the normalize rules it was recorded with in fluxlab.config.mjs.`,
    })

  // @note with a bad cell left out, the rebuilt trace would differ for that reason alone: the bad line is the problem.
  if (!cellsOk) {
    report.ok = false
    redactProblems(problems)
    return report
  }
  report.trace = checkTrace(dir, fx, opts.rewriteTrace === true, disable, problems)
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

/** How a message says to re-record this fixture: the exact command when scenario.yaml names what recorded it. */
function rerecordText(fx: Fixture): string {
  const command = rerecordCommand(fx.manifest, fx.dir)
  return command
    ? `re-record it: \`${command}\``
    : 're-record it with FLUX_GOLDEN=update and the test or command that recorded it (scenario.yaml names neither)'
}

function lineOf(file: string, re: RegExp): number | undefined {
  const text = readFileSync(file, 'utf8')
  const m = re.exec(text)
  return m ? text.slice(0, m.index).split('\n').length : undefined
}

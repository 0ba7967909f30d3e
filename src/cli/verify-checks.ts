/**
 * The checks `fluxlab test` makes of a fixture's cells and of its judge.jsonl, each adding what it finds as a
 * {@link Problem} (part of the `--json` schema).
 */
import { join } from 'node:path'
import * as z from 'zod/mini'
import { requestKey, toolKey } from '../cassette/canonical.js'
import type { ModelCell, ToolCell } from '../cassette/cell.js'
import { problemOf, type FixtureProblem } from '../cassette/fixture-error.js'
import { FILES } from '../cassette/fixture-files.js'
import { readSource } from '../cassette/fixture-source.js'
import { readJsonl } from '../cassette/jsonl.js'
import { testCommand } from '../runners/command.js'
import { readJudgeTape } from '../judge/tape.js'
import { SECRET_RULES } from '../secrets/rules.js'
import { display } from './fixtures.js'

/** Stable problem codes of `fluxlab test` (part of the `--json` schema). */
type ProblemCode =
  | 'fixture_invalid'
  | 'digest_mismatch'
  | 'format_version'
  | 'credential_found'
  | 'key_mismatch'
  | 'truncated_cell'
  | 'redaction_mismatch'
  | 'trace_missing'
  | 'trace_mismatch'
  | 'internal_error'

export interface Problem {
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

/** Every secret rule: a read that must not stop at a secret (the scan of every file has named each one) disables them all. */
export const ALL_RULES = SECRET_RULES.map((r) => r.id)

/** A problem's message: its reason and its fix, as the error's text has them after "Failed to read …: ". */
export const problemText = (p: FixtureProblem) => `${p.reason}${/[.!?)`]$/.test(p.reason) ? '' : '.'} ${p.fix}`

export function checkModelCell(cell: ModelCell, file: string, line: number | undefined, rerecord: string, problems: Problem[]): void {
  const step = cell.step ?? `seq ${cell.seq}`
  const key = requestKey(cell.request)
  if (key !== cell.key)
    problems.push({
      code: 'key_mismatch',
      file,
      line,
      step,
      message:
        `its key ${short(cell.key)} is not the hash of its stored canonical request (${short(key)}): the request was edited by hand or written by ` +
        `another fluxlab. Restore the line from version control, or ${rerecord}.`,
    })
  if (cell.truncated) problems.push(truncated(cell, file, line, step))
}

export function checkToolCell(cell: ToolCell, file: string, line: number | undefined, rerecord: string, problems: Problem[]): void {
  const step = cell.step ?? `seq ${cell.seq}`
  const key = toolKey(cell.name, cell.args)
  if (key !== cell.key)
    problems.push({
      code: 'key_mismatch',
      file,
      line,
      step: `${step} ${cell.name}`,
      message:
        `its key ${short(cell.key)} is not the hash of its name and args (${short(key)}): the args were edited by hand. Restore the line from version ` +
        `control, or ${rerecord}.`,
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
    message:
      `the recorded body was ${cell.originalBytes ?? 'more than the cap in'} bytes, over the cap, and was stored cut, so replay refuses it. Re-record ` +
      `with a larger cap: FLUX_CASSETTE_MAX_BYTES=${cap} FLUX_GOLDEN=update.`,
  }
}

/** judge.jsonl is read by the judge layer; here each line only has to be a JSON object. Every bad line is listed. */
export function checkJudgeLines(dir: string, problems: Problem[]): void {
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
    problems.push({
      code: 'fixture_invalid',
      file: display(p.file),
      ...(p.line ? { line: p.line } : {}),
      ...(p.field ? { field: p.field } : {}),
      message: problemText(p),
    })
  }
}

const anyObject = z.looseObject({}, 'expected a JSON object (one verdict)')

const short = (key: string | undefined) => (key ? `${key.slice(0, 19)}…` : '(none)')

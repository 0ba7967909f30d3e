/**
 * The errors of a file its reader cannot use: where and why as fields ({@link FixtureProblem}, which `fluxlab test`
 * reads; nothing parses the message), a schema issue worded as one sentence, and the refusal of a file holding a
 * secret.
 */
import { relative } from 'node:path'
import { FluxError } from '../errors.js'
import { redactMessage } from '../secrets/redact.js'
import { appendPath } from './json-path.js'
import { describeFinding } from './scan.js'
import type { Finding } from './scan-value.js'

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
  /** Set when the problem has a code of its own in `fluxlab test` (else it is `fixture_invalid`). */
  code?: 'digest_mismatch'
}

/** A FluxError that also says, as fields, which file and line is at fault (`fluxlab test` reads them; nothing parses the message). */
class FixtureError extends FluxError {
  constructor(
    code: 'FLUX_FIXTURE_INVALID' | 'FLUX_FORMAT_VERSION',
    readonly problem: FixtureProblem,
    noun: string,
  ) {
    super(code, {
      failed: `read ${noun ? `${noun} ` : ''}${rel(problem.file)}${problem.line ? `:${problem.line}` : ''}`,
      reason: problem.reason,
      fix: problem.fix,
    })
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
  return (e as Error | null)?.name === 'FluxError' && typeof p === 'object' && p !== null && typeof (p as FixtureProblem).file === 'string'
    ? (p as FixtureProblem)
    : undefined
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

/** One schema issue, as zod reports it. */
export type Issue = { message: string; path: ReadonlyArray<PropertyKey>; code?: string; keys?: readonly string[] }

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
    return {
      reason: `unexpected field${keys.length > 1 ? 's' : ''} ${keys.map((k) => JSON.stringify(k)).join(', ')}${field ? ` in ${field}` : ''}`,
      ...(field ? { field } : {}),
    }
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

const rel = (file: string) => relative(process.cwd(), file) || file

import type { CrashReport, CrashRow } from '../scenario/crash.js'
import { hint, type FluxMatcherContext, type MatcherResult } from './utils/context.js'
import { labels, plural } from './utils/format.js'

/**
 * Passes when, at every boundary of a crash matrix, the agent resumed and no finished operation ran twice:
 * only the operation in flight at the kill (its result not yet journaled) may repeat, once.
 * @example
 * expect(await s.crashMatrix('./agent.mjs')).toResumeWithoutReexecution()
 */
export function toResumeWithoutReexecution(this: FluxMatcherContext, received: unknown): MatcherResult {
  const name = 'toResumeWithoutReexecution'
  if (!isReport(received))
    throw new Error(
      `${hint(this, name, '', { comment: 'crash report' })}\n\n[fluxlab] ${name} expects the report of \`await s.crashMatrix(agent)\` (or \`{ scenario, ` +
        `rows: [await s.crashAt(...)] }\`).`,
    )
  const problems = received.rows.flatMap((row) => rowProblems(row))
  const pass = problems.length === 0
  return {
    pass,
    message: () => {
      const l = labels(this)
      const expected = 'every boundary resumes, and nothing but the in-flight operation runs twice'
      const head = `${hint(this, name, '', { comment: 'crash report' })}\n\n${l.expected}${expected}\n`
      if (pass)
        return (
          `${head}${l.received}${received.rows.length} boundar${received.rows.length === 1 ? 'y' : 'ies'} of scenario "${received.scenario}" resumed ` +
          `without re-execution`
        )
      return (
        `${head}${l.received}${plural(problems.length, 'problem')} in scenario "${received.scenario}":\n${problems.map((p) => `  • ${p}`).join('\n')}\n\n` +
        'An operation outside the in-flight window ran again: its result was not journaled before the agent used it ' +
        '(an unwrapped tool? wrap it with lab.tools), or the agent changed between the runs.'
      )
    },
  }
}

function rowProblems(row: CrashRow): string[] {
  const at = `killed at ${row.step} (${row.when})`
  if (row.error && !row.crashed) return [`${at}: ${row.error}`]
  if (!row.resumed) return [`${at}: the resume failed${row.error ? `: ${row.error}` : ''}`]
  const out: string[] = []
  const inFlight = new Set(row.inFlight.map((s) => s.split(' ')[0]))
  for (const [step, n] of [...Object.entries(row.toolExecutions), ...Object.entries(row.modelRequests)]) {
    if (n <= 1) continue
    const allowed = inFlight.has(step.split(' ')[0]) && n === 2
    if (!allowed)
      out.push(`${at}: ${step} ran ${n} times${inFlight.has(step.split(' ')[0]) ? ' (in flight, but more than once again)' : ', outside the in-flight window'}`)
  }
  return out
}

function isReport(v: unknown): v is CrashReport {
  return typeof v === 'object' && v !== null && Array.isArray((v as CrashReport).rows) && typeof (v as CrashReport).scenario === 'string'
}

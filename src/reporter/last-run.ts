/**
 * Issue 41 item 2: what the last run did with each scenario, kept for `fluxlab report`. The vitest, jest and Playwright
 * reporters write it when a run ends, from the facts they already summarize: one entry per scenario a test ran (its
 * mode and result, divergences and warnings, live calls, cost), redacted. Like Playwright's `.last-run.json`, it is a
 * cache of the last run, overwritten by the next one: `node_modules/.cache/fluxlab/last-run.json` under the runner's
 * root, or the file `FLUX_LAST_RUN` names (`FLUX_LAST_RUN=0` writes none).
 */
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { redactMessage } from '../secrets/redact.js'
import type { SessionFacts } from './facts.js'
import type { RanTest } from './summary.js'

/** The last run's file, relative to the runner's root (or the working directory, for `fluxlab report`). */
const LAST_RUN = 'node_modules/.cache/fluxlab/last-run.json'

/** What a scenario's run came to, as the report shows it. */
type RunResult = 'replayed' | 'recorded' | 'not-written' | 'refused' | 'diverged' | 'failed'

interface Problem {
  code: string
  step: string
  message: string
}

export interface LastRunScenario {
  /** The fixture directory, absolute. */
  dir: string
  name: string
  /** The test that ran it: file relative to the root, full name, declaration line where the runner told it. */
  test: { file: string; name: string; line?: number; state: RanTest['state'] }
  mode: 'record' | 'replay'
  result: RunResult
  modelCalls: number
  toolCalls: number
  modelLive: number
  failures: Problem[]
  warnings: Problem[]
  cost: number
}

export interface LastRun {
  schema: 'fluxlab.last-run/v1'
  runner: string
  finishedAt: string
  rootDir: string
  scenarios: LastRunScenario[]
}

/**
 * The result of one scenario's run: refused, diverged (a failure no matcher acknowledged), recorded (or not written),
 * failed (its test failed for another reason), else replayed.
 * @example
 * resultOf(session, 'passed') // 'replayed'
 */
function resultOf(s: SessionFacts, state: RanTest['state']): RunResult {
  if (s.refused) return 'refused'
  if (s.failures.length && !s.acknowledged) return 'diverged'
  if (s.mode === 'record') return s.written ? 'recorded' : 'not-written'
  return state === 'failed' ? 'failed' : 'replayed'
}

const problem = (p: Problem): Problem => ({ code: p.code, step: p.step, message: redactMessage(p.message) })

/**
 * The last run of `tests`, one entry per scenario run (a scenario two tests ran: the later one).
 * @example
 * lastRunOf(tests, 'vitest', '/repo').scenarios.length
 */
function lastRunOf(tests: readonly RanTest[], runner: string, rootDir: string): LastRun {
  const byDir = new Map<string, LastRunScenario>()
  for (const t of tests) {
    for (const s of t.facts?.sessions ?? []) {
      const file = relative(rootDir, t.file).split(sep).join('/')
      byDir.set(s.dir, {
        dir: s.dir,
        name: s.name,
        test: { file, name: redactMessage(t.name), ...(t.line ? { line: t.line } : {}), state: t.state },
        mode: s.mode,
        result: resultOf(s, t.state),
        modelCalls: s.modelCalls,
        toolCalls: s.toolCalls,
        modelLive: s.modelLive,
        failures: s.failures.map(problem),
        warnings: s.warnings.map(problem),
        cost: s.cost,
      })
    }
  }
  return { schema: 'fluxlab.last-run/v1', runner, finishedAt: new Date().toISOString(), rootDir, scenarios: [...byDir.values()] }
}

/**
 * Where the last run goes: `FLUX_LAST_RUN` (a path, relative to `rootDir`), else {@link LAST_RUN} in the nearest folder
 * at or above `rootDir` that has a `node_modules` (a config in a subfolder, `e2e/playwright.config.ts`, writes where
 * `fluxlab report` run from the project root reads, and makes no `node_modules` of its own); none under `FLUX_LAST_RUN=0`.
 * @example
 * lastRunFile('/repo/e2e') // '/repo/node_modules/.cache/fluxlab/last-run.json' (when /repo/node_modules exists)
 */
export function lastRunFile(rootDir: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const named = env.FLUX_LAST_RUN
  if (named === '0' || named === 'false') return undefined
  if (named) return resolve(rootDir, named)
  for (let dir = resolve(rootDir); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules'))) return join(dir, LAST_RUN)
    if (dirname(dir) === dir) return resolve(rootDir, LAST_RUN)
  }
}

/**
 * Write the last run (atomically; a failure to write is not the run's failure: it is left out, silently, as a cache is).
 * @example
 * writeLastRun(tests, 'vitest', vitest.config.root)
 */
export function writeLastRun(tests: readonly RanTest[], runner: string, rootDir: string): void {
  const file = lastRunFile(rootDir)
  // a run with no scenario (every test skipped, a runner with fluxlab off) keeps the last run that had some
  if (!file || !tests.some((t) => t.facts?.sessions.length)) return
  try {
    mkdirSync(dirname(file), { recursive: true })
    const tmp = join(dirname(file), `.last-run-${process.pid}.tmp`)
    writeFileSync(tmp, `${JSON.stringify(lastRunOf(tests, runner, rootDir), null, 1)}\n`)
    renameSync(tmp, file)
  } catch {
    // @note a read-only checkout must not fail the tests: the report then says the last run is unknown.
  }
}

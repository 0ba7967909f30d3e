/**
 * The fluxlab run summary for jest. `preset: 'fluxlab'` adds it after jest's default reporter; with
 * your own `reporters`, add `'fluxlab/jest-reporter'` to them.
 * jest reporters only see assertion results, so workers append each test's facts to a per-run file
 * (`FLUX_FACTS_FILE`, created here before the workers start, inherited by them) that is read back
 * and removed when the run completes.
 */
import { randomBytes } from 'node:crypto'
import { rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pc from 'picocolors'
import { pauseGate, resumeGate } from '../context/gate-keys.js'
import { checkJestVersion, jestVersion } from './jest-version.js'
import { FACTS_ENV, type TestFacts } from './facts.js'
import { factsKey, readFacts } from './read-facts.js'
import { declarationLine, githubOn, reportToGithub } from './github.js'
import { writeLastRun } from './last-run.js'
import { formatSummary } from './summary-format.js'
import { summarize, type RanTest, type TestState } from './summary.js'

interface AssertionLike {
  fullName: string
  title?: string
  /** With `testLocationInResults` (the preset turns it on under GitHub Actions). */
  location?: { line: number } | null
  status: string
  failureMessages?: string[]
}
interface TestResultLike {
  testFilePath: string
  testExecError?: unknown
  testResults: AssertionLike[]
}
interface AggregatedLike {
  testResults: TestResultLike[]
  wasInterrupted?: boolean
}

export interface JestReporterOptions {
  /** Extra fixture roots to look in for fixtures no test opened (the tests' own `dir` is always used). */
  dirs?: string[]
  /** GitHub Actions annotations and step summary under `GITHUB_ACTIONS=true` (default `true`; also `FLUX_GITHUB=0`). */
  github?: boolean
}

/**
 * @example
 * // jest.config.js, when you have your own reporters:
 * module.exports = { preset: 'fluxlab', reporters: ['default', 'fluxlab/jest-reporter'] }
 */
export default class FluxlabJestReporter {
  private readonly file: string
  /** jest's own `github-actions` reporter runs: it annotates the failed tests. */
  private readonly runnerAnnotates: boolean

  constructor(
    globalConfig?: { rootDir?: string; reporters?: unknown[] },
    private readonly options: JestReporterOptions = {},
  ) {
    // Once per run, in jest's main process, before any worker starts: a jest outside the tested range is named.
    const version = jestVersion(globalConfig?.rootDir ?? process.cwd())
    const warning = version === undefined ? undefined : checkJestVersion(version)
    if (warning) console.warn(warning)
    this.runnerAnnotates = (globalConfig?.reporters ?? []).some((r) => (Array.isArray(r) ? r[0] : r) === 'github-actions')
    this.file = join(tmpdir(), `fluxlab-facts-${process.pid}-${randomBytes(4).toString('hex')}.jsonl`)
    writeFileSync(this.file, '')
    process.env[FACTS_ENV] = this.file
    // Issue 38 item 4: the global setup is over (jest builds its reporters after it): the placeholders `withFluxlab`
    // filled for it go before any worker starts, so each test file sees its keys as it did while recording.
    pauseGate()
  }

  onRunStart(): void {
    // @note watch mode starts several runs with one reporter: each run reads only its own facts.
    writeFileSync(this.file, '')
  }

  onRunComplete(_contexts: unknown, results: AggregatedLike): void {
    // …and stand again for the global teardown, which jest runs after this.
    resumeGate()
    const facts = new Map<string, TestFacts>()
    const read = readFacts(this.file)
    for (const f of read.tests) facts.set(factsKey(f.file, f.test, f.nth), f)
    const github = githubOn(this.options.github)
    const tests: RanTest[] = []
    const files: string[] = []
    // A file jest could not run (a syntax error, a transform that failed, a fluxlab refusal at its top level).
    const fileErrors: Array<{ file: string; message: string }> = []
    for (const file of results.testResults) {
      if (!file.testExecError) files.push(file.testFilePath)
      else fileErrors.push({ file: file.testFilePath, message: String((file.testExecError as { message?: unknown }).message ?? file.testExecError) })
      // Tests of one file that share a name are told apart by their order, as the setup numbers them.
      const seen = new Map<string, number>()
      for (const a of file.testResults) {
        const nth = (seen.get(a.fullName) ?? 0) + 1
        seen.set(a.fullName, nth)
        const line = github ? (a.location?.line ?? declarationLine(file.testFilePath, a.title ?? a.fullName)) : undefined
        tests.push({
          file: file.testFilePath,
          name: a.fullName,
          ...(line ? { line } : {}),
          state: toState(a.status),
          ...(a.failureMessages?.length ? { errors: a.failureMessages } : {}),
          facts: facts.get(factsKey(file.testFilePath, a.fullName, nth)),
        })
      }
    }
    writeLastRun(tests, 'jest', process.cwd())
    const summary = summarize({
      tests,
      fileFacts: read.files,
      fileErrors,
      files,
      rootDir: process.cwd(),
      bases: this.options.dirs ?? [],
      checkObsolete: !results.wasInterrupted,
    })
    const colors = pc.createColors(colorOn(process.stderr))
    process.stderr.write(`${formatSummary(summary, colors, { ci: isCi() })}\n`)
    if (github) reportToGithub({ runner: 'jest', tests, summary, cwd: process.cwd(), runnerAnnotates: this.runnerAnnotates }, (s) => process.stdout.write(s))
    rmSync(this.file, { force: true })
  }

  getLastError(): Error | undefined {
    return undefined
  }
}

function toState(s: string): TestState {
  return s === 'passed' || s === 'failed' ? s : s === 'pending' || s === 'todo' ? 'pending' : 'skipped'
}

function colorOn(stream: { isTTY?: boolean }): boolean {
  if (process.env.NO_COLOR) return false
  if (process.env.FORCE_COLOR) return process.env.FORCE_COLOR !== '0'
  return stream.isTTY === true
}

const isCi = () => !!process.env.CI && process.env.CI !== '0' && process.env.CI !== 'false'

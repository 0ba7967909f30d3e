/**
 * The fluxlab run summary for Playwright Test (`reporter: [['list'], ['fluxlab/playwright-reporter']]`). Each test's
 * facts come with its result, as the `fluxlab-facts` attachment the `flux` fixture adds (src/playwright.ts); the
 * counts are the runner's own: one per test, project and repeat, a retried test counted once by its outcome (`flaky` when
 * it passed on a retry), a test that never ran as skipped, as Playwright's JSON report counts them (issue 39).
 * Under `npx playwright merge-reports` it gets every shard's results from their blobs, facts included, and prints one
 * summary over all of them; each shard's own run prints its own.
 * The app server's own scenario (its calls outside every test's request) comes from `fluxlab serve`, which appends
 * its facts to the file this reporter names in the environment, at each such call. A run that writes a blob carries
 * them in its config's `metadata`, which `merge-reports` merges for the merged run's reporters.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import pc from 'picocolors'
import { afterRetry, FACTS_ATTACHMENT, FACTS_ENV, type FileFacts, type TestFacts } from './facts.js'
import { readFacts } from './read-facts.js'
import { githubOn, reportToGithub } from './github.js'
import { writeLastRun } from './last-run.js'
import { formatSummary } from './summary-format.js'
import { summarize, type RanTest, type TestState } from './summary.js'

interface TestCaseLike {
  /** Unique per test, project and repeat (`--repeat-each`); a retry is another result of the same test. */
  id?: string
  /** Which repeat of its test this is (`--repeat-each`), from 0. */
  repeatEachIndex?: number
  titlePath(): string[]
  /** `unexpected` is a failure for the runner; an expected failure (`test.fail()`) is not. */
  outcome(): 'skipped' | 'expected' | 'unexpected' | 'flaky'
  location: { file: string; line?: number }
  parent: { project?(): { name: string } | undefined }
}
interface TestResultLike {
  status: string
  errors: Array<{ message?: string }>
  attachments: Array<{ name: string; body?: Buffer }>
}
interface ConfigLike {
  rootDir: string
  configFile?: string
  projects: unknown[]
  /** Set in a shard's run (`--shard 2/3`); `merge-reports` may pass on a blob's. */
  shard?: { current: number; total: number } | null
  grep?: RegExp | RegExp[]
  grepInvert?: RegExp | RegExp[] | null
  /** The reporters, `[name, options]` each (`github` annotates the failed tests). */
  reporter?: ReadonlyArray<readonly [string, unknown?]>
  /** Written into a blob as it is when the blob is written; `merge-reports` merges the blobs' key by key. */
  metadata?: Record<string, unknown>
}
interface SuiteLike {
  allTests(): TestCaseLike[]
}

export interface PlaywrightReporterOptions {
  /** Extra fixture roots to look in for fixtures no test opened (the tests' own `dir` is always used). */
  dirs?: string[]
  /** GitHub Actions annotations and step summary under `GITHUB_ACTIONS=true` (default `true`; also `FLUX_GITHUB=0`). */
  github?: boolean
  /** Playwright's own: `merge` under `npx playwright merge-reports`. */
  _mode?: string
}

/**
 * @example
 * // playwright.config.ts
 * reporter: [['list'], ['fluxlab/playwright-reporter']]
 */
export default class FluxlabPlaywrightReporter {
  private readonly results = new Map<string, Omit<RanTest, 'errors'> & { errors: string[]; test: TestCaseLike }>()
  private interrupted = false

  /** Where `fluxlab serve` reports the server's own scenario (created by its first report, if it makes one). */
  private readonly file = join(tmpdir(), `fluxlab-facts-${process.pid}-${randomBytes(4).toString('hex')}.jsonl`)

  constructor(private readonly options: PlaywrightReporterOptions = {}) {
    // before the webServer starts, which inherits it
    process.env[FACTS_ENV] = this.file
  }

  printsToStdio(): boolean {
    return false
  }

  onTestEnd(test: TestCaseLike, result: TestResultLike): void {
    // @note issue 39: keyed by file and titles, the repeats of `--repeat-each` folded into one test (a failed repeat then
    // a passing one read as passed). Each repeat is a test of its own; only a retry's attempts fold.
    const key = keyOf(test)
    // a blob's attachment comes with its body (merge-reports decodes it)
    const body = result.attachments.find((a) => a.name === FACTS_ATTACHMENT)?.body
    let facts: TestFacts | undefined
    try {
      facts = body ? (JSON.parse(body.toString('utf8')) as TestFacts) : undefined
    } catch {
      facts = undefined
    }
    // A retried test reports each attempt: its last one, carrying the earlier ones' live calls.
    const earlier = this.results.get(key)?.facts
    this.results.set(key, {
      ...this.entry(test),
      test,
      errors: result.errors.map((e) => e.message ?? ''),
      ...(facts ? { facts: earlier ? afterRetry(earlier, facts) : facts } : {}),
    })
  }

  /** A test as the summary counts it, by its outcome over all its attempts so far. */
  private entry(test: TestCaseLike): Omit<RanTest, 'errors' | 'facts'> {
    const repeat = test.repeatEachIndex ?? 0
    const project = (this.config?.projects.length ?? 0) > 1 ? test.titlePath()[1] || undefined : undefined
    return {
      file: test.location.file,
      ...(test.location.line ? { line: test.location.line } : {}),
      name: test.titlePath().slice(3).join(' > '),
      ...(project ? { project } : {}),
      ...(repeat > 0 ? { repeat } : {}),
      state: toState(test.outcome()),
    }
  }

  onEnd(result: { status: string }): void {
    this.interrupted = result.status === 'interrupted' || result.status === 'timedout'
  }

  onExit(): void {
    const ran: RanTest[] = [...this.results.values()].map(({ errors, test, ...r }) => ({
      ...r,
      state: toState(test.outcome()),
      ...(errors.length ? { errors } : {}),
    }))
    // @note Playwright's counts include the tests that never ran (`--max-failures`, an interrupted run): skipped.
    const never = (this.suite?.allTests() ?? []).filter((t) => !this.results.has(keyOf(t))).map((t) => ({ ...this.entry(t), state: 'skipped' as const }))
    const tests = [...ran, ...never]
    const files = [...new Set(ran.map((t) => t.file))]
    // a merge's config names no file unless merge-reports got `-c`: the tests' own facts say where their config was
    const factsRoot = ran.find((t) => t.facts)?.facts?.rootDir
    const rootDir = this.config?.configFile ? join(this.config.configFile, '..') : (factsRoot ?? this.config?.rootDir ?? process.cwd())
    const read = { files: [...this.serverFacts(), ...(this.options._mode === 'merge' ? shardsServerFacts(this.config) : [])] }
    rmSync(this.file, { force: true })
    const checkObsolete = !this.interrupted && !(this.options._mode !== 'merge' && this.config?.shard) && !filtered(this.config)
    writeLastRun(tests, 'playwright', rootDir)
    const summary = summarize({ tests, fileFacts: read.files, files, rootDir, bases: this.options.dirs ?? [], checkObsolete })
    process.stderr.write(`${formatSummary(summary, pc.createColors(colorOn(process.stderr)), { ci: isCi() })}\n`)
    const runnerAnnotates = (this.config?.reporter ?? []).some(([name]) => name === 'github')
    // @note issue 41: a config outside the working directory (`e2e/playwright.config.ts`) goes into each rerun command as `-c`.
    const configFile = this.config?.configFile
    const config = configFile && dirname(configFile) !== process.cwd() ? { config: relative(process.cwd(), configFile) } : {}
    if (githubOn(this.options.github))
      reportToGithub({ runner: 'playwright', tests, summary, cwd: process.cwd(), runnerAnnotates, ...config }, (s) => process.stdout.write(s))
  }

  private config?: ConfigLike
  private suite?: SuiteLike

  onBegin(config: ConfigLike, suite?: SuiteLike): void {
    this.config = config
    this.suite = suite
    // @note issue 39: a blob carries the tests' facts (their attachments) but nothing of the app server's own scenario.
    // The blob reporter writes the config's `metadata` when the run ends, after the webServer stopped, by JSON.stringify:
    // a `toJSON` there reads the server's facts then. One key a shard, as merge-reports keeps each key's last value.
    if (this.options._mode === 'merge' || !config.metadata || !(config.reporter ?? []).some(([name]) => name === 'blob')) return
    const run = config.shard ? `${config.shard.current}/${config.shard.total}` : randomBytes(4).toString('hex')
    config.metadata[`${SERVER_FACTS_KEY} ${run}`] = { toJSON: () => this.serverFacts() }
  }

  /** What `fluxlab serve` reported of the app server's own scenario in this run (nothing when it made no call of its own). */
  private serverFacts(): FileFacts[] {
    return existsSync(this.file) ? readFacts(this.file).files : []
  }
}

/** The key of a run's `config.metadata` that carries the app server's facts into its blob. */
const SERVER_FACTS_KEY = 'fluxlab app server'

/** Under merge-reports: the app server's facts of every blob, from the merged config's `metadata`. */
function shardsServerFacts(config: ConfigLike | undefined): FileFacts[] {
  const carried = Object.entries(config?.metadata ?? {}).filter(([key]) => key.startsWith(SERVER_FACTS_KEY))
  return carried.flatMap(([, facts]) => (Array.isArray(facts) ? (facts as FileFacts[]) : [])).filter((f) => Array.isArray(f?.outside?.sessions))
}

const keyOf = (test: TestCaseLike) => test.id ?? `${test.location.file}\0${test.titlePath().slice(1).join('\0')}\0${test.repeatEachIndex ?? 0}`

/** A test's outcome as the runner counts it: `expected` passed, `unexpected` failed, `flaky` (passed on a retry) apart. */
function toState(outcome: ReturnType<TestCaseLike['outcome']>): TestState {
  return outcome === 'unexpected' ? 'failed' : outcome === 'skipped' ? 'skipped' : outcome === 'flaky' ? 'flaky' : 'passed'
}

/**
 * A run of part of the suite (a shard, `-g`, `--project`, `file:line`, `--last-failed`): fixtures of the tests it left out
 * are not obsolete. @note Playwright's `-g` and `--project` do not reach a reporter's config: read from its command line.
 */
function filtered(config: ConfigLike | undefined, argv = process.argv.slice(2)): boolean {
  const all = (r: RegExp | RegExp[] | null | undefined) => [r ?? []].flat().every((x) => x.source === '.*')
  if (config && (!all(config.grep) || (config.grepInvert && [config.grepInvert].flat().length))) return true
  return argv.some((a) => /^(-g|--grep|--grep-invert|--project|--last-failed|--only-changed|--shard)(=|$)/.test(a) || /:\d+(:\d+)?$/.test(a))
}

function colorOn(stream: { isTTY?: boolean }): boolean {
  if (process.env.NO_COLOR) return false
  if (process.env.FORCE_COLOR) return process.env.FORCE_COLOR !== '0'
  return stream.isTTY === true
}

const isCi = () => !!process.env.CI && process.env.CI !== '0' && process.env.CI !== 'false'

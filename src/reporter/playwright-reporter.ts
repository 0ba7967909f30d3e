/**
 * The fluxlab run summary for Playwright Test (`reporter: [['list'], ['fluxlab/playwright-reporter']]`). Each test's
 * facts come with its result, as the `fluxlab-facts` attachment the `flux` fixture adds (src/playwright.ts); the
 * counts are the runner's own.
 * The app server's own scenario (its calls outside every test's request) comes from `fluxlab serve`, which appends
 * its facts to the file this reporter names in the environment, at each such call.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pc from 'picocolors'
import { afterRetry, FACTS_ATTACHMENT, FACTS_ENV, type TestFacts } from './facts.js'
import { readFacts } from './read-facts.js'
import { formatSummary, summarize, type RanTest, type TestState } from './summary.js'

interface TestCaseLike {
  /** Unique per test, project and repeat (`--repeat-each`); a retry is another result of the same test. */
  id?: string
  /** Which repeat of its test this is (`--repeat-each`), from 0. */
  repeatEachIndex?: number
  titlePath(): string[]
  /** `unexpected` is a failure for the runner; an expected failure (`test.fail()`) is not. */
  outcome(): 'skipped' | 'expected' | 'unexpected' | 'flaky'
  location: { file: string }
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
}

export interface PlaywrightReporterOptions {
  /** Extra fixture roots to look in for fixtures no test opened (the tests' own `dir` is always used). */
  dirs?: string[]
}

/**
 * @example
 * // playwright.config.ts
 * reporter: [['list'], ['fluxlab/playwright-reporter']]
 */
export default class FluxlabPlaywrightReporter {
  private readonly results = new Map<string, Omit<RanTest, 'errors'> & { errors: string[] }>()
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
    const name = test.titlePath().slice(3).join(' > ')
    // @note issue 39: keyed by file and titles, the repeats of `--repeat-each` folded into one test (a failed repeat then
    // a passing one read as passed). Each repeat is a test of its own; only a retry's attempts fold.
    const repeat = test.repeatEachIndex ?? 0
    const key = test.id ?? `${test.location.file}\0${test.titlePath().slice(1).join('\0')}\0${repeat}`
    const project = (this.config?.projects.length ?? 0) > 1 ? test.titlePath()[1] || undefined : undefined
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
      file: test.location.file,
      name,
      ...(project ? { project } : {}),
      ...(repeat > 0 ? { repeat } : {}),
      state: toState(test.outcome()),
      errors: result.errors.map((e) => e.message ?? ''),
      ...(facts ? { facts: earlier ? afterRetry(earlier, facts) : facts } : {}),
    })
  }

  onEnd(result: { status: string }): void {
    this.interrupted = result.status === 'interrupted' || result.status === 'timedout'
  }

  onExit(): void {
    const tests: RanTest[] = [...this.results.values()].map(({ errors, ...r }) => ({ ...r, ...(errors.length ? { errors } : {}) }))
    const files = [...new Set(tests.map((t) => t.file))]
    const rootDir = this.config?.configFile ? join(this.config.configFile, '..') : (this.config?.rootDir ?? process.cwd())
    const read = existsSync(this.file) ? readFacts(this.file) : { files: [] }
    rmSync(this.file, { force: true })
    const summary = summarize({ tests, fileFacts: read.files, files, rootDir, bases: this.options.dirs ?? [], checkObsolete: !this.interrupted })
    process.stderr.write(`${formatSummary(summary, pc.createColors(colorOn(process.stderr)), { ci: isCi() })}\n`)
  }

  private config?: ConfigLike

  onBegin(config: ConfigLike): void {
    this.config = config
  }
}

/** A test's outcome as the runner counts it: `flaky` (passed on a retry) passed, `unexpected` failed. */
function toState(outcome: ReturnType<TestCaseLike['outcome']>): TestState {
  return outcome === 'unexpected' ? 'failed' : outcome === 'skipped' ? 'skipped' : 'passed'
}

function colorOn(stream: { isTTY?: boolean }): boolean {
  if (process.env.NO_COLOR) return false
  if (process.env.FORCE_COLOR) return process.env.FORCE_COLOR !== '0'
  return stream.isTTY === true
}

const isCi = () => !!process.env.CI && process.env.CI !== '0' && process.env.CI !== 'false'

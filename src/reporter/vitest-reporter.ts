/**
 * The fluxlab run summary for vitest. The `fluxlab()` plugin adds it next to the reporters vitest
 * resolved (the user's, the CLI's `--reporter`, or vitest's default), so nothing else changes.
 * Tests report their scenarios on `task.meta.fluxlab` (set by the fluxlab setup file).
 */
import pc from 'picocolors'
import type { TestFacts } from './facts.js'
import { declarationLine, githubOn, placeable, reportToGithub } from './github.js'
import { writeLastRun } from './last-run.js'
import { formatSummary } from './summary-format.js'
import { summarize, type FileFacts, type RanTest, type TestState } from './summary.js'

interface TestCaseLike {
  fullName: string
  /** Its own title. */
  name?: string
  /** Set when `includeTaskLocation` is on (the plugin turns it on under GitHub Actions). */
  location?: { line: number }
  meta(): { fluxlab?: TestFacts }
  result(): { state: string; errors?: ReadonlyArray<{ message?: string; stack?: string }> }
}
interface TestModuleLike {
  moduleId: string
  project?: { name?: string }
  /** Set by fluxlab's setup file in the file's afterAll (vitest ≥ 3: every reported task has `meta()`). */
  meta?(): { fluxlab?: Omit<FileFacts, 'file'> }
  errors?(): readonly unknown[]
  children: { allTests(): Iterable<TestCaseLike> }
}
interface VitestLike {
  config: { root: string; reporters?: unknown[]; outputFile?: unknown }
  logger: { log(...args: unknown[]): void; error(...args: unknown[]): void }
}

export interface VitestReporterOptions {
  /** Extra fixture roots to look in for fixtures no test opened (the tests' own `dir` is always used). */
  dirs?: string[]
  /** GitHub Actions annotations and step summary under `GITHUB_ACTIONS=true` (default `true`; also `FLUX_GITHUB=0`). */
  github?: boolean
}

/** Reporters that write a machine-readable document to stdout unless given an outputFile. */
const STDOUT_DOCUMENTS = new Set(['json', 'junit', 'tap', 'tap-flat'])

/**
 * @example
 * // added by fluxlab() for you; by hand:
 * export default defineConfig({ test: { reporters: ['default', new FluxlabVitestReporter()] } })
 */
export class FluxlabVitestReporter {
  /** Lets the plugin tell its reporter apart (also across two copies of fluxlab). */
  readonly fluxlabSummary = true
  private vitest?: VitestLike

  constructor(private readonly options: VitestReporterOptions = {}) {}

  onInit(vitest: VitestLike): void {
    this.vitest = vitest
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModuleLike>, _errors: ReadonlyArray<unknown>, reason?: string): void {
    const vitest = this.vitest
    if (!vitest) return
    const github = githubOn(this.options.github)
    const tests: RanTest[] = []
    /** Failed tests vitest's own github-actions reporter can place an annotation for (an error with a frame of the project). */
    const placed = new Set<RanTest>()
    const files: string[] = []
    const fileFacts: FileFacts[] = []
    const fileErrors: Array<{ file: string; message: string }> = []
    for (const mod of testModules) {
      const errors = mod.errors?.() ?? []
      if (!errors.length) files.push(mod.moduleId)
      for (const e of errors) fileErrors.push({ file: mod.moduleId, message: String((e as { message?: unknown } | undefined)?.message ?? e) })
      const own = mod.meta?.().fluxlab
      if (own?.base) fileFacts.push({ file: mod.moduleId, base: own.base, unsetKeys: own.unsetKeys ?? [], ...(own.outside ? { outside: own.outside } : {}) })
      for (const t of mod.children.allTests()) {
        const facts = t.meta().fluxlab
        const result = t.result()
        const errors = result.errors?.map((e) => String(e.message ?? ''))
        const line = github ? (t.location?.line ?? declarationLine(mod.moduleId, t.name ?? t.fullName)) : undefined
        const ran: RanTest = { file: mod.moduleId, name: t.fullName, project: facts?.project, ...(line ? { line } : {}), state: toState(result.state), facts }
        if (errors?.length) ran.errors = errors
        tests.push(ran)
        if (github && result.errors?.some((e) => placeable(e.stack))) placed.add(ran)
      }
    }
    writeLastRun(tests, 'vitest', vitest.config.root)
    const summary = summarize({
      tests,
      fileFacts,
      fileErrors,
      files,
      rootDir: vitest.config.root,
      bases: this.options.dirs ?? [],
      checkObsolete: reason !== 'interrupted',
    })
    const toStderr = !vitest.config.outputFile && (vitest.config.reporters ?? []).some((r) => STDOUT_DOCUMENTS.has(String(Array.isArray(r) ? r[0] : r)))
    const stream = toStderr ? process.stderr : process.stdout
    const colors = pc.createColors(colorOn(stream))
    const text = `\n${formatSummary(summary, colors, { cwd: vitest.config.root, ci: isCi() })}\n`
    if (toStderr) vitest.logger.error(text)
    else vitest.logger.log(text)
    // @note issue 41: vitest's own annotator writes nothing for an error with no frame of the project (fluxlab's end-of-test
    // check throws from node_modules): fluxlab annotates those tests itself, and leaves the others to it.
    const own = (vitest.config.reporters ?? []).some((r) => {
      const name = Array.isArray(r) ? r[0] : r
      return name === 'github-actions' || r?.constructor?.name === 'GithubActionsReporter'
    })
    const write = (s: string) => (toStderr ? process.stderr : process.stdout).write(s)
    if (github) reportToGithub({ runner: 'vitest', tests, summary, cwd: vitest.config.root, runnerAnnotates: own && ((t) => placed.has(t)) }, write)
  }
}

function toState(s: string): TestState {
  return s === 'passed' || s === 'failed' || s === 'skipped' ? s : 'pending'
}

function colorOn(stream: { isTTY?: boolean }): boolean {
  if (process.env.NO_COLOR) return false
  if (process.env.FORCE_COLOR) return process.env.FORCE_COLOR !== '0'
  return stream.isTTY === true
}

const isCi = () => !!process.env.CI && process.env.CI !== '0' && process.env.CI !== 'false'

export default FluxlabVitestReporter

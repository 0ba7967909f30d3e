import type { Divergence } from '../cassette/divergence.js'
import type { UpdateState } from '../golden/update-mode.js'
import type { TraceStep } from '../golden/trace.js'

/**
 * What a test keeps of each run it started: enough for the end-of-test check and the run summary.
 * `Run` (src/scenario) implements it.
 */
export interface TrackedRun {
  /** What the run is (`RunConfig`, frozen). */
  readonly config: { readonly name: string; readonly dir: string; readonly mode: 'record' | 'replay'; readonly refusal?: unknown }
  /** What it observed (`RunLog`). */
  readonly log: {
    readonly divergences: readonly Divergence[]
    /** Steps in completion order. */
    readonly entries: readonly TraceStep[]
    readonly modelLive: number
    /** Model calls the app's own msw or nock listeners never saw. */
    readonly pastMocks?: number
    /** The first fluxlab error raised while serving a request. */
    readonly fatal?: Error
    /** Reads answered from another fixture of the test's file (SPEC §2 "Identity"): the step, and that fixture. */
    readonly shared?: ReadonlyArray<{ readonly step: string; readonly from: string }>
  }
  /** A recording run wrote its fixture. */
  readonly written?: boolean
  /** Set when a matcher or a thrown error has shown the divergences to the user. */
  acknowledged: boolean
  /** How many of `log.divergences` a matcher has shown so far (a whole-suite run asserted on mid-test). */
  acknowledgedUpTo?: number
  /** Wait for recordings still reading their bodies. */
  settled(): Promise<void>
}

/** What fluxlab knows about the test that is running. Filled by the vitest or jest setup. */
export interface TestContext {
  /** The name of its runner's adapter (src/runners): `vitest`, `jest`, `playwright`. */
  runner: string
  testName: string
  testFile: string
  /**
   * Which of the file's tests with this full name it is, from 1, in order of declaration (jest and vitest allow two
   * `test('raw response')` in one file, and `test.each` titles with a literal `%name`). Absent for a name no other test
   * of its file has. SPEC §2 "Identity": each is its own scenario.
   */
  nth?: number
  /** The config file that started the run (absolute), so a command run from elsewhere, or a config of another name, names it. */
  config?: string
  /** vitest: the mode it runs in (`--mode int`), when not vitest's own `test`: a config may pick its tests by mode. */
  mode?: string
  /** vitest project name, set when the file runs in more than one project. */
  project?: string
  rootDir: string
  updateState: UpdateState
  /** Runs started in this test, checked when the test ends. */
  runs: TrackedRun[]
  /** Scenario directories opened in this test (for the reporter). */
  opened: Set<string>
  /** Whole-suite mode: the calls a test file makes outside every test (module top level, `beforeAll`), not one test. */
  fileLevel?: boolean
  /** Whole-suite mode: the test's own scenario, so `testOutcome()` can reach its run. */
  perTest?: { outcome(): unknown }
}

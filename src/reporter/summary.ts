/**
 * The run summary both reporters print: scenarios replayed / recorded (written), the runner's test counts with
 * fluxlab's own failures by code, hermetic count, live model calls, recorded cost, drift warnings, skipped tests
 * that have a fixture (and the unset variables their file read), and fixture directories no test opened.
 */
import { resolve } from 'node:path'
import { readSource } from '../cassette/fixture-source.js'
import { APP_SERVER } from './facts.js'
import { findFixtures, forkParent } from '../cassette/find.js'
import { namesakes } from './namesakes.js'
import { fileFailures, type FileFailure } from './file-failures.js'
import type { FileFacts, TestFacts } from './facts.js'

export type { FileFacts } from './facts.js'

/** `flaky`: Playwright's word for a test that failed, then passed on a retry (counted apart from `passed`, as it does). */
export type TestState = 'passed' | 'failed' | 'skipped' | 'pending' | 'flaky'

/** One test the runner ran (or skipped), as the reporter sees it. */
export interface RanTest {
  /** Absolute path of the test file. */
  file: string
  /** Full name (`describe > test` in vitest, space-joined in jest): what scenario.yaml's `source.name` holds. */
  name: string
  project?: string
  /** The line the test is declared on, where the runner tells it (GitHub annotations point at it). */
  line?: number
  /** A repeat of a test the runner already ran (Playwright's `--repeat-each` index, from 1): counted, never a namesake. */
  repeat?: number
  state: TestState
  /** A failed test's error messages, as the runner reports them (fluxlab's own start with `[fluxlab] FLUX_…:`). */
  errors?: readonly string[]
  facts?: TestFacts
}

export interface SuiteSummary {
  /** Runs that replayed a fixture or wrote one. */
  scenarios: number
  replayed: number
  /** Fixtures written by this run (a recording that failed, or made no model call in whole-suite mode, writes none). */
  recorded: number
  /** Recording runs that wrote nothing because they made no model call (a whole-suite test that calls no model). */
  empty: number
  /**
   * Tests that failed while recording after making model calls: a failing test writes no fixture, so under CI each fails
   * with `FLUX_NO_RECORDING` until it passes while recording. The test's full name, and its scenario.
   */
  notWritten: Array<{ test: string; scenario: string }>
  /** Model calls a recording sent live that the app's own msw or nock listeners never saw (fluxlab answers them first). */
  pastMocks: number
  /** The runner's own counts (skipped counts `todo` too; `flaky` only Playwright's, when a test passed on a retry). */
  tests: { passed: number; failed: number; skipped: number; flaky?: number }
  /** Failed tests whose error is fluxlab's own, by its code (`FLUX_NO_RECORDING`: 114). */
  fluxFailures: Record<string, number>
  hermetic: number
  liveModelCalls: number
  cost: number
  unpriced: string[]
  drift: Array<{ scenario: string; step: string; code: string; message: string }>
  /** `unwrapped_tool` warnings: an in-process tool the replayed model asked for ran for real, not from the tape. */
  unwrapped: SuiteSummary['drift']
  /** `unseen_child` warnings: a child process of a run that never reached fluxlab, so what it sent was not seen. */
  unseen: SuiteSummary['drift']
  /** `unanswered_call` warnings: a recorded call that never got an answer, stored so its replay waits as the client did. */
  unanswered: SuiteSummary['drift']
  /** The app server's own scenarios (Playwright, `fluxlab serve`) that took calls outside every test's request. */
  appServer: Array<{ scenario: string; mode: 'record' | 'replay'; calls: number; refused: number; servers: number }>
  /** Fixture directories (absolute) that no test of this run opened although their source test file ran. */
  obsolete: string[]
  /** Skipped tests that have a fixture (their recording ran them), with the unset variables their file read while collected. */
  skippedWithFixture: Array<{ test: string; dir: string; unsetKeys: string[] }>
  /** Reads a test's replay answered from another fixture of its file: the scenario, the step, and that fixture. */
  shared: Array<{ scenario: string; step: string; from: string }>
  /** Full names two or more tests of one file share (each its own scenario, by order of declaration), with how many. */
  duplicates: Array<{ file: string; name: string; count: number }>
  /** Test files a fluxlab error failed outside every test (a request refused at module top level or in a `beforeAll`). */
  fileFailures: FileFailure[]
  /** Test files the runner could not run at all, for a cause that is not a fluxlab error: each with the error's first line. */
  unloaded: Array<{ file: string; message: string }>
}

export interface SummaryInput {
  tests: RanTest[]
  /** What each test file's setup reported, where it did. */
  fileFacts?: FileFacts[]
  /** The errors the runner reports on test files themselves (vitest: a file that failed to collect), by file. */
  fileErrors?: ReadonlyArray<{ file: string; message: string }>
  /** Test files (absolute) that were collected without a file-level error: only their fixtures can be obsolete. */
  files: string[]
  /** The directory `scenario.yaml`'s `source.file` is relative to (vitest root, jest's working directory). */
  rootDir: string
  /** Fixture roots to look for unopened fixtures in, besides those the tests report. */
  bases: string[]
  /** False when the run was interrupted or filtered by name, so unopened fixtures say nothing. */
  checkObsolete: boolean
}

/** The code of a fluxlab error among a test's error messages (`[fluxlab] FLUX_NO_RECORDING: Failed to …`). */
const FLUX_CODE = /\[fluxlab\] (FLUX_[A-Z_]+):/

/**
 * Fold the tests' facts into one summary.
 * @example
 * summarize({ tests, files, rootDir: vitest.config.root, bases: [], checkObsolete: true }).replayed
 */
export function summarize(input: SummaryInput): SuiteSummary {
  const s: SuiteSummary = {
    scenarios: 0,
    replayed: 0,
    recorded: 0,
    empty: 0,
    notWritten: [],
    pastMocks: 0,
    tests: { passed: 0, failed: 0, skipped: 0 },
    fluxFailures: {},
    hermetic: 0,
    liveModelCalls: 0,
    cost: 0,
    unpriced: [],
    drift: [],
    unwrapped: [],
    unseen: [],
    unanswered: [],
    appServer: [],
    obsolete: [],
    skippedWithFixture: [],
    duplicates: [],
    shared: [],
    fileFailures: [],
    unloaded: [],
  }
  const unpriced = new Set<string>()
  const opened = new Set<string>()
  const bases = new Set([...input.bases.map((b) => resolve(input.rootDir, b)), ...(input.fileFacts ?? []).map((f) => f.base)])
  // `empty` counts tests: a file scenario (calls outside every test) that recorded nothing is no test with no model call.
  const fold = (facts: TestFacts, failed: boolean, test?: string) => {
    bases.add(facts.base)
    for (const d of facts.opened) opened.add(resolve(d))
    s.liveModelCalls += facts.retriedLive ?? 0
    for (const run of facts.sessions) {
      // @note a refusal replays nothing: a test that had no fixture where it could not record (CI, FLUX_OFFLINE) and
      // made no model call is a test with no model call, and one whose call was refused failed with the refusal's code.
      if (run.refused) {
        if (run.failures.length === 0 && !failed && test) s.empty++
      } else if (run.mode === 'replay') s.replayed++
      else if (run.written) s.recorded++
      else if (run.modelCalls === 0 && !failed && test) s.empty++
      else if (run.modelCalls > 0 && failed && test) s.notWritten.push({ test, scenario: run.name })
      if (run.hermetic && !run.refused) s.hermetic++
      s.liveModelCalls += run.modelLive
      if (run.mode === 'record' && !run.refused) s.pastMocks += run.pastMocks ?? 0
      // The cost of what is on the tape: a recording that wrote nothing (its test failed) recorded no cost.
      if ((run.mode === 'replay' && !run.refused) || run.written) s.cost += run.cost
      for (const m of run.unpriced) unpriced.add(m)
      for (const r of run.shared ?? []) s.shared.push({ scenario: run.name, ...r })
      for (const w of run.warnings) {
        const list =
          w.code === 'model_request_drift'
            ? s.drift
            : w.code === 'unwrapped_tool'
              ? s.unwrapped
              : w.code === 'unseen_child'
                ? s.unseen
                : w.code === 'unanswered_call'
                  ? s.unanswered
                  : undefined
        list?.push({ scenario: run.name, step: w.step, code: w.code, message: w.message })
      }
    }
  }
  for (const t of input.tests) {
    if (notRun(t)) s.tests.skipped++
    else if (t.state === 'failed') {
      s.tests.failed++
      const code = t.errors?.map((e) => FLUX_CODE.exec(e)?.[1]).find((c) => c !== undefined)
      if (code) s.fluxFailures[code] = (s.fluxFailures[code] ?? 0) + 1
    } else if (t.state === 'flaky') s.tests.flaky = (s.tests.flaky ?? 0) + 1
    else s.tests.passed++
    if (t.facts) fold(t.facts, t.state === 'failed', t.name)
  }
  // Whole-suite mode's file scenarios (calls outside every test) are scenarios too, and count as no test.
  for (const f of input.fileFacts ?? []) if (f.outside) fold(f.outside, false)
  for (const f of input.fileFacts ?? [])
    for (const run of f.outside?.test === APP_SERVER ? f.outside.sessions : []) {
      if (run.modelCalls + run.toolCalls + run.failures.length === 0) continue
      // @note one line a scenario: merge-reports has one app server a merged run (a shard), each with the same scenario
      const seen = s.appServer.find((a) => a.scenario === run.name && a.mode === run.mode)
      const calls = run.modelCalls + run.toolCalls
      if (seen) Object.assign(seen, { calls: seen.calls + calls, refused: seen.refused + run.failures.length, servers: seen.servers + 1 })
      else s.appServer.push({ scenario: run.name, mode: run.mode, calls, refused: run.failures.length, servers: 1 })
    }
  s.fileFailures = fileFailures(input.fileFacts ?? [], input.fileErrors)
  s.unloaded = (input.fileErrors ?? [])
    .filter((e) => !s.fileFailures.some((f) => f.file === e.file))
    .map((e) => ({ file: e.file, message: e.message.trim().split('\n')[0] ?? '' }))
  s.scenarios = s.replayed + s.recorded
  s.unpriced = [...unpriced].sort()
  s.duplicates = namesakes(input.tests)
  const unopened = unopenedFixtures([...bases], opened, input)
  if (input.checkObsolete) s.obsolete = unopened.obsolete
  s.skippedWithFixture = unopened.skipped
  return s
}

/** Fixtures no test opened: obsolete ones (their test passed without them), and those of tests that were skipped. */
function unopenedFixtures(bases: string[], opened: Set<string>, input: SummaryInput): { obsolete: string[]; skipped: SuiteSummary['skippedWithFixture'] } {
  const files = new Set(input.files.map((f) => resolve(f)))
  const unsetKeys = new Map((input.fileFacts ?? []).map((f) => [resolve(f.file), f.unsetKeys]))
  const byTest = new Map<string, RanTest>()
  const seen = new Map<string, number>()
  // Tests of one file that share a name are told apart by their order (scenario.yaml `source.nth`, absent for the first).
  for (const t of input.tests) {
    if (t.repeat) continue
    const key = testKey(resolve(t.file), t.name, t.project)
    const nth = (seen.get(key) ?? 0) + 1
    seen.set(key, nth)
    byTest.set(`${key}\0${nth}`, t)
  }
  const out = new Set<string>()
  const skipped: SuiteSummary['skippedWithFixture'] = []
  for (const base of bases)
    for (const dir of findFixtures(base)) {
      // @note forks belong to their parent: they go (or stay) with it.
      if (opened.has(dir) || forkParent(dir)) continue
      const source = readSource(dir)
      if (!source) continue
      const file = resolve(input.rootDir, source.file)
      if (!files.has(file)) continue
      const test = byTest.get(`${testKey(file, source.name, source.project)}\0${source.nth ?? 1}`)
      if (test && notRun(test)) skipped.push({ test: `${source.file} > ${source.name}`, dir, unsetKeys: unsetKeys.get(file) ?? [] })
      // A test that was skipped, or failed before opening its scenario, says nothing about the fixture.
      if (test && test.state !== 'passed' && test.state !== 'flaky') continue
      out.add(dir)
    }
  return { obsolete: [...out].sort(), skipped: skipped.sort((a, b) => (a.dir < b.dir ? -1 : 1)) }
}

/** Skipped (vitest `skip`, jest's `pending`), or never run (`todo`). */
const notRun = (t: RanTest) => t.state === 'skipped' || t.state === 'pending'

const testKey = (file: string, name: string, project?: string) => `${file}\0${name}\0${project ?? ''}`

/**
 * The jest setup: add it to `setupFilesAfterEnv` (the `fluxlab/jest-preset`
 * preset does it for you). Registers the matchers, tells scenarios which test
 * is running, and fails a test whose run left the tape even when the agent swallowed the error.
 * @example
 * // jest.config.js
 * module.exports = { preset: 'fluxlab/jest-preset' }
 * // or: setupFilesAfterEnv: ['fluxlab/jest']
 */
import { toUpdateState, updateStateFromEnv } from './golden/update-mode.js'
import { judgeTapesUsed } from './judge/uses.js'
import { lazyMatchers } from './matchers/lazy.js'
import { state } from './context/state.js'
import { finishTest, type TestContext } from './context/test-context.js'
import { configure } from './context/configure.js'
import { perTestMode, type FluxOptions } from './context/options.js'
import { holdFileKeys } from './context/file-keys.js'
import { dropGateKeys } from './context/replay-keys.js'
import { fileRecordKeeper } from './context/record-keeper.js'
import { watchKeyReads } from './context/env-reads.js'
import { loadEngine, loadMatchers } from './plugin/jest-load.js'
import type { TestScenario } from './scenario/per-test.js'

interface JestExpect {
  extend(m: object): void
  getState(): {
    currentTestName?: string
    testPath?: string
    snapshotState?: { _updateSnapshot?: string; _rootDir?: string }
    /** jest-circus 29: set only inside `test.concurrent` bodies; 30: inside every test. */
    currentConcurrentTestName?: () => string | undefined
    /** jest-circus 30: the running test. */
    currentTestIdentity?: () => { name?: string; concurrent?: boolean } | undefined
  }
}
type Hook = (fn: () => unknown) => void
/** Where fluxlab's jest environment (`jest-environment.cjs`) finds what to undo before it tears the file's environment down. */
const TEARDOWN = Symbol.for('fluxlab.jest.teardown')
const g = globalThis as unknown as { expect?: JestExpect; beforeAll?: Hook; beforeEach?: Hook; afterEach?: Hook; afterAll?: Hook }

if (g.expect && g.beforeEach && g.afterEach) {
  const expect = g.expect
  let perTest: TestScenario | undefined
  // jest config `globals: { fluxlab: { scenarios: 'per-test' } }` (or `withFluxlab`) reaches the worker as a global.
  state.runner = 'jest'
  const fromConfig = (globalThis as { fluxlab?: FluxOptions }).fluxlab
  if (fromConfig && typeof fromConfig === 'object') configure(fromConfig)
  // @note issue 14: jest loads this file afresh in every test file, so the whole-suite engine (and the interceptors
  // behind it), the matcher code and the run-summary facts load where used (see plugin/jest-load.ts).
  // SPEC §2 "Keys": before the test file is collected, its key skip gates see placeholders for exactly the variables its
  // own fixtures name (a record run and a file with no fixture get none). jest gives each test file its own `process.env`.
  const testPath = expect.getState().testPath
  // Issue 38 item 4: placeholders the main process filled for its global setup, if a worker inherited them, are not this file's.
  dropGateKeys(process.env)
  const keys = holdFileKeys({
    rootDir: process.cwd(),
    testFile: testPath,
    options: state.options,
    updateState: toUpdateState(expect.getState().snapshotState?._updateSnapshot) ?? updateStateFromEnv(),
  })
  // Issue 24: the credential variables the file's code reads while it is collected: those set go into what it records,
  // those unset name what closed a skipped test's gate.
  // @note a file whose tests are all skipped may run no hook: the facts go out as the reads happen (the reporter merges them).
  const fileFact = (unsetKeys: string[]) => {
    if (keys.fixtures > 0 && testPath)
      void import('./reporter/facts.js').then(({ appendFacts }) => appendFacts({ kind: 'file', file: testPath, base: keys.base, unsetKeys }))
  }
  fileFact([])
  // Issue 38 item 4: where the run can record, what the file read also goes into its record beside the fixtures, so a
  // replay fills placeholders for it even where the file writes no fixture (every test skipped by its gate).
  const keeper = fileRecordKeeper({
    base: keys.base,
    rootDir: process.cwd(),
    testFile: testPath,
    updateState: toUpdateState(expect.getState().snapshotState?._updateSnapshot) ?? updateStateFromEnv(),
  })
  const stopWatch = testPath
    ? watchKeyReads(
        process,
        (name) => {
          fileFact([name])
          keeper?.read(name, false)
        },
        (name) => keeper?.read(name, true),
      )
    : undefined
  let engine = perTestMode(state.options) ? loadEngine() : undefined
  if (engine) {
    const config = process.env.FLUX_JEST_CONFIG ? { config: process.env.FLUX_JEST_CONFIG } : {}
    engine.interceptFromSetup(process.cwd(), () => toUpdateState(expect.getState().snapshotState?._updateSnapshot) ?? updateStateFromEnv(), config)
    // @note each test file has its own environment, but the HTTP modules and diagnostics channels it patches are
    // the process's: fluxlab's jest environment lets go of them when the file's environment is torn down (after
    // the file's own afterAll). Under an environment of the project's own, the next file undoes them (issue 24).
    ;(globalThis as Record<symbol, unknown>)[TEARDOWN] = engine.releaseFromSetup
  }
  expect.extend(lazyMatchers(loadMatchers))
  // @note jest-circus starts `test.concurrent` bodies outside beforeEach/afterEach (30: never runs them; 29:
  // runs them later), so such a test has no context of its own: scenario() asks this and refuses.
  const concurrentName = (): string | undefined => {
    const st = expect.getState()
    const test = st.currentTestIdentity?.()
    if (test) return test.concurrent ? (st.currentConcurrentTestName?.() ?? test.name ?? '') : undefined
    const name = st.currentConcurrentTestName?.()
    return name !== undefined && name !== state.currentTest?.testName ? name : undefined
  }
  state.concurrentTest = () => {
    const name = concurrentName()
    return name === undefined
      ? undefined
      : {
          runner: 'jest',
          name,
          why: 'jest has no per-test async context',
          fix: 'Use `test` instead of `test.concurrent` for fluxlab scenarios in jest (vitest 4.1 and later support `test.concurrent`).',
        }
  }
  // jest runs the setup's beforeAll before the file's own: collection is over.
  g.beforeAll?.(() => {
    const reads = stopWatch?.()
    if (reads && testPath) state.fileKeys = { file: testPath, names: reads.set }
    keeper?.done()
    failIfRefused()
  })
  // Issue 38 item 8: a request refused outside every test (module top level, the file's own beforeAll) fails the file's
  // tests with the refusal's message (thrown from a beforeAll, jest fails each test with it) before one reads its answer.
  const failIfRefused = () => {
    const refused = engine?.fileRefusal()
    if (refused) throw refused
  }
  g.beforeEach(() => {
    failIfRefused()
    const st = expect.getState()
    const nth = nthOfRunning()
    const ctx: TestContext = {
      runner: 'jest',
      testName: st.currentTestName ?? '',
      ...(nth ? { nth } : {}),
      testFile: st.testPath ?? '',
      rootDir: process.cwd(),
      // the config file jest was started with (`-c`), noted by fluxlab's preset in jest's main process
      ...(process.env.FLUX_JEST_CONFIG ? { config: process.env.FLUX_JEST_CONFIG } : {}),
      updateState: toUpdateState(st.snapshotState?._updateSnapshot) ?? updateStateFromEnv(),
      runs: [],
      opened: new Set(),
    }
    state.currentTest = ctx
    state.lastTest = undefined
    // Whole-suite mode: jest has no per-test async context, so the test's scenario takes every request of the
    // worker until the test ends (jest runs one test at a time per worker; `test.concurrent` is refused).
    if (perTestMode(state.options)) engine ??= loadEngine()
    if (engine?.coversTest(ctx, state.options)) {
      perTest = engine.openTestScenario(ctx, state.options)
      perTest.attach()
    }
  })
  g.afterEach(async () => {
    const ctx = state.currentTest
    state.currentTest = undefined
    state.lastTest = ctx
    const mine = perTest
    perTest = undefined
    if (mine) {
      await mine.detach()
      await mine.finish(!currentTestFailed())
    }
    if (!ctx) return
    // The run summary (fluxlab's jest reporter) reads these lines in the main process.
    if (ctx.runs.length || ctx.opened.size) {
      const { appendFacts, collectFacts } = await import('./reporter/facts.js')
      appendFacts(collectFacts(ctx, { dir: state.options.dir, pricing: state.options.pricing }))
    }
    await finishTest(ctx)
  })
  // Judge verdicts no test of this file used: listed, never pruned (a setup file cannot tell whether the file passed).
  g.afterAll?.(async () => {
    stopWatch?.()
    if (judgeTapesUsed()) {
      const { describeJudgeTapeReport, finishJudgeTapes } = await import('./judge/index.js')
      for (const r of finishJudgeTapes({ prune: false })) console.warn(describeJudgeTapeReport(r))
    }
    // Whole-suite mode: the calls the file made outside its tests (module top level, beforeAll; jest runs this
    // afterAll before the file's own, so a model call in those is refused).
    try {
      await engine?.finishFileScenario(async (test) => {
        const { appendFacts, collectFacts } = await import('./reporter/facts.js')
        appendFacts(collectFacts(test, { dir: state.options.dir, pricing: state.options.pricing }))
      })
    } finally {
      keys.release()
    }
  })
}

/** jest-circus's tree of a test file, as much of it as fluxlab reads. */
interface CircusBlock {
  type?: string
  name?: string
  children?: CircusBlock[]
  errors?: unknown[]
}

/** jest-circus keeps its state under a local `Symbol('JEST_STATE_SYMBOL')` on the global. */
function circusState(): { currentlyRunningTest?: CircusBlock; rootDescribeBlock?: CircusBlock } | undefined {
  const sym = Object.getOwnPropertySymbols(globalThis).find((s) => s.description === 'JEST_STATE_SYMBOL')
  return sym ? ((globalThis as Record<symbol, unknown>)[sym] as ReturnType<typeof circusState>) : undefined
}

/** Whether the running test has failed so far (an assertion or a throw); unknown means passed. */
function currentTestFailed(): boolean {
  return (circusState()?.currentlyRunningTest?.errors?.length ?? 0) > 0
}

/** Per test file (its root block): the place of each test whose full name another test of the file has too. */
const nths = new WeakMap<object, Map<object, number>>()

/**
 * SPEC §2 "Identity": which of its file's tests with the running test's full name (`currentTestName`: the describe names
 * and its own, space-joined) it is, in order of declaration; `undefined` for a name no other test of the file has.
 */
function nthOfRunning(): number | undefined {
  const st = circusState()
  const root = st?.rootDescribeBlock
  if (!root || !st?.currentlyRunningTest) return undefined
  let places = nths.get(root)
  if (!places) {
    const byName = new Map<string, object[]>()
    const walk = (block: CircusBlock, prefix: string[]) => {
      for (const child of block.children ?? []) {
        const names = [...prefix, child.name ?? '']
        if (child.type === 'describeBlock') walk(child, names)
        else if (child.type === 'test') byName.set(names.join(' '), [...(byName.get(names.join(' ')) ?? []), child])
      }
    }
    walk(root, [])
    places = new Map()
    for (const same of byName.values()) if (same.length > 1) same.forEach((t, i) => places?.set(t, i + 1))
    nths.set(root, places)
  }
  return places.get(st.currentlyRunningTest)
}

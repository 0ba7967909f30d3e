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
import { describeJudgeTapeReport, finishJudgeTapes } from './judge/index.js'
import { matchers } from './matchers/index.js'
import { state } from './context/state.js'
import { finishTest, type TestContext } from './context/test-context.js'
import { appendFacts, collectFacts } from './reporter/facts.js'

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
const g = globalThis as unknown as { expect?: JestExpect; beforeEach?: Hook; afterEach?: Hook; afterAll?: Hook }

if (g.expect && g.beforeEach && g.afterEach) {
  const expect = g.expect
  expect.extend(matchers)
  // @note jest-circus starts `test.concurrent` bodies outside beforeEach/afterEach (30: never runs them; 29:
  // runs them later), so such a test has no context of its own: scenario() asks this and refuses.
  state.jestConcurrentTest = () => {
    const st = expect.getState()
    const test = st.currentTestIdentity?.()
    if (test) return test.concurrent ? (st.currentConcurrentTestName?.() ?? test.name ?? '') : undefined
    const name = st.currentConcurrentTestName?.()
    return name !== undefined && name !== state.currentTest?.testName ? name : undefined
  }
  g.beforeEach(() => {
    const st = expect.getState()
    const ctx: TestContext = {
      runner: 'jest',
      testName: st.currentTestName ?? '',
      testFile: st.testPath ?? '',
      rootDir: process.cwd(),
      updateState: toUpdateState(st.snapshotState?._updateSnapshot) ?? updateStateFromEnv(),
      runs: [],
      opened: new Set(),
    }
    state.currentTest = ctx
  })
  g.afterEach(async () => {
    const ctx = state.currentTest
    state.currentTest = undefined
    if (!ctx) return
    // The run summary (fluxlab's jest reporter) reads these lines in the main process.
    if (ctx.runs.length || ctx.opened.size) appendFacts(collectFacts(ctx, { dir: state.options.dir, pricing: state.options.pricing }))
    await finishTest(ctx)
  })
  // Judge verdicts no test of this file used: listed, never pruned (a setup file cannot tell whether the file passed).
  g.afterAll?.(() => {
    for (const r of finishJudgeTapes({ prune: false })) console.warn(describeJudgeTapeReport(r))
  })
}

export { matchers } from './matchers/index.js'

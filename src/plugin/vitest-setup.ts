// Registered by the `fluxlab()` vitest plugin: the only file that knows vitest's test lifecycle.
import { afterAll, aroundEach, expect, inject } from 'vitest'
import { toUpdateState, updateStateFromEnv } from '../golden/update-mode.js'
import { describeJudgeTapeReport, finishJudgeTapes } from '../judge/index.js'
import { matchers } from '../matchers/index.js'
import { configure } from '../context/configure.js'
import { state } from '../context/state.js'
import { finishTest, type TestContext } from '../context/test-context.js'
import { collectFacts } from '../reporter/facts.js'
import { coversTest, finishFileScenario, interceptFromSetup, openTestScenario, perTestMode } from '../scenario/per-test.js'
import type { FluxProvided } from '../vitest.js'

expect.extend(matchers)

const provided = (inject as (key: string) => unknown)('fluxlab') as FluxProvided | undefined
if (provided?.options) configure(provided.options)
if (perTestMode(state.options))
  interceptFromSetup(
    (globalThis as { __vitest_worker__?: { config?: { root?: string } } }).__vitest_worker__?.config?.root ?? process.cwd(),
    () => toUpdateState(provided?.updateState) ?? updateStateFromEnv(),
  )

aroundEach(async (runTest, context) => {
  const task = context.task as typeof context.task & { fullTestName?: string; file: { filepath: string; projectName?: string }; result?: { state?: string } }
  const ctx: TestContext = {
    runner: 'vitest',
    testName: task.fullTestName ?? task.name,
    testFile: task.file.filepath,
    project: provided?.multiProject && task.file.projectName ? task.file.projectName : undefined,
    rootDir: (globalThis as { __vitest_worker__?: { config?: { root?: string } } }).__vitest_worker__?.config?.root ?? process.cwd(),
    updateState: toUpdateState(provided?.updateState) ?? updateStateFromEnv(),
    runs: [],
    opened: new Set(),
  }
  try {
    await state.tests.run(ctx, async () => {
      if (!coversTest(ctx, state.options)) return runTest()
      // Whole-suite mode: the test body (with its beforeEach/afterEach hooks) is the scenario's run.
      const perTest = openTestScenario(ctx, state.options)
      await perTest.drive(() => runTest())
      await perTest.finish(task.result?.state !== 'fail')
    })
  } finally {
    // The run summary (fluxlab's vitest reporter) reads this in the main process.
    if (ctx.runs.length || ctx.opened.size)
      (task.meta as Record<string, unknown>).fluxlab = collectFacts(ctx, { dir: state.options.dir, pricing: state.options.pricing })
  }
  await finishTest(ctx)
})

// Judge verdicts no test of this file used any more: reported, and pruned under FLUX_GOLDEN=judge|update only when
// the whole file passed (a failed test may simply not have reached its judge).
type SuiteLike = { result?: { state?: string }; tasks?: SuiteLike[] }
const failed = (t: SuiteLike): boolean => t.result?.state === 'fail' || (t.tasks ?? []).some(failed)
// @note vitest 4.1 rejects a hook whose first parameter is not destructured once fixtures are in use.
afterAll(async ({}, suite?: SuiteLike) => {
  for (const r of finishJudgeTapes(suite && !failed(suite) ? {} : { prune: false })) console.warn(describeJudgeTapeReport(r))
  // Whole-suite mode: the calls the file made outside its tests (module top level, beforeAll, afterAll).
  await finishFileScenario()
})

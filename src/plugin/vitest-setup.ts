// Registered by the `fluxlab()` vitest plugin: the only file that knows vitest's test lifecycle.
// @note `aroundEach` (per-test async context) exists from vitest 4.1 on. A named import of it fails every test
// file at load on 3.2 and 4.0, so it is read from the namespace, and those get beforeEach/afterEach (as jest does).
import { createRequire } from 'node:module'
import * as vitest from 'vitest'
import { afterAll, afterEach, beforeAll, beforeEach, expect, inject } from 'vitest'
import { toUpdateState, updateStateFromEnv } from '../golden/update-mode.js'
import { judgeTapesUsed } from '../judge/uses.js'
import { lazyMatchers } from '../matchers/lazy.js'
import { configure } from '../context/configure.js'
import { state, type ConcurrentTest } from '../context/state.js'
import { finishTest, type TestContext } from '../context/test-context.js'
import { perTestMode } from '../context/options.js'
import { holdFileKeys } from '../context/file-keys.js'
import { dropGateKeys } from '../context/replay-keys.js'
import { fileRecordKeeper } from '../context/record-keeper.js'
import { watchKeyReads } from '../context/env-reads.js'
import type { TestFacts } from '../reporter/facts.js'
import type { TestScenario } from '../scenario/per-test.js'
import { readProvided } from './vitest-provided.js'

/** The runner's task, as much of it as fluxlab reads (3.2 has no `fullTestName`; 4.0 and later do). */
interface TaskLike {
  name: string
  fullTestName?: string
  concurrent?: boolean
  suite?: SuiteLike
  file: { filepath: string; projectName?: string; tasks?: SuiteLike[] }
  result?: { state?: string }
  meta: object
}
interface SuiteLike {
  name: string
  filepath?: string
  suite?: SuiteLike
  result?: { state?: string }
  tasks?: SuiteLike[]
}
type AroundEach = (fn: (runTest: () => Promise<void>, context: { task: TaskLike }) => Promise<void>) => void

// @note issue 14: stand-ins, so a test file that never checks a fluxlab outcome does not load the matcher code. Where no
// fluxlab module handed it over, the built `dist/matchers.js` next to this file is loaded (`require` of ESM, Node ≥ 20.19).
expect.extend(lazyMatchers(() => (createRequire(import.meta.url)('./matchers.js') as typeof import('../matchers/index.js')).matchers))

const provided = readProvided(inject as (key: string) => unknown)
if (provided?.options) configure(provided.options)
const worker = (globalThis as { __vitest_worker__?: { filepath?: string; config?: { root?: string } } }).__vitest_worker__
const rootDir = worker?.config?.root ?? process.cwd()
// SPEC §2 "Keys": before the test file is collected, its key skip gates see placeholders for exactly the variables its own
// fixtures name (a record run and a file with no fixture get none); released when the file ends (afterAll, below).
// Issue 38 item 4: placeholders the main process filled for its global setup, if a worker inherited them, are not this file's.
dropGateKeys(process.env)
const keys = holdFileKeys({
  rootDir,
  testFile: worker?.filepath,
  options: state.options,
  updateState: toUpdateState(provided?.updateState) ?? updateStateFromEnv(),
})
// Issue 24: the credential variables the file's code reads while it is collected: those set go into what it records,
// those unset name what closed a skipped test's gate.
// @note a file whose tests are all skipped runs no hook, so the summary's facts go on the file's task from the start (vitest
// sends its meta once collection ends) and fill as the reads happen.
const fileFacts = { base: keys.base, unsetKeys: [] as string[] }
const fileTask = (worker as { current?: { filepath?: string; meta?: Record<string, unknown> } } | undefined)?.current
if (keys.fixtures > 0 && fileTask?.meta && fileTask.filepath === worker?.filepath) fileTask.meta.fluxlab = fileFacts
// Issue 38 item 4: where the run can record, what the file read also goes into its record beside the fixtures, so a replay
// fills placeholders for it even where the file writes no fixture (every test skipped by its gate).
const keeper = fileRecordKeeper({
  base: keys.base,
  rootDir,
  testFile: worker?.filepath,
  updateState: toUpdateState(provided?.updateState) ?? updateStateFromEnv(),
})
const stopWatch = worker?.filepath
  ? watchKeyReads(
      process,
      (name) => {
        fileFacts.unsetKeys.push(name)
        keeper?.read(name, false)
      },
      (name) => keeper?.read(name, true),
    )
  : undefined
// @note vitest 4.1 rejects a hook whose first parameter is not destructured once fixtures are in use. This one, the setup's,
// runs before the file's own beforeAll: collection is over.
// biome-ignore lint/correctness/noEmptyPattern: vitest reads the hook's first parameter; it must be destructured (note above)
beforeAll(({}: object) => {
  const reads = stopWatch?.()
  if (reads && worker?.filepath) state.fileKeys = { file: worker.filepath, names: reads.set }
  keeper?.done()
  failIfRefused()
})
// Issue 38 item 8: a request refused outside every test (module top level, the file's own beforeAll) fails the file with
// the refusal's message before a test reads what it was answered with: thrown here (collection is over), vitest fails the
// file and skips its tests; thrown in each beforeEach (after a refusal in the file's own beforeAll), each test fails with it.
function failIfRefused(): void {
  const refused = perTest?.fileRefusal()
  if (refused) throw refused
}
// biome-ignore lint/correctness/noEmptyPattern: vitest reads the hook's first parameter; it must be destructured
beforeEach(({}: object) => {
  failIfRefused()
})
const aroundEach = (vitest as unknown as { aroundEach?: AroundEach }).aroundEach
// @note issue 14: the per-test engine (and @mswjs/interceptors behind it) is loaded only where it is used: in
// whole-suite mode, and on vitest 3.2 / 4.0 for `test.concurrent` routing. A test file that opens no scenario in
// explicit mode does not pay for it (each test file loads this setup file afresh).
const perTest = perTestMode(state.options) || typeof aroundEach !== 'function' ? await import('../scenario/per-test.js') : undefined
// the interceptors too, before the first acquire (src/sources/interceptors.ts): the copy this build imports
if (perTest) await perTest.loadInterceptors()
if (perTest && perTestMode(state.options)) {
  const invocation = { ...(provided?.configFile ? { config: provided.configFile } : {}), ...(provided?.mode ? { mode: provided.mode } : {}) }
  perTest.interceptFromSetup(rootDir, () => toUpdateState(provided?.updateState) ?? updateStateFromEnv(), invocation)
}

/** `suite > test`, as vitest ≥ 4 spells `fullTestName` (the scenario name and the `-t` of commands come from it). */
function fullName(task: TaskLike): string {
  if (task.fullTestName) return task.fullTestName
  const names = [task.name]
  for (let s = task.suite; s && s.filepath === undefined; s = s.suite) names.unshift(s.name)
  return names.join(' > ')
}

/** Per test file: the place of each test whose full name another test of the file has too (from 1, by declaration). */
const nths = new WeakMap<object, Map<object, number>>()

/**
 * SPEC §2 "Identity": which of its file's tests with this full name `task` is, in order of declaration; `undefined` for
 * a name no other test of the file has. Read from the collected tree, so a filter (`-t`, `.only`, a skip gate) that
 * leaves a test out never moves the others.
 */
function nthOf(task: TaskLike): number | undefined {
  let places = nths.get(task.file)
  if (!places) {
    const byName = new Map<string, object[]>()
    const walk = (tasks: readonly SuiteLike[]) => {
      for (const t of tasks) {
        if (Array.isArray(t.tasks)) walk(t.tasks)
        else {
          const name = fullName(t as unknown as TaskLike)
          byName.set(name, [...(byName.get(name) ?? []), t])
        }
      }
    }
    walk(task.file.tasks ?? [])
    places = new Map()
    for (const same of byName.values()) if (same.length > 1) same.forEach((t, i) => places?.set(t, i + 1))
    nths.set(task.file, places)
  }
  return places.get(task)
}

function contextOf(task: TaskLike): TestContext {
  const nth = nthOf(task)
  return {
    runner: 'vitest',
    testName: fullName(task),
    ...(nth ? { nth } : {}),
    testFile: task.file.filepath,
    project: provided?.multiProject && task.file.projectName ? task.file.projectName : undefined,
    ...(provided?.configFile ? { config: provided.configFile } : {}),
    ...(provided?.mode ? { mode: provided.mode } : {}),
    rootDir,
    updateState: toUpdateState(provided?.updateState) ?? updateStateFromEnv(),
    runs: [],
    opened: new Set(),
  }
}

/**
 * The run summary (fluxlab's vitest reporter) reads this in the main process.
 * @note the facts code (and the pricing behind it) loads only for a test that opened a scenario.
 */
async function report(task: TaskLike, ctx: TestContext): Promise<void> {
  if (!ctx.runs.length && !ctx.opened.size) return
  const { afterRetry, collectFacts } = await import('../reporter/facts.js')
  const meta = task.meta as { fluxlab?: TestFacts }
  // A `retry` runs the test again on the same task: the last attempt's facts, with every attempt's live calls.
  meta.fluxlab = afterRetry(meta.fluxlab, collectFacts(ctx, { dir: state.options.dir, pricing: state.options.pricing }))
}

if (typeof aroundEach === 'function') {
  // vitest ≥ 4.1: each test (with its beforeEach/afterEach hooks) runs in its own async context, `test.concurrent` included.
  aroundEach(async (runTest, context) => {
    const task = context.task
    const ctx = contextOf(task)
    try {
      await state.tests.run(ctx, async () => {
        if (!perTest?.coversTest(ctx, state.options)) return runTest()
        // Whole-suite mode: the test body (with its beforeEach/afterEach hooks) is the scenario's run.
        const test = perTest.openTestScenario(ctx, state.options)
        await test.drive(() => runTest())
        await test.finish(task.result?.state !== 'fail')
      })
    } finally {
      await report(task, ctx)
    }
    await finishTest(ctx)
  })
} else if (perTest) {
  routeWithHooks(perTest)
}

/**
 * vitest 3.2 and 4.0: no per-test async context, so the running test is a module variable set in beforeEach
 * (tests of a file run one at a time), and whole-suite mode attaches the test's scenario to the worker until
 * afterEach. `test.concurrent` tests cannot be told apart: scenario() refuses in them, and in whole-suite mode
 * their model calls are refused (FLUX_CONCURRENT_TEST), never routed to another test.
 * @note fluxlab's hooks are registered before the test file's, and vitest runs afterEach hooks in reverse
 * (`sequence.hooks: 'stack'`), so the test's own beforeEach/afterEach traffic falls inside its scenario.
 */
function routeWithHooks(engine: typeof import('../scenario/per-test.js')): void {
  const describe = (name: string): ConcurrentTest => ({
    runner: 'vitest',
    name,
    why: 'this vitest has no `aroundEach` (vitest 4.1 added it)',
    fix: 'Use `test` instead of `test.concurrent` for fluxlab scenarios, or upgrade to vitest 4.1 or later (`npm install -D vitest@^4.1.0`).',
  })
  const concurrent = engine.concurrentGroup(state.options, describe)
  state.concurrentTest = () => {
    const t = concurrent.running()
    return t && describe(t.testName)
  }
  const open = new Map<TaskLike, { ctx: TestContext; perTest?: TestScenario }>()
  // @note vitest rejects a hook whose first parameter is not destructured once fixtures are in use.
  beforeEach(({ task }) => {
    const t = task as unknown as TaskLike
    const ctx = contextOf(t)
    if (t.concurrent) {
      concurrent.enter(ctx)
      open.set(t, { ctx })
      return
    }
    state.currentTest = ctx
    state.lastTest = undefined
    const entry: { ctx: TestContext; perTest?: TestScenario } = { ctx }
    open.set(t, entry)
    if (!engine.coversTest(ctx, state.options)) return
    entry.perTest = engine.openTestScenario(ctx, state.options)
    entry.perTest.attach()
  })
  afterEach(async ({ task }) => {
    const t = task as unknown as TaskLike
    const entry = open.get(t)
    if (!entry) return
    open.delete(t)
    const { ctx, perTest } = entry
    try {
      if (t.concurrent) {
        const refused = concurrent.leave(ctx)
        if (refused) throw refused
        return
      }
      if (state.currentTest === ctx) state.currentTest = undefined
      // `testOutcome()` in an afterEach that runs after this one (`sequence.hooks: 'list'`).
      state.lastTest = ctx
      if (perTest) {
        await perTest.detach()
        await perTest.finish(t.result?.state !== 'fail')
      }
    } finally {
      await report(t, ctx)
    }
    await finishTest(ctx)
  })
}

// Judge verdicts no test of this file used any more: reported, and pruned under FLUX_GOLDEN=judge|update only when
// the whole file passed (a failed test may simply not have reached its judge).
const failed = (t: SuiteLike): boolean => t.result?.state === 'fail' || (t.tasks ?? []).some(failed)
// @note vitest 4.1 rejects a hook whose first parameter is not destructured once fixtures are in use; where the
// suite comes (first on 3.2 and 4.0, second on 4.1) differs, so it is the argument that has `tasks`.
// biome-ignore lint/correctness/noEmptyPattern: vitest reads the hook's first parameter; it must be destructured
afterAll(async function ({}: object) {
  // biome-ignore lint/complexity/noArguments: the suite is the argument that has `tasks` (note above)
  const suite = ([...arguments] as unknown[]).find((a): a is SuiteLike => Array.isArray((a as SuiteLike | undefined)?.tasks))
  if (judgeTapesUsed()) {
    const { describeJudgeTapeReport, finishJudgeTapes } = await import('../judge/index.js')
    for (const r of finishJudgeTapes(suite && !failed(suite) ? {} : { prune: false })) console.warn(describeJudgeTapeReport(r))
  }
  // The run summary reads it from the file's meta: where its fixtures are, and what may have closed a skipped test's gate.
  stopWatch?.()
  const meta = (suite as (SuiteLike & { meta?: Record<string, unknown> }) | undefined)?.meta
  if (meta && keys.fixtures > 0) meta.fluxlab = fileFacts
  // Whole-suite mode: the calls the file made outside its tests (module top level, beforeAll, afterAll), a scenario of the summary's too.
  try {
    await perTest?.finishFileScenario(async (test) => {
      const { collectFacts } = await import('../reporter/facts.js')
      if (meta) meta.fluxlab = { ...fileFacts, outside: collectFacts(test, { dir: state.options.dir, pricing: state.options.pricing }) }
    })
  } finally {
    keys.release()
  }
})

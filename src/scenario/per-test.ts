/**
 * Whole-suite mode (SPEC §2, `scenarios: 'per-test'`): every test is its own scenario, with no
 * change to test bodies. The runner setups open one for each test (`test-scenario.ts`), drive the
 * test body inside it, and finish it when the test ends; this file chooses the scenario of a
 * request made outside every test (the file's, or a refusal: `refusals.ts`).
 */
import { relative, resolve } from 'node:path'
import { globToRegExp } from '../context/glob.js'
import { perTestMode, type FluxOptions } from '../context/options.js'
import { state, type ConcurrentTest, type RequestRoute } from '../context/state.js'
import type { TestContext } from '../context/types.js'
import { currentTest, finishTest, runningTestRef } from '../context/test-context.js'
import { FluxError } from '../errors.js'
import { updateStateFromEnv, type UpdateState } from '../golden/update-mode.js'
import { acquireInterception } from '../sources/index.js'
export { loadInterceptors } from '../sources/index.js'
import type { Outcome } from './outcome.js'
import { concurrentGroup as group, outsideRefusal, type ConcurrentGroup } from './refusals.js'
import { admit } from './router.js'
import { openTestScenario, type TestScenario } from './test-scenario.js'
import { closeTree, prepareTree } from './tree.js'

export { openTestScenario, type TestScenario, type ConcurrentGroup }

/**
 * Whole-suite mode from the first line: interception is installed when the setup file loads, before
 * any test module is imported, so SDK clients built at import time are seen. A model call made
 * outside every test (module top level, `beforeAll`, `afterAll`) is refused, never sent live silently.
 * @example
 * if (perTestMode(state.options)) interceptFromSetup(rootDir)
 */
export function interceptFromSetup(root: string, updateState: () => UpdateState = updateStateFromEnv, invocation: Invocation = {}): void {
  if (state.outside) return
  const outside = outsideRefusal()
  // Inside a test file every request is its file scenario's (a tool's HTTP too), like a test's. A file `include` leaves
  // out is not fluxlab's at all: its requests (top level, hooks and test bodies) pass untouched, as without fluxlab.
  state.outside = () => (leftOut(root) ? undefined : (fileDoor(root, updateState, invocation) ?? outside))
  void prepareTree()
  releaseOutside = acquireInterception(admit)
}

let releaseOutside: ((options?: { now?: boolean }) => void) | undefined

/** How the runner was started, for the commands a file scenario's messages give: its config file and vitest's mode. */
type Invocation = Pick<TestContext, 'config' | 'mode'>

/**
 * Undo `interceptFromSetup`: this environment's interception is let go, so it stops answering for
 * environments after it (jest: the next test file of the worker, which sets up its own). Called by
 * fluxlab's jest environment when the file's environment is torn down, after the file's own `afterAll`.
 * @example
 * releaseFromSetup()
 */
export function releaseFromSetup(): void {
  // At once: the environment is torn down next, and undoing a patch later would touch its torn-down globals.
  releaseOutside?.({ now: true })
  releaseOutside = undefined
  closeTree()
  state.outside = undefined
}

/**
 * The file scenarios of this worker by test file: open from the first call outside a test until the file ends. `thrown`: its
 * run's fatal error already failed the file's tests (`fileRefusal`), so the file's end does not fail it a second time.
 */
const fileScenarios = new Map<string, { scenario: TestScenario; test: TestContext; thrown?: boolean } | 'finished'>()

/**
 * The door to the running test file's scenario for its calls made outside every test (module top level,
 * `beforeAll`, `afterAll`): it takes every request, and opens the scenario (named from the file, recorded or
 * replayed like a test's, refused where it can do neither) at the first one it is handed. Once open, the
 * scenario's run itself. `undefined` outside every test file, and after the file's scenario finished.
 */
function fileDoor(root: string, updateState: () => UpdateState, invocation: Invocation): RequestRoute | undefined {
  const running = runningTestRef()
  if (!running?.file) return undefined
  const testFile = resolve(root, running.file)
  const open = fileScenarios.get(testFile)
  if (open === 'finished') return undefined
  if (open) return open.scenario.run
  const hosts = state.options.hosts ?? {}
  const scenario = (): TestScenario => {
    // @note two calls can pass this door before the first is answered: the scenario is opened once.
    const now = fileScenarios.get(testFile)
    if (now && now !== 'finished') return now.scenario
    const test: TestContext = {
      runner: running.runner ?? 'vitest',
      testName: '(outside tests)',
      testFile,
      ...invocation,
      rootDir: root,
      updateState: updateState(),
      runs: [],
      opened: new Set(),
      fileLevel: true,
    }
    const opened = openTestScenario(test, state.options)
    // The run belongs to its (file-level) test from the first request; a refusal's run too, which has no test of its own
    // (issue 38 item 8: the run summary counts a file a refusal failed).
    opened.run.register()
    if (!test.runs.includes(opened.run)) test.runs.push(opened.run)
    fileScenarios.set(testFile, { scenario: opened, test })
    return opened
  }
  return {
    // The file's own servers are not the network either (issue 38): a `beforeAll` readiness poll of one passes.
    config: { hosts, ownServers: true },
    handle: (request, known) => scenario().run.handle(request, known),
    callTool: (call, run) => scenario().run.callTool(call, run),
    handoff: () => scenario().run.handoff(),
    absorb: (returned) => scenario().run.absorb(returned),
  }
}

/**
 * The test file ended (the setups' `afterAll`): write or check its file scenario, if it has one,
 * hand its (file-level) test to `report` for the run summary, written or not, and throw what the
 * file must fail with (a recorded call never made, a refused call).
 * @example
 * afterAll(() => finishFileScenario((test) => facts.push(collectFacts(test))))
 */
export async function finishFileScenario(report: (test: TestContext) => void | Promise<void> = () => {}): Promise<void> {
  const running = runningTestRef()
  for (const [file, open] of fileScenarios) {
    if (open === 'finished' || (running?.file && !file.endsWith(running.file))) continue
    fileScenarios.set(file, 'finished')
    try {
      await open.scenario.finish(true)
    } catch (e) {
      if (!open.thrown || e !== open.scenario.run.log.fatal) throw e
    } finally {
      await report(open.test)
    }
    await finishTest(open.test)
  }
}

/**
 * Issue 38 item 8: the error a request made outside every test of the running file was refused with (module top level,
 * a `beforeAll`: no fixture where nothing can be recorded), if there was one. The runner setups throw it from their
 * `beforeAll` and from each `beforeEach`, which run before the file's own, so the file's tests fail with the refusal's
 * own message before one reads what the refused request was answered with; a refusal after the last test fails the file
 * when it ends (`finishFileScenario`), which does not throw it again.
 * @example
 * beforeEach(() => { const refused = fileRefusal(); if (refused) throw refused })
 */
export function fileRefusal(): Error | undefined {
  const running = runningTestRef()
  for (const [file, open] of fileScenarios) {
    if (open === 'finished' || (running?.file && !file.endsWith(running.file))) continue
    const fatal = open.scenario.run.log.fatal
    if (!fatal) continue
    open.thrown = true
    return fatal
  }
  return undefined
}

/**
 * Whether whole-suite mode covers this test file (`include`: globs relative to the root).
 * @example
 * coversTest(ctx, { scenarios: 'per-test', include: ['test/agents/**'] })
 */
export function coversTest(test: TestContext, options: FluxOptions): boolean {
  return perTestMode(options) && included(test.rootDir, test.testFile, options)
}

/** Whether `include` (globs relative to `root`) takes in the test file `file`: every file when there is none. */
const included = (root: string, file: string, options: FluxOptions): boolean =>
  !options.include?.length || options.include.some((glob) => globToRegExp(glob).test(relative(root, file).split('\\').join('/')))

/**
 * The running test file is one `include` leaves out (sweagent's suite fakes the providers with msw in such files: a
 * model call of theirs went to the file's scenario, live or refused, instead of to the fake).
 */
function leftOut(root: string): boolean {
  const running = runningTestRef()
  return running?.file !== undefined && !included(root, resolve(root, running.file), state.options)
}

/**
 * Whole-suite mode: the running test's own run so far, as an `Outcome` for the usual matchers
 * (in the test body, or in an `afterEach` of the same test). Its `result` is `undefined`: the
 * test body, not an agent function, is the run. Asserting on it marks the divergences seen so
 * far as shown, so the end-of-test check does not repeat them.
 * @example
 * expect(testOutcome()).toCall(['get_weather'])
 */
export function testOutcome(): Outcome<undefined> {
  const test = currentTest() ?? state.lastTest
  const perTest = test?.perTest as { outcome(): Outcome<undefined> } | undefined
  if (perTest) return perTest.outcome()
  throw new FluxError('FLUX_BAD_CONFIG', {
    failed: 'read testOutcome()',
    reason: !test
      ? 'it was called outside every test'
      : perTestMode(state.options)
        ? `the test "${test.testName}" is not covered by whole-suite mode (the \`include\` globs leave its file out)`
        : 'whole-suite mode is off, so the test has no scenario of its own',
    fix: !test
      ? 'Call testOutcome() inside a test body or its afterEach.'
      : "Turn whole-suite mode on (`fluxlab({ scenarios: 'per-test' })`, jest `globals: { fluxlab: { scenarios: 'per-test' } }` or FLUX_SCENARIOS=per-test), " +
        'or use the Outcome that `await scenario(name).run(agent)` returns.',
  })
}

/**
 * `test.concurrent` where tests cannot be told apart (vitest < 4.1 has no `aroundEach`): see `refusals.ts`.
 * @example
 * const group = concurrentGroup(state.options, (name) => ({ runner: 'vitest', name, why, fix }))
 */
export function concurrentGroup(options: FluxOptions, describe: (name: string) => ConcurrentTest): ConcurrentGroup {
  return group(options, describe, (test) => coversTest(test, options))
}

/**
 * Whole-suite mode (SPEC §2, `scenarios: 'per-test'`): every test is its own scenario, with no
 * change to test bodies. The runner setups open one for each test, drive the test body inside
 * it, and finish it when the test ends.
 */
import { relative, resolve } from 'node:path'
import { perTestMode } from '../context/options.js'
import { readFlag, updateStateFromEnv, type UpdateState } from '../golden/update-mode.js'
import type { FluxOptions } from '../context/options.js'
import { state, type ConcurrentTest, type RequestRoute } from '../context/state.js'
import type { TestContext } from '../context/types.js'
import { concurrentTestError, currentTest, finishTest, runningTestRef } from '../context/test-context.js'
import { fillReplayKeys, replayKeyVars } from '../context/replay-keys.js'
import { FluxError } from '../errors.js'
import { renderTrace } from '../golden/trace.js'
import { acquireInterception } from '../interceptor/index.js'
import { detectModelCall, isProviderRequest } from '../providers/registry.js'
import { openCore, outcomeCommands, refuseProviderWithoutModelCall, saveCore, startRun } from './core.js'
import { defaultName } from './names.js'
import { settleTrace, traceRule } from './persist.js'
import { Outcome } from './outcome.js'
import type { Refusal } from './pipeline/index.js'
import { router } from './router.js'
import { Run, runSettings } from './run.js'
import { asStored } from './stored.js'

/** One test as a scenario, from the moment its hooks start to the moment it ends. */
export interface TestScenario {
  /** The test's run: every request of the test goes to it (a refusal's run where it can neither record nor replay). */
  run: Run
  /** Route the test's traffic here while `body` runs (async context: vitest's `aroundEach`). */
  drive(body: () => Promise<unknown>): Promise<void>
  /** Route every request of this worker here until `detach` (runners without per-test async context). */
  attach(): void
  detach(): Promise<void>
  /**
   * The test ended: write the recording when it passed and made a model call, compare the trace
   * on replay, and throw a fluxlab error the test must fail with.
   */
  finish(passed: boolean): Promise<void>
}

/**
 * Whole-suite mode from the first line: interception is installed when the setup file loads, before
 * any test module is imported, so SDK clients built at import time are seen. A model call made
 * outside every test (module top level, `beforeAll`, `afterAll`) is refused, never sent live silently.
 * @example
 * if (perTestMode(state.options)) interceptFromSetup(rootDir)
 */
export function interceptFromSetup(root: string, updateState: () => UpdateState = updateStateFromEnv): void {
  if (state.outside) return
  const hosts = () => state.options.hosts ?? {}
  // Outside every test file, model calls only are taken (and, under FLUX_OFFLINE, every request: it is refused).
  const outside = refusalRun('(outside tests)', {
    claims: (method, url) => detectModelCall(method, url, hosts()) !== undefined || readFlag('FLUX_OFFLINE'),
    preempts: (method, url) => detectModelCall(method, url, hosts()) !== undefined,
    error: (request) =>
      detectModelCall(request.method, new URL(request.url), hosts())
        ? new FluxError('FLUX_NOT_IN_TEST', {
            failed: `send ${request.method} ${hostPath(request)}`,
            reason: 'it is a model call made outside every test file (or after its file scenario ended, in a jest afterAll), which whole-suite mode neither records nor sends live',
            fix: 'Make the call inside a test, or inside `scenario(name).run(agent)` in a beforeAll.',
          })
        : offlineError(request, 'outside every test file'),
    refused: (error) => console.warn(error.message),
  })
  // Inside a test file every request is its file scenario's (a tool's HTTP too), like a test's.
  state.outside = () => fileDoor(root, updateState) ?? outside
  releaseOutside = acquireInterception(router)
}

let releaseOutside: ((options?: { now?: boolean }) => void) | undefined

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
  state.outside = undefined
}

/** The file scenarios of this worker by test file: open from the first call outside a test until the file ends. */
const fileScenarios = new Map<string, { scenario: TestScenario; test: TestContext } | 'finished'>()

/**
 * The door to the running test file's scenario for its calls made outside every test (module top level,
 * `beforeAll`, `afterAll`): it takes every request, and opens the scenario (named from the file, recorded or
 * replayed like a test's, refused where it can do neither) at the first one it is handed. Once open, the
 * scenario's run itself. `undefined` outside every test file, and after the file's scenario finished.
 */
function fileDoor(root: string, updateState: () => UpdateState): RequestRoute | undefined {
  const running = runningTestRef()
  if (!running?.file) return undefined
  const testFile = resolve(root, running.file)
  const open = fileScenarios.get(testFile)
  if (open === 'finished') return undefined
  if (open) return open.scenario.run
  const hosts = state.options.hosts ?? {}
  return {
    preempts: (request) => detectModelCall(request.method, new URL(request.url), hosts) !== undefined,
    handle(request) {
      const test: TestContext = { runner: running.runner ?? 'vitest', testName: '(outside tests)', testFile, rootDir: root, updateState: updateState(), runs: [], opened: new Set(), fileLevel: true }
      const scenario = openTestScenario(test, state.options)
      // The run belongs to its (file-level) test from the first request.
      scenario.run.register()
      fileScenarios.set(testFile, { scenario, test })
      return scenario.run.handle(request)
    },
  }
}

/**
 * The test file ended (the setups' `afterAll`): write or check its file scenario, if it has one,
 * and throw what the file must fail with (a recorded call never made, a refused call).
 * @example
 * afterAll(() => finishFileScenario())
 */
export async function finishFileScenario(): Promise<void> {
  const running = runningTestRef()
  for (const [file, open] of fileScenarios) {
    if (open === 'finished' || (running?.file && !file.endsWith(running.file))) continue
    fileScenarios.set(file, 'finished')
    await open.scenario.finish(true)
    await finishTest(open.test)
  }
}

/**
 * Whether whole-suite mode covers this test file (`include`: globs relative to the root).
 * @example
 * coversTest(ctx, { scenarios: 'per-test', include: ['test/agents/**'] })
 */
export function coversTest(test: TestContext, options: FluxOptions): boolean {
  if (!perTestMode(options)) return false
  if (!options.include?.length) return true
  const file = relative(test.rootDir, test.testFile).split('\\').join('/')
  return options.include.some((glob) => globToRegExp(glob).test(file))
}

/**
 * Open the running test's scenario, named from its file and full name (the hash is never cut).
 * With no fixture where recording is off (CI, FLUX_OFFLINE), a test that makes no model call still
 * passes; its first model call is refused with the reason and the command that records it.
 * @example
 * const s = openTestScenario(ctx, state.options)
 */
export function openTestScenario(test: TestContext, options: FluxOptions): TestScenario {
  const name = defaultName(test)
  const opened = openCore(name, options, test)
  if ('refused' in opened) return refusingScenario(opened.refused, options, test, name)
  const core = opened.core
  const run = startRun(core, { mode: core.decision.mode, fixture: core.fixture })
  run.checkRedaction()
  test.perTest = {
    outcome: () =>
      new Outcome({
        scenario: name,
        mode: core.decision.mode,
        result: undefined,
        steps: run.orderedSteps(),
        divergences: [...run.divergences],
        modelLive: run.modelLive,
        acknowledge: ((seen) => () => {
          run.acknowledgedUpTo = Math.max(run.acknowledgedUpTo ?? 0, seen)
        })(run.divergences.length),
        pricing: options.pricing,
        commands: outcomeCommands(core),
      }),
  }
  return {
    run,
    drive: async (body) => {
      const { failure } = await run.drive(body)
      if (failure) throw failure.error
    },
    ...attachable(run, core.fixture ? [...replayKeyVars(core.fixture.manifest), ...core.settings.keys] : []),
    async finish(passed) {
      await run.close()
      if (run.fatal) {
        run.acknowledged = true
        throw run.fatal
      }
      const failures = run.divergences.filter((d) => d.severity === 'failure')
      if (core.decision.mode === 'record') {
        // @note SPEC §2: a test that failed while recording writes nothing; one that made no model call has no scenario.
        if (!passed) return
        refuseProviderWithoutModelCall(name, run.recordedCells(), options.hosts)
        if (!run.steps.some((s) => s.channel === 'model')) return
        const steps = asStored(run.orderedSteps())
        saveCore(core, run, renderTrace(name, steps))
        return
      }
      settleTrace({
        dir: core.dir,
        expected: core.fixture?.trace,
        trace: renderTrace(name, run.orderedSteps()),
        faithful: failures.length === 0 && passed,
        rule: traceRule(core.updateState),
        updateState: core.updateState,
        disable: options.redact?.disable,
      })
    },
  }
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
        : "whole-suite mode is off, so the test has no scenario of its own",
    fix: !test
      ? 'Call testOutcome() inside a test body or its afterEach.'
      : "Turn whole-suite mode on (`fluxlab({ scenarios: 'per-test' })`, jest `globals: { fluxlab: { scenarios: 'per-test' } }` or FLUX_SCENARIOS=per-test), or use the Outcome that `await scenario(name).run(agent)` returns.",
  })
}

/** Route a whole worker's traffic to `run` (jest, or a vitest without `aroundEach`), its fixture's key variables filled. */
function attachable(run: Run, keyVars: readonly string[]): Pick<TestScenario, 'attach' | 'detach'> {
  let release: (() => void) | undefined
  return {
    attach() {
      run.register()
      const interception = acquireInterception(router)
      const keys = keyVars.length ? fillReplayKeys(process.env, keyVars) : () => {}
      state.attached = run
      release = () => {
        if (state.attached === run) state.attached = undefined
        keys()
        interception()
      }
    },
    async detach() {
      release?.()
      release = undefined
    },
  }
}

/**
 * A run that can neither record nor replay: it takes only what `refusal` claims, and refuses each request with
 * its own reason (the first is the run's `fatal`).
 * @example
 * const run = refusalRun('(outside tests)', { claims, preempts, error })
 */
function refusalRun(name: string, refusal: Refusal): Run {
  return new Run({ name, dir: '', mode: 'replay', settings: runSettings(state.options, readFlag('FLUX_OFFLINE')), refusal })
}

/**
 * The scenario of a test that can neither replay nor record here: model calls, and any other
 * request to a provider's host (a file upload, a model list), are refused with `refused`; other
 * HTTP passes through as it would without fluxlab, except under FLUX_OFFLINE, which refuses it too
 * (SPEC §2: it forbids every live request, with or without a fixture, to any host).
 */
function refusingScenario(refused: FluxError, options: FluxOptions, test: TestContext, name: string): TestScenario {
  test.perTest = { outcome: () => new Outcome({ scenario: name, mode: 'replay', result: undefined, steps: [] }) }
  const hosts = options.hosts ?? {}
  const offline = readFlag('FLUX_OFFLINE')
  const toProvider = (method: string, url: URL) => isProviderRequest(method, url, hosts)
  const run = refusalRun(name, {
    claims: (method, url) => offline || toProvider(method, url),
    preempts: toProvider,
    error: (request) => (toProvider(request.method, new URL(request.url)) ? refused : offlineError(request, `in test "${test.testName}"`)),
  })
  return {
    run,
    async drive(body) {
      const { failure } = await run.drive(body)
      if (failure) throw failure.error
    },
    ...attachable(run, []),
    async finish() {
      if (run.fatal) throw run.fatal
    },
  }
}

/** The `test.concurrent` tests running now under a runner without per-test async context. */
export interface ConcurrentGroup {
  /** A concurrent test starts (its beforeEach). */
  enter(test: TestContext): void
  /** It ends (its afterEach): the refusal it must fail with, if a model call was refused while it ran. */
  leave(test: TestContext): FluxError | undefined
  /** One of the running concurrent tests, for scenario() to refuse in. */
  running(): TestContext | undefined
}

/**
 * `test.concurrent` where tests cannot be told apart (vitest < 4.1 has no `aroundEach`). In whole-suite mode a
 * model call made outside every `Scenario.run` while any of them runs is refused (never recorded into, or
 * replayed from, the wrong test's scenario), and every concurrent test running then fails with the reason.
 * Other HTTP passes through.
 * @example
 * const group = concurrentGroup(state.options, (name) => ({ runner: 'vitest', name, why, fix }))
 */
export function concurrentGroup(options: FluxOptions, describe: (name: string) => ConcurrentTest): ConcurrentGroup {
  const tests = new Map<TestContext, FluxError | undefined>()
  let release: (() => void) | undefined
  const model = (method: string, url: URL) => detectModelCall(method, url, options.hosts ?? {}) !== undefined
  const run = refusalRun('(concurrent tests)', {
    claims: (method, url) => model(method, url) || readFlag('FLUX_OFFLINE'),
    preempts: model,
    error(request) {
      if (!model(request.method, new URL(request.url))) return offlineError(request, 'in a concurrent test')
      const names = [...tests.keys()].map((t) => t.testName)
      const error = concurrentTestError(describe(names.join('", "')), `send ${request.method} ${hostPath(request)} from one of the concurrent tests "${names.join('", "')}"`)
      console.warn(error.message)
      return error
    },
    refused: (error) => {
      for (const t of tests.keys()) tests.set(t, tests.get(t) ?? error)
    },
  })
  return {
    enter(test) {
      tests.set(test, undefined)
      if (release || !coversTest(test, options)) return
      const stop = acquireInterception(router)
      state.attached = run
      release = () => {
        if (state.attached === run) state.attached = undefined
        stop()
      }
    },
    leave(test) {
      const refused = tests.get(test)
      tests.delete(test)
      if (tests.size === 0) {
        release?.()
        release = undefined
      }
      return refused
    },
    running: () => tests.keys().next().value,
  }
}

/** SPEC §2: FLUX_OFFLINE=1 forbids every live request; this one would have gone to the network. */
function offlineError(request: Request, where: string): FluxError {
  return new FluxError('FLUX_OFFLINE', {
    failed: `send ${request.method} ${hostPath(request)} ${where}`,
    reason: 'FLUX_OFFLINE=1 forbids every live request, and no fixture answers this one (no app mock answered it either)',
    fix: 'Unset FLUX_OFFLINE and record the test where the network is reachable, then commit its fixture; or mock the request in the test.',
  })
}

/** `api.openai.com/v1/chat/completions`: where a request goes, as messages name it. */
function hostPath(request: Request): string {
  const url = new URL(request.url)
  return `${url.host}${url.pathname}`
}

/** `**` any path, `*` any name part, `?` one character. */
function globToRegExp(glob: string): RegExp {
  let re = ''
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]
    if (c === '*' && glob[i + 1] === '*') {
      re += '.*'
      i++
      if (glob[i + 1] === '/') i++
    } else if (c === '*') re += '[^/]*'
    else if (c === '?') re += '[^/]'
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${re}$`)
}

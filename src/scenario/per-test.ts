/**
 * Whole-suite mode (SPEC §2, `scenarios: 'per-test'`): every test is its own scenario, with no
 * change to test bodies. The runner setups open one for each test, drive the test body inside
 * it, and finish it when the test ends.
 */
import { relative, resolve } from 'node:path'
import { findFixtures } from '../cassette/find.js'
import { DEFAULT_DIR } from '../context/options.js'
import { readGolden } from '../golden/update-mode.js'
import type { FluxOptions } from '../context/options.js'
import { claimsRequest, routeRequest, state, type RequestRoute } from '../context/state.js'
import type { TestContext } from '../context/types.js'
import { fillReplayKeys } from '../context/replay-keys.js'
import { FluxError } from '../errors.js'
import { renderTrace } from '../golden/trace.js'
import { acquireInterception } from '../interceptor/index.js'
import { detectModelCall } from '../providers/registry.js'
import { openCore, refuseProviderWithoutModelCall, saveCore, startRun } from './core.js'
import { defaultName } from './names.js'
import { settleTrace, traceRule } from './persist.js'
import { offTapeResponse } from './pipeline/http.js'
import type { Run } from './run.js'
import { asStored } from './stored.js'

/** One test as a scenario, from the moment its hooks start to the moment it ends. */
export interface TestScenario {
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
 * Whether whole-suite mode is on: the `scenarios` option, else `FLUX_SCENARIOS`.
 * @example
 * perTestMode({ scenarios: 'per-test' }) // true
 */
export function perTestMode(options: FluxOptions, env: NodeJS.ProcessEnv = process.env): boolean {
  const v = options.scenarios ?? (env.FLUX_SCENARIOS?.trim() || undefined)
  if (v === undefined || v === 'explicit') return false
  if (v === 'per-test') return true
  throw new FluxError('FLUX_BAD_CONFIG', {
    failed: `read ${options.scenarios !== undefined ? 'the fluxlab option `scenarios`' : 'FLUX_SCENARIOS'}`,
    reason: `${JSON.stringify(v)} is not a valid value`,
    fix: "Use one of: 'explicit' (only what scenario() runs; the default), 'per-test' (every test is its own scenario).",
  })
}

/**
 * Whole-suite mode from the first line: interception is installed when the setup file loads, before
 * any test module is imported, so SDK clients built at import time are seen. A model call made
 * outside every test (module top level, `beforeAll`, `afterAll`) is refused, never sent live silently.
 * @example
 * if (perTestMode(state.options)) interceptFromSetup(rootDir)
 */
export function interceptFromSetup(root: string): void {
  if (state.outside) return
  // SPEC §2: placeholders for the provider keys before test files are collected, so key skip-gates
  // (`describe.skipIf(!process.env.OPENAI_API_KEY)`) run the tests their fixtures replay.
  if (readGolden() !== 'update' && findFixtures(resolve(root, state.options.dir ?? DEFAULT_DIR)).length > 0) fillReplayKeys()
  state.outside = {
    claims: (request) => detectModelCall(request.method, new URL(request.url), state.options.hosts ?? {}) !== undefined,
    async handle(request) {
      const url = new URL(request.url)
      if (!detectModelCall(request.method, url, state.options.hosts ?? {})) return undefined
      const error = new FluxError('FLUX_NOT_IN_TEST', {
        failed: `send ${request.method} ${url.host}${url.pathname}`,
        reason: 'it is a model call made outside every test (module top level, beforeAll or afterAll), which whole-suite mode neither records nor sends live',
        fix: 'Make the call inside a test (or inside `scenario(name).run(agent)` in a beforeAll).',
      })
      console.warn(error.message)
      return offTapeResponse(error.message)
    },
  }
  acquireInterception(routeRequest, claimsRequest)
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
  if ('refused' in opened) return refusingScenario(opened.refused, options)
  const core = opened.core
  const run = startRun(core, { mode: core.decision.mode, fixture: core.fixture })
  run.checkRedaction()
  return {
    drive: async (body) => {
      const { failure } = await run.drive(body)
      if (failure) throw failure.error
    },
    ...attachable(run, core.decision.mode === 'replay'),
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
        saveCore(core, run.recordedCells(), renderTrace(name, steps))
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

/** Route a whole worker's traffic to `run` (jest, or a vitest without `aroundEach`). */
function attachable(run: Run, replay: boolean): Pick<TestScenario, 'attach' | 'detach'> {
  let release: (() => void) | undefined
  return {
    attach() {
      run.register()
      const interception = acquireInterception(routeRequest, claimsRequest)
      const keys = replay ? fillReplayKeys() : () => {}
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
 * The scenario of a test that can neither replay nor record here: model calls are refused with
 * `refused`; other HTTP passes through as it would without fluxlab.
 */
function refusingScenario(refused: FluxError, options: FluxOptions): TestScenario {
  let fatal: FluxError | undefined
  const route: RequestRoute = {
    claims: (request) => detectModelCall(request.method, new URL(request.url), options.hosts ?? {}) !== undefined,
    async handle(request) {
      if (!detectModelCall(request.method, new URL(request.url), options.hosts ?? {})) return undefined
      fatal ??= refused
      return offTapeResponse(refused.message)
    },
  }
  let release: (() => void) | undefined
  return {
    async drive(body) {
      const stop = acquireInterception(routeRequest, claimsRequest)
      try {
        await state.runs.run(route, body)
      } finally {
        stop()
      }
    },
    attach() {
      const stop = acquireInterception(routeRequest, claimsRequest)
      state.attached = route
      release = () => {
        if (state.attached === route) state.attached = undefined
        stop()
      }
    },
    async detach() {
      release?.()
      release = undefined
    },
    async finish() {
      if (fatal) throw fatal
    },
  }
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

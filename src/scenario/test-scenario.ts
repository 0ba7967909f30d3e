/**
 * One test as a scenario (whole-suite mode): its run, opened when its hooks start, driven while its body runs,
 * finished when it ends: written when it recorded, its trace compared when it replayed, refused where it can
 * do neither.
 */
import { relative } from 'node:path'
import type { SourceTest } from '../cassette/cell.js'
import { rerunCommand, testCommand } from '../runners/command.js'
import type { FluxOptions } from '../context/options.js'
import { fillReplayKeys } from '../context/replay-keys.js'
import { state } from '../context/state.js'
import { testRef } from '../context/test-context.js'
import type { TestContext } from '../context/types.js'
import { FluxError, isFluxError } from '../errors.js'
import { readFlag } from '../golden/update-mode.js'
import { renderTrace } from '../golden/trace.js'
import { acquireInterception } from '../sources/index.js'
import { isProviderRequest } from '../providers/registry.js'
import { openCore, reachedAHost, outcomeCommands, refuseProviderWithoutModelCall, saveCore, startRun } from './core.js'
import { fixtureKeyVars } from './key-vars.js'
import { defaultName } from './names.js'
import { Outcome } from './outcome.js'
import { settleTrace, traceRule } from './persist.js'
import { offlineError, refusalRun } from './refusals.js'
import { admit } from './router.js'
import type { Run } from './run.js'
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
 * Open the running test's scenario, named from its file and full name (the hash is never cut).
 * With no fixture where recording is off (CI, FLUX_OFFLINE), a test that makes no model call still
 * passes; its first model call is refused with the reason and the command that records it.
 * @example
 * const s = openTestScenario(ctx, state.options)
 */
export function openTestScenario(test: TestContext, options: FluxOptions): TestScenario {
  const name = defaultName(test)
  const opened = openCore(name, options, test)
  if ('refused' in opened) return refusingScenario(opened.refused, options, test, name, opened.dir)
  const core = opened.core
  const conflict = recordedByAnother(core.fixture?.manifest.source, test, name, core.dir)
  if (conflict) return refusingScenario(conflict, options, test, name, core.dir)
  const run = startRun(core, { mode: core.decision.mode, fixture: core.fixture, toolWrap: 'import', ownServers: true })
  run.checkRedaction()
  test.perTest = {
    outcome: () =>
      new Outcome({
        scenario: name,
        mode: core.decision.mode,
        result: undefined,
        dir: core.dir,
        steps: run.orderedSteps(),
        divergences: [...run.log.divergences],
        modelLive: run.log.modelLive,
        acknowledge: ((seen) => () => {
          run.acknowledgedUpTo = Math.max(run.acknowledgedUpTo ?? 0, seen)
        })(run.log.divergences.length),
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
    ...attachable(run, core.fixture ? [...fixtureKeyVars(core.fixture), ...core.settings.keys] : []),
    async finish(passed) {
      await run.close()
      if (run.log.fatal) {
        run.acknowledged = true
        throw run.log.fatal
      }
      const failures = run.log.divergences.filter((d) => d.severity === 'failure')
      if (core.decision.mode === 'record') {
        // @note SPEC §2: a test that failed while recording writes nothing; one that reached no host outside its own
        // process tree has no scenario (issue 38: a test that only calls a tool API has one).
        if (!passed) return
        const cells = run.recordedCells()
        refuseProviderWithoutModelCall(name, cells, options.hosts)
        if (!reachedAHost(cells)) return
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
 * SPEC §2 "Identity": a test never replays another test's tape. The fixture a test's name leads to says which test
 * recorded it (scenario.yaml `source`); one that names another test (or another of the same name, by order) is refused.
 */
function recordedByAnother(source: SourceTest | undefined, test: TestContext, name: string, dir: string): FluxError | undefined {
  if (!source || (source.name === test.testName && (source.nth ?? 1) === (test.nth ?? 1))) return undefined
  const which = (n: string, nth = 1) => `"${n}"${nth > 1 ? ` (the ${ordinal(nth)} test of that name in its file)` : ''}`
  const rerecord = testCommand(testRef(test), 'FLUX_GOLDEN=update')
  return new FluxError('FLUX_FIXTURE_INVALID', {
    failed: `replay scenario "${name}" for test ${which(test.testName, test.nth)}`,
    reason:
      `its fixture at ${relative(process.cwd(), dir) || dir} was recorded by test ${which(source.name, source.nth)} of ${source.file},` +
      " and a test never replays another test's tape",
    fix: `If it was copied here, move it back; to record this test's own in its place: \`${rerecord}\`.`,
  })
}

const ordinal = (n: number) => `${n}${(n % 100 >= 11 && n % 100 <= 13) || n % 10 > 3 || n % 10 === 0 ? 'th' : ['st', 'nd', 'rd'][(n % 10) - 1]}`

/** Route a whole worker's traffic to `run` (jest, or a vitest without `aroundEach`), its fixture's key variables filled. */
function attachable(run: Run, keyVars: readonly string[]): Pick<TestScenario, 'attach' | 'detach'> {
  let release: (() => void) | undefined
  return {
    attach() {
      run.register()
      const interception = acquireInterception(admit)
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
 * The scenario of a test that can neither replay nor record here: model calls, and any other
 * request to a provider's host (a file upload, a model list), are refused with `refused`; other
 * HTTP passes through as it would without fluxlab, except under FLUX_OFFLINE, which refuses it too
 * (SPEC §2: it forbids every live request, with or without a fixture, to any host).
 */
function refusingScenario(refused: FluxError, options: FluxOptions, test: TestContext, name: string, dir: string): TestScenario {
  test.perTest = { outcome: () => new Outcome({ scenario: name, mode: 'replay', result: undefined, steps: [] }) }
  const hosts = options.hosts ?? {}
  const offline = readFlag('FLUX_OFFLINE')
  const toProvider = (method: string, url: URL) => isProviderRequest(method, url, hosts)
  // @note a test with no fixture where recording is off: that is the cause of every refusal, FLUX_OFFLINE's too
  const noFixture = isFluxError(refused, 'FLUX_NO_RECORDING')
    ? { dir: relative(process.cwd(), dir) || dir, record: rerunCommand(undefined, testRef(test)) }
    : undefined
  const run = refusalRun(name, {
    claims: (method, url) => offline || toProvider(method, url),
    preempts: toProvider,
    error: (request) => (toProvider(request.method, new URL(request.url)) ? refused : offlineError(request, `in test "${test.testName}"`, noFixture)),
  })
  return {
    run,
    async drive(body) {
      const { failure } = await run.drive(body)
      if (failure) throw failure.error
    },
    ...attachable(run, []),
    async finish() {
      if (run.log.fatal) throw run.log.fatal
    },
  }
}

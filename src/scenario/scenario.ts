// @note about 300 lines, on purpose: this is the public `Scenario` API, one method per door (run, whatIf,
// injectAt, check, crashAt, judge, replay), each with its JSDoc example. The work is done in core.ts,
// run.ts, persist.ts, what-if.ts and check.ts.
import { join, relative } from 'node:path'
import type { Fixture } from '../cassette/cell.js'
import { FILES } from '../cassette/fixture-files.js'
import { state } from '../context/state.js'
import { currentTest, rejectConcurrentTest } from '../context/test-context.js'
import { FluxError, isFluxError } from '../errors.js'
import { fixtureSteps, renderTrace } from '../golden/trace.js'
import { assertJudgeOnTape, judgeOnTape, type Verdict } from '../judge/judge-on-tape.js'
import type { Rubric } from '../judge/rubric.js'
import { crashAt, crashMatrix, type AgentModule, type CrashReport, type CrashRow, type CrashWhen } from './crash.js'
import { type CheckReport, runCheck } from './check.js'
import { openCore, outcomeCommands, saveCore, startRun, type ScenarioCore } from './core.js'
import type { Fault } from './faults.js'
import type { WhatIfSpec } from './intervention.js'
import type { Agent } from './lab.js'
import type { ScenarioOptions } from './options.js'
import { Outcome } from './outcome.js'
import { settleTrace, traceRule } from './persist.js'
import type { StepRef } from './steps.js'
import { asStored } from './stored.js'
import { defaultName } from './names.js'
import { WhatIf } from './what-if.js'

export type { Lab } from './lab.js'
export type { ScenarioOptions } from './options.js'

/**
 * Open a scenario: `<dir>/<name>/` (default `tests/scenarios/<name>`). Its mode
 * follows the runner's snapshot update state and `FLUX_GOLDEN` (SPEC §2).
 * @example
 * const s = await scenario('weather')
 * const out = await s.run(() => myAgent('What is the weather in Paris?'))
 * expect(out).toReplayFaithfully()
 */
export async function scenario(name?: string, options: ScenarioOptions = {}): Promise<Scenario> {
  rejectConcurrentTest(state.concurrentTest?.())
  const test = currentTest()
  const opened = openCore(name ?? defaultName(test, test?.perTest ? 'explicit' : undefined), { ...state.options, ...options }, test)
  if ('refused' in opened) throw opened.refused
  return new Scenario(opened.core)
}

/**
 * A recorded (or about to be recorded) agent run. Get one with `scenario()`.
 */
export class Scenario {
  readonly name: string
  readonly dir: string
  readonly fixture: Fixture | undefined
  readonly #core: ScenarioCore
  #runs = 0

  /** @internal use `scenario()` */
  constructor(core: ScenarioCore) {
    this.#core = core
    this.name = core.name
    this.dir = core.dir
    this.fixture = core.fixture
  }

  /** `record` or `replay`. */
  get mode(): 'record' | 'replay' {
    return this.#core.decision.mode
  }

  /**
   * Run the agent with its traffic routed to this scenario: recorded when the
   * fixture is missing, replayed from it otherwise.
   * @example
   * const out = await s.run(() => myAgent('What is the weather in Paris?'))
   */
  async run<R>(fn: Agent<R>): Promise<Outcome<Awaited<R>>> {
    const core = this.#core
    if (this.mode === 'record' && this.#runs > 0)
      throw new FluxError('FLUX_RECORD_FAILED', {
        failed: `run scenario "${this.name}" a second time`,
        reason: 'a scenario records one run',
        fix: 'Open another scenario (`scenario("other-name")`) for a second run.',
      })
    this.#runs++
    const run = startRun(core, { mode: this.mode, fixture: this.fixture })
    run.checkRedaction()
    const { result, failure } = await run.drive(fn)
    if (run.log.fatal) {
      run.acknowledged = true
      throw run.log.fatal
    }
    const failures = run.log.divergences.filter((d) => d.severity === 'failure')
    if (failure) {
      // @note recorded calls left unused are a consequence of the agent stopping early, not a cause:
      // only a request the tape could not serve explains the agent's error.
      const offTape = failures.filter((d) => d.code !== 'unused_interaction')
      run.acknowledged = true
      if (offTape.length === 0 || isFluxError(failure.error)) throw failure.error
      throw new FluxError(
        'FLUX_DIVERGED',
        {
          failed: `replay scenario "${this.name}"`,
          reason:
            `the agent threw (${String((failure.error as Error)?.message ?? failure.error).split('\n')[0]}) after ${offTape[0].step} went off tape ` +
            `(${offTape[0].code})`,
          fix: `If the agent changed on purpose, re-record: ${run.config.command('FLUX_GOLDEN=update')}; otherwise the steps below say what changed.`,
          details: failures.map((d) => `${d.step} ${d.code}: ${d.message}`),
        },
        { cause: failure.error },
      )
    }
    const ordered = run.orderedSteps()
    const trace = renderTrace(this.name, this.mode === 'record' ? asStored(ordered) : ordered)
    const disable = core.options.redact?.disable
    const traceSnapshot =
      this.mode === 'record'
        ? saveCore(core, run, trace)
        : settleTrace({
            dir: this.dir,
            expected: this.fixture?.trace,
            trace,
            faithful: failures.length === 0,
            rule: traceRule(core.updateState),
            updateState: core.updateState,
            disable,
          })
    return new Outcome({
      scenario: this.name,
      mode: this.mode,
      result: result as Awaited<R>,
      steps: ordered,
      divergences: run.log.divergences,
      modelLive: run.log.modelLive,
      acknowledge: () => {
        run.acknowledged = true
      },
      traceSnapshot,
      pricing: core.options.pricing,
      commands: outcomeCommands(core),
    })
  }

  /**
   * Start a what-if over this scenario's recording: one changed variable, the
   * rest of the world frozen (SPEC §7). `spec` starts from a captured one.
   * @example
   * const cf = await s.whatIf().substitute('http.request', { status: 503 }).run(agent)
   * expect(cf).toBeHermetic()
   */
  whatIf(spec: WhatIfSpec = {}): WhatIf {
    return new WhatIf(this.#core, spec)
  }

  /**
   * A fault at a step numbered as in `trace.snap` (`3`, `'model#2'`, `'tool#1'`):
   * a tool error or output, or a model-channel fault (HTTP status, reset, timeout,
   * stream cut). Everything before it is served from tape unchanged.
   * @example
   * const cf = await s.injectAt(3, { error: 'disk full' }).run(agent)
   * expect(cf).toBeCompensatedWith('notify.send')
   */
  injectAt(step: StepRef, fault: Fault): WhatIf {
    return new WhatIf(this.#core, {}).injectAt(step, fault)
  }

  /**
   * Re-drive today's agent against the recording (SPEC §2): model requests that
   * match are served from tape, a miss goes live through the configured provider
   * (counted in `modelLive`); the tool channel stays pinned to the tape and an
   * off-tape tool call halts. Under `FLUX_GOLDEN=update` it re-records the fixture.
   * @example
   * const report = await s.check((lab) => agent(lab.input))
   * expect(report.isClean()).toBe(true)
   */
  async check<R>(fn: Agent<R>): Promise<CheckReport<Awaited<R>>> {
    if (this.mode === 'record') return runCheck(this.#core, fn, () => this.run(fn))
    return runCheck(this.#core, fn)
  }

  /**
   * Crash-cut test at one boundary: run the agent (a module: a function cannot cross into a child process)
   * durably in a child process against this recording, SIGKILL it at `step`, resume it, and report what ran how often.
   * @example
   * const row = await s.crashAt('tool#1', { when: 'before-append', agent: './agent.mjs' })
   */
  crashAt(step: string, opts: { when: CrashWhen; agent: AgentModule }): Promise<CrashRow> {
    return crashAt(this.requireFixture('crash-test'), step, opts.when, opts.agent, this.#core.options.redact)
  }

  /**
   * `crashAt` at every step boundary of the recording, before and after each append.
   * @example
   * expect(await s.crashMatrix('./agent.mjs')).toResumeWithoutReexecution()
   */
  crashMatrix(agent: AgentModule): Promise<CrashReport> {
    return crashMatrix(this.requireFixture('crash-test'), this.name, agent, this.#core.options.redact)
  }

  private requireFixture(verb: string): Fixture {
    if (this.fixture) return this.fixture
    throw new FluxError('FLUX_NO_RECORDING', {
      failed: `${verb} scenario "${this.name}"`,
      reason: `there is no fixture at ${rel(this.dir)} yet`,
      fix: 'Record it first with `await s.run(agent)`, then run the crash test.',
    })
  }

  /**
   * Grade `text` against `criterion` from this scenario's judge.jsonl: PASS or FAIL, no throw on FAIL.
   * Not on tape: FLUX_JUDGE_MISS. FLUX_GOLDEN=judge (or a recording run) grades live and records.
   * @example
   * const v = await s.judge('the answer cites the refund policy', out.text, Rubric.model('openai/gpt-4.1-mini'))
   */
  judge(criterion: string, text: string, rubric: Rubric): Promise<Verdict> {
    return judgeOnTape({ dir: this.dir, scenario: this.name, mode: this.mode, redact: this.#core.options.redact, criterion, text, rubric })
  }

  /**
   * The throwing form of `judge`: FLUX_JUDGE_FAILED with the criterion, rationale and judged text on FAIL.
   * @example
   * await s.assertJudge('the answer cites the refund policy', out.text, Rubric.model('anthropic/claude-haiku-4-5'))
   */
  assertJudge(criterion: string, text: string, rubric: Rubric): Promise<Verdict> {
    return assertJudgeOnTape({ dir: this.dir, scenario: this.name, mode: this.mode, redact: this.#core.options.redact, criterion, text, rubric })
  }

  /**
   * The recorded run as an Outcome, from the fixture alone: no code runs, no
   * model is called, no tool body fires. For asserting on the committed artifact.
   * @example
   * expect(await s.replay()).toNeverCall('write')
   */
  async replay(): Promise<Outcome<undefined>> {
    if (!this.fixture)
      throw new FluxError('FLUX_NO_RECORDING', {
        failed: `replay scenario "${this.name}" from its fixture`,
        reason: `there is no fixture at ${rel(this.dir)} yet`,
        fix: `Record it first with \`await s.run(agent)\` (${outcomeCommands(this.#core).rerecord}), then call s.replay().`,
      })
    const steps = fixtureSteps(this.fixture)
    const trace = renderTrace(this.name, steps)
    const expected = this.fixture.trace
    const traceSnapshot = {
      file: join(this.dir, FILES.trace),
      status: expected === trace ? ('matched' as const) : ('mismatch' as const),
      expected,
      updateState: this.#core.updateState,
    }
    return new Outcome({
      scenario: this.name,
      mode: 'replay',
      result: undefined,
      steps,
      traceSnapshot,
      pricing: this.#core.options.pricing,
      commands: outcomeCommands(this.#core),
    })
  }
}

const rel = (p: string) => relative(process.cwd(), p) || p

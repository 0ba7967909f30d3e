import { stableJson } from '../cassette/stable-json.js'
import { fixtureSteps, renderTrace, type TraceStep } from '../golden/trace.js'
import { outcomeCommands, recordedParent, startRun, type ScenarioCore } from './core.js'
import { Intervention, type Halt } from './intervention.js'
import type { Agent } from './lab.js'
import { Outcome } from './outcome.js'
import { settleTrace } from './persist.js'
import type { LiveMiss } from './pipeline/log.js'

/**
 * What `s.check(agent)` found: did today's agent, re-driven against the
 * recording, make the same plan in the same world without going live?
 * @example
 * const report = await s.check(agent)
 * expect(report.planChanged).toBe(false)
 * expect(report.isClean()).toBe(true)
 */
export interface CheckReportInit<R> {
  outcome: Outcome<R>
  planChanged: boolean
  textChanged: boolean
  leftWorld: boolean
  modelLive: number
  misses?: readonly LiveMiss[]
  recorded: boolean
  error?: unknown
  halted?: Halt
}

export class CheckReport<R = unknown> {
  /** The re-driven run. */
  readonly outcome: Outcome<R>
  /** The trajectory (tool calls with their arguments, in order, and the number of model calls) differs from the recording. */
  readonly planChanged: boolean
  /** The final text differs from the recording. */
  readonly textChanged: boolean
  /** The run asked the tool channel for something the recording cannot explain (and halted there). */
  readonly leftWorld: boolean
  /** Model requests that were not on the tape and went to the provider. */
  readonly modelLive: number
  /** Those requests, with the closest recorded one and a JSON-path diff. */
  readonly misses: readonly LiveMiss[]
  /** True under `FLUX_GOLDEN=update` (or with no fixture yet): the check re-recorded the fixture live. */
  readonly recorded: boolean
  /** What the agent threw after the run left the recorded world, if it did. */
  readonly error?: unknown
  /** Where the tool channel halted, if it did. */
  readonly halted?: Halt

  /** @internal built by `s.check()` */
  constructor(init: CheckReportInit<R>) {
    this.outcome = init.outcome
    this.planChanged = init.planChanged
    this.textChanged = init.textChanged
    this.leftWorld = init.leftWorld
    this.modelLive = init.modelLive
    this.misses = init.misses ?? []
    this.recorded = init.recorded
    this.error = init.error
    this.halted = init.halted
  }

  /** Nothing changed: same plan, same world, no live model call. */
  isClean(): boolean {
    return !this.planChanged && !this.leftWorld && this.modelLive === 0
  }

  /**
   * One paragraph for a log or a failure message.
   * @example
   * console.log(report.summary())
   */
  summary(): string {
    const lines = [
      `check of scenario "${this.outcome.scenario}": ${this.isClean() ? 'clean' : 'changed'}${this.recorded ? ' (re-recorded)' : ''}`,
      `  planChanged: ${this.planChanged} · textChanged: ${this.textChanged} · leftWorld: ${this.leftWorld} · modelLive: ${this.modelLive}`,
    ]
    for (const m of this.misses) lines.push(`  • ${m.step} went live: not on the tape${m.closest ? ` (closest recorded: ${m.closest})` : ''}`)
    if (this.halted) lines.push(`  • ${this.halted.step} halted: ${this.halted.reason}`)
    return lines.join('\n')
  }
}

/**
 * `Scenario.check`: re-drive the agent against the recording with the check's rules
 * (exact keys, model misses live, the tool channel pinned). While the scenario records
 * (`FLUX_GOLDEN=update`, or no fixture yet), `record` re-records it instead.
 * @example
 * const report = await runCheck(core, agent)
 */
export async function runCheck<R>(core: ScenarioCore, fn: Agent<R>, record?: () => Promise<Outcome<Awaited<R>>>): Promise<CheckReport<Awaited<R>>> {
  if (record) {
    // @note SPEC §2 / FLUX_GOLDEN=update: check re-records the fixture through the live client.
    const before = recordedParent(core)
    const outcome = await record()
    const prev = before ? fixtureSteps(before) : undefined
    return new CheckReport({
      outcome,
      planChanged: prev ? planDiffers(prev, outcome) : false,
      textChanged: prev ? textOf(prev) !== outcome.text : false,
      leftWorld: false,
      modelLive: outcome.modelLive,
      recorded: true,
    })
  }
  const fixture = core.fixture!
  const iv = Intervention.forCheck()
  const run = startRun(core, { mode: 'replay', fixture, intervention: iv })
  const { result, failure } = await run.drive(fn)
  run.acknowledged = true
  if (run.log.fatal) throw run.log.fatal
  const steps = run.orderedSteps()
  const trace = renderTrace(core.name, steps)
  const outcome = new Outcome({
    scenario: core.name,
    mode: 'replay',
    result: result as Awaited<R>,
    steps,
    divergences: run.log.divergences,
    modelLive: run.log.modelLive,
    acknowledge: () => {
      run.acknowledged = true
    },
    // @note check never writes trace.snap: it compares only.
    traceSnapshot: settleTrace({ dir: core.dir, expected: fixture.trace, trace, faithful: false, rule: NEVER_WRITE, updateState: core.updateState }),
    pricing: core.options.pricing,
    commands: outcomeCommands(core),
  })
  const recorded = fixtureSteps(fixture)
  const leftWorld = !!iv.halted || run.log.divergences.some((d) => d.code === 'tool_call_unrecorded')
  // @note an agent that throws while the run stayed in the recorded world threw on its own: that is its bug, not a finding.
  if (failure && !leftWorld && run.log.misses.length === 0) throw failure.error
  return new CheckReport({
    outcome,
    planChanged: planDiffers(recorded, outcome),
    textChanged: textOf(recorded) !== outcome.text,
    leftWorld,
    modelLive: run.log.modelLive,
    misses: run.log.misses,
    recorded: false,
    error: failure?.error,
    halted: iv.halted,
  })
}

const NEVER_WRITE = { rewrite: false, writeMissing: false }

/** The plan of a run: its tool calls (name + args, in order) and how many model calls it made. */
function plan(o: Outcome): string {
  return stableJson({ calls: o.calls.map((c) => [c.name, c.args]), modelCalls: o.modelCalls.length })
}

const recordedOutcome = (steps: TraceStep[]) => new Outcome({ scenario: 'recorded', mode: 'replay', result: undefined, steps })

function planDiffers(recorded: TraceStep[], out: Outcome): boolean {
  return plan(recordedOutcome(recorded)) !== plan(out)
}

function textOf(recorded: TraceStep[]): string {
  return recordedOutcome(recorded).text
}

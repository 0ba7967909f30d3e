import stableStringify from 'fast-json-stable-stringify'
import { FILES } from '../cassette/fixture.js'
import { join } from 'node:path'
import type { TraceStep } from '../golden/trace.js'
import { renderTrace } from '../golden/trace.js'
import { Intervention, type Halt } from './intervention.js'
import { Outcome } from './outcome.js'
import type { Lab, Scenario } from './scenario.js'
import type { LiveMiss } from './session.js'
import { fixtureSteps } from './steps.js'

/**
 * What `s.check(agent)` found: did today's agent, re-driven against the
 * recording, make the same plan in the same world without going live?
 * @example
 * const report = await s.check(agent)
 * expect(report.planChanged).toBe(false)
 * expect(report.isClean()).toBe(true)
 */
export class CheckReport<R = unknown> {
  constructor(
    /** The re-driven run. */
    readonly outcome: Outcome<R>,
    /** The trajectory (tool calls with their arguments, in order, and the number of model calls) differs from the recording. */
    readonly planChanged: boolean,
    /** The final text differs from the recording. */
    readonly textChanged: boolean,
    /** The run asked the tool channel for something the recording cannot explain (and halted there). */
    readonly leftWorld: boolean,
    /** Model requests that were not on the tape and went to the provider. */
    readonly modelLive: number,
    /** Those requests, with the closest recorded one and a JSON-path diff. */
    readonly misses: readonly LiveMiss[],
    /** True under `FLUX_GOLDEN=update` (or with no fixture yet): the check re-recorded the fixture live. */
    readonly recorded: boolean,
    /** What the agent threw after the run left the recorded world, if it did. */
    readonly error?: unknown,
    /** Where the tool channel halted, if it did. */
    readonly halted?: Halt,
  ) {}

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

/** @internal `Scenario.check`. */
export async function runCheck<R>(s: Scenario, fn: (lab: Lab) => R | Promise<R>): Promise<CheckReport<Awaited<R>>> {
  const ctx = s.internals()
  if (s.mode === 'record') {
    // @note SPEC §2 / FLUX_GOLDEN=update: check re-records the fixture through the live client.
    const before = ctx.parent()
    const out = await s.run(fn)
    const prev = before ? fixtureSteps(before) : undefined
    return new CheckReport(out, prev ? planDiffers(prev, out) : false, prev ? textOf(prev) !== out.text : false, false, out.modelLive, [], true)
  }
  const fixture = s.fixture!
  const iv = Intervention.forCheck()
  const session = s.newSession({ mode: 'replay', fixture, intervention: iv })
  const { result, failure } = await s.drive(session, fn)
  session.acknowledged = true
  if (session.fatal) throw session.fatal
  const steps = session.orderedSteps()
  const trace = renderTrace(s.name, steps)
  const out = new Outcome(
    s.name,
    'replay',
    result as Awaited<R>,
    steps,
    session.divergences,
    session.modelLive,
    () => {
      session.acknowledged = true
    },
    { file: join(s.dir, FILES.trace), status: fixture.trace === trace ? 'matched' : 'mismatch', expected: fixture.trace, updateState: ctx.updateState },
    ctx.options.pricing,
  )
  const recorded = fixtureSteps(fixture)
  const leftWorld = !!iv.halted || session.divergences.some((d) => d.code === 'tool_call_unrecorded')
  // @note an agent that throws while the run stayed in the recorded world threw on its own: that is its bug, not a finding.
  if (failure && !leftWorld && session.misses.length === 0) throw failure.error
  return new CheckReport(out, planDiffers(recorded, out), textOf(recorded) !== out.text, leftWorld, session.modelLive, session.misses, false, failure?.error, iv.halted)
}

/** The plan of a run: its tool calls (name + args, in order) and how many model calls it made. */
function plan(o: Outcome): string {
  return stableStringify({ calls: o.calls.map((c) => [c.name, c.args]), modelCalls: o.modelCalls.length })
}

function planDiffers(recorded: TraceStep[], out: Outcome): boolean {
  return plan(new Outcome('recorded', 'replay', undefined, recorded, [], 0, () => {})) !== plan(out)
}

function textOf(recorded: TraceStep[]): string {
  return new Outcome('recorded', 'replay', undefined, recorded, [], 0, () => {}).text
}

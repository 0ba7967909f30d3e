import { join, relative } from 'node:path'
import { fixtureExists, readFixture } from '../cassette/fixture.js'
import { FILES } from '../cassette/fixture-files.js'
import { FluxError } from '../errors.js'
import { readGolden } from '../golden/update-mode.js'
import { fixtureSteps, renderTrace, type TraceStep } from '../golden/trace.js'
import { recordedParent, startRun, type ScenarioCore } from './core.js'
import { Counterfactual, type ForkInfo } from './counterfactual.js'
import type { Fault } from './faults.js'
import { forkDir, forkName, type ForkOrigin, writeFork } from './fork.js'
import { Intervention, type OffTape, type ToolMatcher, type ToolPolicy, type WhatIfSpec } from './intervention.js'
import type { Agent } from './lab.js'
import type { TraceSnapshot } from './outcome.js'
import { settleTrace, sourceOf, traceRule } from './persist.js'
import type { RunStep } from './pipeline/log.js'
import type { StepRef } from './steps.js'
import { asStored } from './stored.js'

const OFF_TAPE: readonly OffTape[] = ['halt', 'live']

/**
 * A what-if under construction: one changed variable over a recorded run, the
 * rest of the world frozen. Every method returns a new builder; `run(agent)`
 * runs it, `spec()` captures it for `whatIfOver`. Get one from `s.whatIf()` or `s.injectAt()`.
 * @example
 * const cf = await s.whatIf().model('gpt-4.1-mini').offTape('halt').run(agent)
 * if (!cf.hermetic) console.log(cf.firstDivergence)
 */
export class WhatIf {
  readonly #spec: WhatIfSpec

  /** @internal use `s.whatIf()` */
  constructor(
    private readonly scenario: ScenarioCore,
    spec: WhatIfSpec,
  ) {
    this.#spec = copySpec(spec)
  }

  /**
   * The model turn the change starts at (1-based): `model()`/`instructions()` rewrite
   * from it on; `substitute()` answers only the tool calls that turn asked for.
   * @example
   * s.whatIf().turn(2).model('gpt-4.1-mini')
   */
  turn(n: number): WhatIf {
    return this.with({ turn: n })
  }

  /**
   * Every call of `tool` answers `output` instead of the tape: no model call, no tool
   * body. An HTTP tool takes `{ status, headers?, body? }` (anything else is a 200 JSON
   * body); `'http.request'` names every HTTP tool call.
   * @example
   * s.whatIf().substitute('http.request', { status: 503 })
   * s.whatIf().substitute('get_weather', { tempC: -40 })
   */
  substitute(tool: ToolMatcher, output: unknown): WhatIf {
    return this.with({ substitute: [...(this.#spec.substitute ?? []), { tool, output }] })
  }

  /**
   * The step (as numbered in `trace.snap`) answers `output` instead of the tape.
   * @example
   * s.whatIf().substituteAt('tool#1', { ok: false, reason: 'out of stock' })
   */
  substituteAt(step: StepRef, output: unknown): WhatIf {
    return this.with({ substituteAt: [...(this.#spec.substituteAt ?? []), { at: step, output }] })
  }

  /**
   * A fault at a step (see `Scenario.injectAt`).
   * @example
   * s.whatIf().injectAt('model#2', { status: 429, headers: { 'retry-after': '0' } })
   */
  injectAt(step: StepRef, fault: Fault): WhatIf {
    return this.with({ inject: [...(this.#spec.inject ?? []), { at: step, fault }] })
  }

  /**
   * Send this model id in every model request (the body's `model`; Gemini's URL).
   * @example
   * s.whatIf().model('gpt-4.1-mini')
   */
  model(id: string): WhatIf {
    return this.with({ model: id })
  }

  /**
   * Send this system prompt in every model request (Chat's system message, Responses'
   * `instructions`, Anthropic's `system`, Gemini's `systemInstruction`).
   * @example
   * s.whatIf().instructions('Answer in one word.')
   */
  instructions(text: string): WhatIf {
    return this.with({ instructions: text })
  }

  /**
   * Re-decide every tool dispatch under `policy` (it replaces the recording's wholesale).
   * A denied call records a refusal and halts the run as a denial (not hermetic).
   * @example
   * s.whatIf().policy({ deny: ['refund.issue'] })
   */
  policy(policy: ToolPolicy): WhatIf {
    return this.with({ policy })
  }

  /**
   * What a request the tape cannot explain does after the change: `'halt'` (stop and
   * report it; never spends) or `'live'` (send it to the real provider or tool).
   * Unset: `halt`, and under `FLUX_GOLDEN=update` `live`, which records the fork.
   * @example
   * s.whatIf().model('gpt-4.1-mini').offTape('live')
   */
  offTape(mode: OffTape): WhatIf {
    if (!OFF_TAPE.includes(mode))
      throw new FluxError('FLUX_BAD_CONFIG', {
        failed: `set offTape(${JSON.stringify(mode)})`,
        reason: `${JSON.stringify(mode)} is not a valid value`,
        fix: `Use one of: ${OFF_TAPE.map((m) => `'${m}'`).join(', ')}.`,
      })
    return this.with({ offTape: mode })
  }

  /**
   * Name the fork directory (`<scenario>/forks/<name>/`) instead of deriving it from the change.
   * @example
   * s.injectAt(3, { error: 'disk full' }).named('refund-disk-full')
   */
  named(name: string): WhatIf {
    return this.with({ name })
  }

  /**
   * The change, captured: apply it to other scenarios with `whatIfOver`, or start from it with `s.whatIf(spec)`.
   * @example
   * const spec = s.whatIf().model('gpt-4.1-mini').spec()
   */
  spec(): WhatIfSpec {
    return copySpec(this.#spec)
  }

  /**
   * Run the agent under the change. Resolves even when the run halted (the agent's
   * error is on `cf.error`); rejects only for a wrong what-if (no recording, a step
   * the recording does not have).
   * @example
   * const cf = await s.injectAt(3, { error: 'disk full' }).run(agent)
   */
  run<R>(agent: Agent<R>): Promise<Counterfactual<Awaited<R>>> {
    return runWhatIf(this.scenario, this.#spec, agent)
  }

  private with(patch: WhatIfSpec): WhatIf {
    return new WhatIf(this.scenario, { ...this.#spec, ...patch })
  }
}

function copySpec(spec: WhatIfSpec): WhatIfSpec {
  const out: WhatIfSpec = { ...spec }
  if (spec.inject) out.inject = spec.inject.map((x) => ({ ...x }))
  if (spec.substitute) out.substitute = spec.substitute.map((x) => ({ ...x }))
  if (spec.substituteAt) out.substituteAt = spec.substituteAt.map((x) => ({ ...x }))
  return out
}

const hasChange = (s: WhatIfSpec) =>
  !!(s.inject?.length || s.substitute?.length || s.substituteAt?.length || s.model !== undefined || s.instructions !== undefined || s.policy !== undefined)

const rel = (p: string) => relative(process.cwd(), p) || p

/**
 * Run a what-if over a scenario's recording. The tape is the fork when one was recorded for
 * this change, else the parent; under `FLUX_GOLDEN=update` the run starts from the parent and,
 * when it completes, is written as the fork.
 */
async function runWhatIf<R>(s: ScenarioCore, spec: WhatIfSpec, agent: Agent<R>): Promise<Counterfactual<Awaited<R>>> {
  const parent = recordedParent(s)
  if (!parent)
    throw new FluxError('FLUX_NO_RECORDING', {
      failed: `run a what-if of scenario "${s.name}"`,
      reason: `there is no recording at ${rel(s.dir)} to re-run`,
      fix: 'Record the scenario first with `await s.run(agent)` (and commit it), then run the what-if.',
    })
  if (!hasChange(spec))
    throw new FluxError('FLUX_BAD_CONFIG', {
      failed: `run a what-if of scenario "${s.name}"`,
      reason: 'it changes nothing',
      fix:
        'Add a change: .injectAt(step, fault), .substitute(tool, output), .substituteAt(step, output), .model(id), .instructions(text) or .policy({ ' +
        'allow, deny }).',
    })
  const name = forkName(spec)
  const dir = forkDir(s.dir, name)
  const cfName = `${s.name}/forks/${name}`
  const disable = s.options.redact?.disable
  const recordFork = readGolden() === 'update'
  const fork = !recordFork && fixtureExists(dir) ? readFixture(dir, { disable }) : undefined
  const offTape = spec.offTape ?? (recordFork ? 'live' : 'halt')
  const parentSteps = fixtureSteps(parent)
  const iv = Intervention.forWhatIf(spec, { scenario: s.name, parentSteps, offTape, usingFork: !!fork })
  if (fork) s.test?.opened.add(dir)

  const run = startRun(s, {
    mode: 'replay',
    fixture: fork ?? parent,
    intervention: iv,
    name: cfName,
    input: parent.manifest.input !== undefined ? structuredClone(parent.manifest.input) : undefined,
  })
  const { result, failure } = await run.drive(agent)
  // @note a counterfactual reports its divergences (hermetic, firstDivergence): the end-of-test check must not fail on them.
  run.acknowledged = true
  const error = failure?.error ?? run.log.fatal
  if (run.log.fatal && !iv.halted) iv.halt({ step: 'run', reason: run.log.fatal.message.split('\n')[0], kind: 'offline' })

  // @note cells recorded live in this run are still in memory order: use them as the fixture will store them.
  const stored = asStored(run.orderedSteps())
  const entries = run.log.ordered().map((e, i) => ({ ...e, cell: stored[i].cell }) as RunStep)
  const steps: TraceStep[] = stored
  const trace = renderTrace(cfName, steps)
  const failures = run.log.divergences.filter((d) => d.severity === 'failure')
  let forkInfo: ForkInfo
  let traceSnapshot: TraceSnapshot | undefined
  if (recordFork) {
    const why = iv.halted
      ? `the run halted at ${iv.halted.step} (${iv.halted.reason})`
      : error !== undefined
        ? `the agent threw: ${String((error as Error)?.message ?? error).split('\n')[0]}`
        : failures.length
          ? `${failures[0].step} ${failures[0].code}`
          : undefined
    if (why) forkInfo = { name, dir, status: 'not-written', reason: why }
    else {
      const origin: ForkOrigin = {
        parent: s.name,
        parentRecordedAt: parent.manifest.recordedAt,
        change:
          iv.applied
            .map((a) => a.description)
            .filter((d, i, all) => all.indexOf(d) === i)
            .join(', ') || 'none',
      }
      writeFork({
        dir,
        name: cfName,
        steps,
        trace,
        origin,
        base: parent.manifest,
        source: sourceOf(s.test),
        redaction: s.settings.redactor.marker,
        normalize: s.settings.normalize.marker,
        maxBytes: parent.manifest.cassetteMaxBytes,
        disable,
      })
      s.test?.opened.add(dir)
      forkInfo = { name, dir, status: 'written' }
      traceSnapshot = { file: join(dir, FILES.trace), status: 'added', updateState: s.updateState }
    }
  } else if (fork) {
    const origin = (fork.manifest as { fork?: ForkOrigin }).fork
    forkInfo = { name, dir, status: 'replayed', ...(origin && origin.parentRecordedAt !== parent.manifest.recordedAt ? { stale: true } : {}) }
    traceSnapshot = settleTrace({
      dir,
      expected: fork.trace,
      trace,
      faithful: failures.length === 0 && !iv.halted,
      rule: traceRule(s.updateState),
      updateState: s.updateState,
      disable,
    })
  } else forkInfo = { name, dir, status: 'absent' }

  return new Counterfactual<Awaited<R>>({
    name: cfName,
    parentName: s.name,
    spec,
    result: result as Awaited<R>,
    error,
    steps: entries,
    parentSteps,
    divergences: run.log.divergences,
    modelLive: run.log.modelLive,
    acknowledge: () => {
      run.acknowledged = true
    },
    traceSnapshot,
    pricing: s.options.pricing,
    halted: iv.halted,
    applied: iv.applied,
    changedAt: iv.changedAt,
    fork: forkInfo,
  })
}

import type { Divergence } from '../cassette/divergence.js'
import type { TraceStep } from '../golden/trace.js'
import { costBreakdown, type CostBreakdown, type PricingTable } from '../pricing/index.js'
import type { AppliedChange, Halt, WhatIfSpec } from './intervention.js'
import { Outcome, type TraceSnapshot } from './outcome.js'
import type { RunStep } from './pipeline/log.js'
import { diffRuns, formatDiff, type DiffRow } from './trace-diff.js'

/** The first place a counterfactual run differs from its parent. */
export interface FirstDivergence {
  /** Global step number in the counterfactual's trace. */
  index: number
  /** Its label: `model#2`, `tool#1 refund.issue`. */
  step: string
  /** What the recording had there (the parent's trace lines), when it had a step there. */
  recorded?: string
  /** What the counterfactual did there; for a halt, why the tape could not explain it. */
  actual: string
  /**
   * `change`: the what-if's own change (a fault, a substitute, a rewrite, a denial); `halt`: the frozen world stopped
   * explaining the run; `diverged`: a step the change led to.
   */
  reason: 'change' | 'halt' | 'diverged'
}

/** Where the counterfactual's fixture lives and what this run did with it. */
export interface ForkInfo {
  name: string
  dir: string
  /**
   * - `replayed`: served from the fork recorded earlier
   * - `written`: recorded now (`FLUX_GOLDEN=update`)
   * - `absent`: no fork; served from the parent's tape
   * - `not-written`: `FLUX_GOLDEN=update` asked for it, but the run halted or the agent threw (see `reason`)
   */
  status: 'replayed' | 'written' | 'absent' | 'not-written'
  reason?: string
  /** The fork was recorded from an older parent recording (re-record it with FLUX_GOLDEN=update). */
  stale?: boolean
}

export interface CounterfactualInit<R> {
  name: string
  parentName: string
  spec: WhatIfSpec
  result: R
  error?: unknown
  steps: readonly RunStep[]
  parentSteps: readonly TraceStep[]
  divergences: Divergence[]
  modelLive: number
  acknowledge: () => void
  traceSnapshot?: TraceSnapshot
  pricing?: PricingTable
  halted?: Halt
  applied: AppliedChange[]
  changedAt?: string
  fork: ForkInfo
}

/**
 * A recorded run re-run under one changed variable (SPEC §7). It is an
 * `Outcome` of the counterfactual run (every matcher takes it) plus what the
 * change did against the parent: `firstDivergence`, `diff()`, `hermetic`.
 * A halted counterfactual still resolves: `error` holds the agent's error,
 * `hermetic` is false and `firstDivergence` names the step.
 * @example
 * const cf = await s.injectAt(3, { error: 'disk full' }).run(agent)
 * cf.firstDivergence // { index: 3, step: 'tool#1 refund.issue', reason: 'change', … }
 * console.log(cf.report())
 */
export class Counterfactual<R = unknown> extends Outcome<R> {
  /** The change, as `s.whatIf()…spec()` captures it. */
  readonly spec: WhatIfSpec
  /** The scenario this is a counterfactual of. */
  readonly parentScenario: string
  /** What the agent threw, if it did (a halt usually makes it throw). */
  readonly error?: unknown
  /** Where the frozen world stopped explaining the run, if it did. */
  readonly halted?: Halt
  /** Every step a change fired at, in order. Empty when the run never reached the change. */
  readonly applied: AppliedChange[]
  readonly firstDivergence?: FirstDivergence
  readonly fork: ForkInfo
  private readonly parentSteps: readonly TraceStep[]
  private readonly liveSteps: readonly TraceStep[]
  private rows?: DiffRow[]

  /** @internal built by `WhatIf.run` */
  constructor(init: CounterfactualInit<R>) {
    const steps = init.steps.map(({ channel, cell }) => ({ channel, cell }) as TraceStep)
    const toolLive = init.steps.some((s) => s.live && s.channel === 'tool')
    const hermetic = init.modelLive === 0 && !toolLive && !init.halted && !init.divergences.some((d) => d.severity === 'failure')
    super({
      scenario: init.name,
      mode: 'replay',
      result: init.result,
      steps,
      divergences: init.divergences,
      modelLive: init.modelLive,
      acknowledge: init.acknowledge,
      traceSnapshot: init.traceSnapshot,
      pricing: init.pricing,
      hermetic,
    })
    this.spec = init.spec
    this.parentScenario = init.parentName
    this.error = init.error
    this.halted = init.halted
    this.applied = init.applied
    this.fork = init.fork
    this.parentSteps = init.parentSteps
    this.liveSteps = init.steps.filter((s) => s.live).map(({ channel, cell }) => ({ channel, cell }) as TraceStep)
    this.firstDivergence = this.findFirst()
  }

  /** The counterfactual run itself (this object: a Counterfactual is the Outcome of its run). */
  get outcome(): Outcome<R> {
    return this
  }

  /** The parent's recorded run, from its fixture. */
  get parent(): Outcome<undefined> {
    return new Outcome({ scenario: this.parentScenario, mode: 'replay', result: undefined, steps: [...this.parentSteps], pricing: this.pricing })
  }

  /** True when a change fired (the run reached the changed step). */
  get changed(): boolean {
    return this.applied.length > 0
  }

  /**
   * The rows the change caused, against the parent run: `changed`, `added`,
   * `removed`, and a final `halted` row where the frozen world stopped explaining the run.
   * @example
   * cf.diff() // [{ kind: 'changed', index: 3, step: 'tool#1 refund.issue', recorded: '…', actual: '…', injected: true }, …]
   */
  diff(): DiffRow[] {
    this.rows ??= diffRuns(this.parentSteps, this.steps, this.halted ? { step: this.halted.step, reason: this.halted.reason } : undefined)
    return this.rows
  }

  /**
   * What this run actually spent: the model calls that went live, at list prices
   * (a hermetic counterfactual spends $0). `cost()` prices every model call of the run.
   * @example
   * cf.spend().total // 0
   */
  spend(pricing?: PricingTable): CostBreakdown {
    const live = new Outcome({ scenario: this.scenario, mode: 'replay', result: undefined, steps: [...this.liveSteps] })
    return costBreakdown(live.modelCalls, { ...this.pricing, ...pricing })
  }

  /**
   * The counterfactual in words: the change, hermeticity, the first divergence and the diff.
   * @example
   * console.log(cf.report())
   */
  report(): string {
    const head =
      `what-if ${JSON.stringify(this.scenario)} of scenario ${JSON.stringify(this.parentScenario)}: ` +
      `${this.applied.length ? this.applied.map((a) => `${a.description} at ${a.step}`).join(', ') : 'the change never applied (the run did not reach it)'}`
    const status =
      `hermetic: ${this.hermetic}${this.halted ? ` (halted at ${this.halted.step}: ${this.halted.reason})` : ''} · fork: ` +
      `${this.fork.status}${this.fork.reason ? ` (${this.fork.reason})` : ''}`
    const first = this.firstDivergence
      ? `first divergence: ${this.firstDivergence.index} ${this.firstDivergence.step} (${this.firstDivergence.reason})`
      : 'no divergence from the recording'
    return `${head}\n${status}\n${first}\n${formatDiff(this.diff())}`
  }

  private findFirst(): FirstDivergence | undefined {
    const rows = this.diff()
    const first = rows.find((r) => r.kind !== 'removed') ?? rows[0]
    if (!first) return undefined
    const labels = this.stepLabels()
    if (first.kind === 'removed') {
      // the run stopped short: it diverges where the recorded step was not made
      const index = labels.length + 1
      return { index, step: first.parentStep!, recorded: first.recorded, actual: '(no step: the run ended)', reason: 'diverged' }
    }
    if (first.kind === 'halted') {
      const recorded = this.parent
        .trace()
        .split('\n')
        .find((l) => l.startsWith(`${first.index} `))
        ?.replace(/^\d+ /, '')
      return { index: first.index!, step: first.step!, recorded, actual: `halted: ${first.actual}`, reason: 'halt' }
    }
    const isChange = this.applied.some((a) => a.step === first.step || a.step.split(' ')[0] === first.step?.split(' ')[0])
    return { index: first.index!, step: first.step!, recorded: first.recorded, actual: first.actual!, reason: isChange ? 'change' : 'diverged' }
  }
}

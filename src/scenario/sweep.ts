import type { Counterfactual, FirstDivergence } from './counterfactual.js'
import type { Halt, WhatIfSpec } from './intervention.js'
import { scenario, type Scenario, type Lab, type ScenarioOptions } from './scenario.js'

export interface SweepOptions extends ScenarioOptions {
  /** How many scenarios run at once (default 4). */
  concurrency?: number
}

/** One scenario of a sweep: its counterfactual, or the error that stopped it. */
export interface SweepRow<R = unknown> {
  scenario: string
  /** `error` when the scenario could not be run under the change (no recording, a step it does not have, …). */
  status: 'ok' | 'error'
  /** The counterfactual differs from the recording (its diff has rows). */
  changed?: boolean
  hermetic?: boolean
  halted?: Halt
  firstDivergence?: FirstDivergence
  /** USD this scenario spent live (model calls that went to the provider); `undefined` when a model has no price. */
  spend?: number
  counterfactual?: Counterfactual<R>
  error?: unknown
}

/**
 * What `whatIfOver` found across a corpus: one row per scenario, how many
 * changed, and what the sweep spent.
 * @example
 * console.log(report.table())
 */
export class SweepReport<R = unknown> {
  constructor(
    readonly spec: WhatIfSpec,
    readonly rows: ReadonlyArray<SweepRow<R>>,
  ) {}

  /** Scenarios in the sweep (error rows included). */
  get total(): number {
    return this.rows.length
  }

  /** Scenarios whose counterfactual differs from the recording. */
  get changed(): number {
    return this.rows.filter((r) => r.changed).length
  }

  /** Rows that could not be run. */
  get errors(): ReadonlyArray<SweepRow<R>> {
    return this.rows.filter((r) => r.status === 'error')
  }

  /** What the sweep spent live, in USD (rows with an unpriced model left out). */
  get spend(): number {
    return this.rows.reduce((sum, r) => sum + (r.spend ?? 0), 0)
  }

  /**
   * A fixed-width table: one line per scenario, then the totals.
   * @example
   * report.table()
   * // scenario      status  changed  hermetic  first divergence          spend
   * // refund-a1001  ok      yes      no        3 tool#2 payments.refund  $0
   */
  table(): string {
    const head = ['scenario', 'status', 'changed', 'hermetic', 'first divergence', 'spend']
    const body = this.rows.map((r) =>
      r.status === 'error'
        ? [r.scenario, 'error', '—', '—', clip(errorLine(r.error), 60), '—']
        : [
            r.scenario,
            'ok',
            r.changed ? 'yes' : 'no',
            r.hermetic ? 'yes' : 'no',
            r.firstDivergence ? clip(`${r.firstDivergence.index} ${r.firstDivergence.step}${r.firstDivergence.reason === 'halt' ? ' (halt)' : ''}`, 60) : '—',
            r.spend === undefined ? 'unpriced' : usd(r.spend),
          ],
    )
    const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)))
    const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ')
    const errors = this.errors.length
    const totals = `changed ${this.changed}/${this.total}${errors ? ` · ${errors} error${errors > 1 ? 's' : ''}` : ''} · spent ${usd(this.spend)}`
    return [line(head), ...body.map(line), totals].join('\n')
  }

  toString(): string {
    return this.table()
  }
}

const usd = (n: number) => (n === 0 ? '$0' : `$${n.toPrecision(3)}`)
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s)
const errorLine = (e: unknown) =>
  String((e as Error)?.message ?? e)
    .replace(/^\[fluxlab\] /, '')
    .split('\n')[0]

/**
 * Apply one change (a captured `WhatIfSpec`) across a corpus of recorded
 * scenarios, a few at a time. A scenario that cannot run is an error row, never
 * an abort.
 * @example
 * const spec = (await scenario('refund-a1001')).whatIf().policy({ deny: ['payments.refund'] }).spec()
 * const report = await whatIfOver(['refund-a1001', 'refund-a1002'], spec, (lab) => agent(lab.input))
 * console.log(report.table()) // changed 2/2 · spent $0
 */
export async function whatIfOver<R>(
  scenarios: ReadonlyArray<string | Scenario>,
  spec: WhatIfSpec,
  agent: (lab: Lab) => R | Promise<R>,
  options: SweepOptions = {},
): Promise<SweepReport<Awaited<R>>> {
  const { concurrency = 4, ...scenarioOptions } = options
  const rows: Array<SweepRow<Awaited<R>>> = new Array(scenarios.length)
  let next = 0
  const worker = async () => {
    while (next < scenarios.length) {
      const i = next++
      const item = scenarios[i]
      const name = typeof item === 'string' ? item : item.name
      try {
        const s = typeof item === 'string' ? await scenario(item, scenarioOptions) : item
        const cf = await s.whatIf(spec).run(agent)
        let spend: number | undefined
        try {
          spend = cf.spend().total
        } catch {
          spend = undefined
        }
        rows[i] = {
          scenario: name,
          status: 'ok',
          changed: cf.diff().length > 0,
          hermetic: cf.hermetic,
          halted: cf.halted,
          firstDivergence: cf.firstDivergence,
          spend,
          counterfactual: cf,
        }
      } catch (error) {
        rows[i] = { scenario: name, status: 'error', error }
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, scenarios.length)) }, worker))
  return new SweepReport(spec, rows)
}

/**
 * `fluxlab report --fail-on <rule>[,<rule>…]`: thresholds that make the report exit 1, so a workflow can gate a
 * re-record (documented in docs/cli.md#fail-on). A rule is `<metric>` or `<metric>:+<n>` / `<metric>:+<n>%`:
 *
 * | rule | fails when |
 * |---|---|
 * | `cost`, `cost:+20%`, `cost:+0.05` | the changed fixtures' recorded cost grew at all / by more than 20% / by more than $0.05 |
 * | `tokens`, `tokens:+10%`, `tokens:+500` | their tokens (input + output) grew at all / by more than 10% / by more than 500 |
 * | `steps`, `steps:+2` | a fixture gained or lost a step / gained more than 2 steps |
 * | `changed`, `added`, `removed` | a fixture's behaviour changed / a fixture was added / removed |
 * | `failed`, `drift` | the last run refused, diverged or failed a scenario / warned of drift |
 *
 * The first three groups compare with `--since`, and need it. Growth from nothing (a total of 0 before) exceeds every
 * percentage.
 */
import { usage } from '../errors.js'
import type { FixtureReview } from './review.js'
import type { SuiteEntry } from './suite.js'

const METRICS = ['cost', 'tokens', 'steps', 'changed', 'added', 'removed', 'failed', 'drift'] as const
type Metric = (typeof METRICS)[number]
const WITH_AMOUNT = new Set<Metric>(['cost', 'tokens', 'steps'])
const SINCE = new Set<Metric>(['cost', 'tokens', 'steps', 'changed', 'added', 'removed'])

export interface FailRule {
  /** As written on the command line. */
  text: string
  metric: Metric
  /** Allowed growth: absolute, or a percentage of the total before. None: any growth (any change, for `steps`). */
  over?: { amount: number; percent: boolean }
}

/** One rule the report broke, in words. */
export interface Breach {
  rule: string
  message: string
}

/**
 * Parse the `--fail-on` values (each a comma-separated list). A bad rule is a usage error (exit 64) that names it.
 * @example
 * parseFailOn(['cost:+20%,steps'], true) // [{ text: 'cost:+20%', metric: 'cost', over: { amount: 20, percent: true } }, { text: 'steps', metric: 'steps' }]
 */
export function parseFailOn(values: readonly string[], since: boolean): FailRule[] {
  const rules: FailRule[] = []
  for (const text of values.flatMap((v) => v.split(',')).map((t) => t.trim())) {
    const m = /^([a-z]+)(?::\+(\d+(?:\.\d+)?)(%?))?$/.exec(text)
    const metric = m?.[1] as Metric | undefined
    const grammar = `a rule is <metric> or <metric>:+<n> / <metric>:+<n>% (cost:+20%, tokens:+500, steps, changed); metrics: ${METRICS.join(', ')}`
    if (!text) throw usage('report', `--fail-on got an empty rule; ${grammar}`)
    if (!m || !METRICS.includes(metric!)) {
      const name = /^[a-z]+/.exec(text)?.[0]
      const why = name && !METRICS.includes(name as Metric) ? `there is no metric "${name}"` : 'it does not parse'
      throw usage('report', `--fail-on "${text}": ${why}; ${grammar}`)
    }
    if (m[2] !== undefined && !WITH_AMOUNT.has(metric!))
      throw usage('report', `--fail-on "${text}": ${metric} takes no amount (only cost, tokens and steps do)`)
    if (metric === 'steps' && m[3]) throw usage('report', `--fail-on "${text}": steps takes a count (steps:+2), not a percentage`)
    if (SINCE.has(metric!) && !since) throw usage('report', `--fail-on "${text}": ${metric} compares with a revision; add --since <rev> (or use failed, drift)`)
    rules.push({ text, metric: metric!, ...(m[2] !== undefined ? { over: { amount: Number(m[2]), percent: m[3] === '%' } } : {}) })
  }
  return rules
}

type Side = NonNullable<FixtureReview['after']>

const total = (rs: readonly FixtureReview[], pick: (s: Side) => number, side: 'before' | 'after') => rs.reduce((n, r) => n + (r[side] ? pick(r[side]) : 0), 0)

function grew(rule: FailRule, before: number, after: number, unit: (n: number) => string): string | undefined {
  const delta = after - before
  if (delta <= 0) return undefined
  const pct = before > 0 ? (delta / before) * 100 : Infinity
  const limit = rule.over
  const over = !limit || (limit.percent ? pct > limit.amount : delta > limit.amount)
  if (!over) return undefined
  const growth = before > 0 ? `+${pct.toFixed(1)}%` : 'from nothing'
  return `${unit(before)} → ${unit(after)} (${growth}${limit ? `; allowed +${limit.percent ? `${limit.amount}%` : unit(limit.amount)}` : ''})`
}

/**
 * The rules the report breaks.
 * @example
 * breaches(rules, reviews, entries).map((b) => b.rule) // ['cost:+20%']
 */
export function breaches(rules: readonly FailRule[], reviews: readonly FixtureReview[], entries: readonly SuiteEntry[]): Breach[] {
  const out: Breach[] = []
  const money = (n: number) => `$${n.toFixed(6).replace(/0+$/, '').replace(/\.$/, '')}`
  for (const rule of rules) {
    const names = (rs: ReadonlyArray<{ name: string }>) => rs.map((r) => r.name).join(', ')
    let message: string | undefined
    if (rule.metric === 'cost' || rule.metric === 'tokens') {
      const pick = rule.metric === 'cost' ? (s: Side) => s.cost : (s: Side) => s.tokens.input + s.tokens.output
      const g = grew(rule, total(reviews, pick, 'before'), total(reviews, pick, 'after'), rule.metric === 'cost' ? money : (n) => `${n} tokens`)
      if (g) message = `${rule.metric} of the changed fixtures ${g}`
    } else if (rule.metric === 'steps') {
      const hit = reviews.filter((r) => (rule.over ? (r.after?.steps ?? 0) - (r.before?.steps ?? 0) > rule.over.amount : r.added + r.removed > 0))
      if (hit.length) message = `${rule.over ? `more than ${rule.over.amount} steps added in` : 'steps added or removed in'} ${names(hit)}`
    } else if (rule.metric === 'changed' || rule.metric === 'added' || rule.metric === 'removed') {
      const hit = reviews.filter((r) => (rule.metric === 'changed' ? r.behaviour : r.status === rule.metric))
      if (hit.length) message = `${rule.metric === 'changed' ? 'behaviour changed in' : `${rule.metric}:`} ${names(hit)}`
    } else if (rule.metric === 'failed') {
      const hit = entries.filter((e) => e.last && ['refused', 'diverged', 'failed'].includes(e.last.result))
      if (hit.length) message = `the last run refused, diverged or failed ${names(hit)}`
    } else {
      const hit = entries.filter((e) => e.last?.warnings.some((w) => w.code === 'model_request_drift'))
      if (hit.length) message = `the last run warned of drift in ${names(hit)}`
    }
    if (message) out.push({ rule: rule.text, message })
  }
  return out
}

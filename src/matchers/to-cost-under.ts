import { matcherUtils } from './utils/jest-utils.js'
import { costBreakdown, costOf, priceFor, type CostBreakdown, type PricingTable } from '../pricing/index.js'
import type { NormalizedUsage } from '../providers/types.js'
import type { Outcome } from '../scenario/outcome.js'
import { assertOutcome, hint, printReceived, type FluxMatcherContext, type MatcherResult } from './utils/context.js'
import { traceBlock } from './utils/format.js'

export interface CostUnderOptions {
  /** Prices (USD per million tokens) that win over the built-in table, by model id; `'*'` prices any call nothing else prices. */
  pricing?: PricingTable
}

type Paint = (s: string) => string
/** The runner's colors (vitest and jest both put them on `this.utils`), else jest-matcher-utils'. */
type ColorUtils = { EXPECTED_COLOR?: Paint; RECEIVED_COLOR?: Paint }

/**
 * Passes when the recorded run's model calls, priced at list prices, cost
 * strictly less than `usd`. The replay itself is free; this is what the run
 * cost (or would cost) in production. A model with no known price is an
 * error (pass it in `pricing`), never $0.
 * @example
 * expect(out).toCostUnder(0.05)
 * expect(out).toCostUnder(0.05, { pricing: { 'my-model': { input: 0.15, output: 0.6 } } })
 */
export function toCostUnder(this: FluxMatcherContext, received: unknown, usd: number, options: CostUnderOptions = {}): MatcherResult {
  const name = 'toCostUnder'
  const args = `${typeof usd === 'number' ? usd : 'usd'}${options.pricing ? ', { pricing }' : ''}`
  assertOutcome(this, name, received)
  if (typeof usd !== 'number' || !Number.isFinite(usd) || usd <= 0)
    throw new Error(
      `${hint(this, name, 'usd')}\n\n[fluxlab] ${name} expects a budget in USD greater than 0, such as ${name}(0.05).\nReceived: ${printReceived(this, usd)}`,
    )
  // @note project-wide prices (`fluxlab({ pricing })`) travel on the outcome; the matcher's own win.
  const pricing = { ...received.pricing, ...options.pricing }
  const breakdown = costBreakdown(received.modelCalls, pricing)
  const pass = breakdown.total < usd
  return {
    pass,
    message: () => {
      const utils = this.utils as ColorUtils | undefined
      const expected = (utils?.EXPECTED_COLOR ?? matcherUtils().EXPECTED_COLOR)(budgetText(usd))
      const actual = (utils?.RECEIVED_COLOR ?? matcherUtils().RECEIVED_COLOR)(usdText(breakdown.total, usd))
      const head =
        `${hint(this, name, args)}\n\n` +
        `Expected: ${this.isNot ? 'at least' : 'under'} ${expected}\n` +
        `Received: ${actual}\n\n` +
        renderBreakdown(breakdown)
      return pass ? head : `${head}${priciest(received, pricing)}`
    },
  }
}

/** A budget as given: `$0.0500`, with more decimals only when it has them (`$0.00045`). */
function budgetText(usd: number): string {
  let digits = 4
  while (digits < 10 && Number(usd.toFixed(digits)) !== usd) digits++
  return `$${usd.toFixed(digits)}`
}

/** An amount: `$0.0123`, three significant digits under a cent, never rounded onto a different `other` (`$0.049996`, not `$0.0500`). */
function usdText(amount: number, other?: number): string {
  let digits = amount > 0 && amount < 0.01 ? Math.min(10, Math.max(4, Math.ceil(-Math.log10(amount)) + 2)) : 4
  while (other !== undefined && digits < 10 && amount !== other && Number(amount.toFixed(digits)) === other) digits++
  return `$${amount.toFixed(digits)}`
}

const count = (n: number) => n.toLocaleString('en-US')

function tokens(u: NormalizedUsage): string {
  const cache = [u.cacheRead && `cache read ${count(u.cacheRead)}`, u.cacheWrite && `cache write ${count(u.cacheWrite)}`].filter(Boolean)
  return (
    `in ${count(u.input)}${cache.length ? ` (${cache.join(', ')})` : ''}` +
    ` · out ${count(u.output)}${u.reasoning ? ` (reasoning ${count(u.reasoning)})` : ''}`
  )
}

function renderBreakdown(b: CostBreakdown): string {
  const rows = Object.entries(b.byModel)
    .sort(([, x], [, y]) => y.cost - x.cost)
    .map(([model, m]) => `  • ${model} · ${m.calls} call${m.calls === 1 ? '' : 's'} · ${tokens(m.usage)} → ${usdText(m.cost)}`)
  return `Recorded usage at list prices as of ${b.pricesAsOf}:\n${rows.length ? rows.join('\n') : '  (no model calls)'}`
}

/** The costliest call and the trace around it: where the budget went. */
function priciest(outcome: Outcome, pricing?: PricingTable): string {
  let top: { step: string; model: string; cost: number } | undefined
  for (const c of outcome.modelCalls) {
    const price = c.model ? priceFor(c.model, pricing) : pricing?.['*']
    const cost = price ? costOf(c.usage, price) : 0
    if (!top || cost > top.cost) top = { step: c.step, model: c.model ?? 'unknown', cost }
  }
  if (!top) return ''
  return traceBlock(outcome, top.step, `the costliest call: ${top.model}, ${usdText(top.cost)}`)
}

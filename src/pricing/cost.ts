import { FluxError } from '../errors.js'
import type { NormalizedUsage } from '../providers/types.js'
import { emptyUsage } from '../providers/types.js'
import { closestPriced, priceFor } from './resolve.js'
import { PRICES_AS_OF, type LongContextPrice, type ModelPrice, type PricingTable } from './table.js'

/** What a run's model calls cost, in total and per model id as recorded. */
export interface CostBreakdown {
  /** USD. */
  total: number
  currency: 'USD'
  /** Keyed by the recorded model id (`unknown` for calls that name none and were priced by `'*'`). */
  byModel: Record<string, { usage: NormalizedUsage; price: ModelPrice; cost: number; calls: number }>
  /** The date of the built-in prices (`PRICES_AS_OF`). */
  pricesAsOf: string
}

/** The part of a model call that pricing reads; `step` (`model#2`) only names it in errors. */
export interface PricedCall {
  model?: string
  usage: NormalizedUsage
  step?: string
}

/**
 * USD cost of one call's usage at a price: uncached prompt tokens at `input`,
 * cache reads at `cacheRead`, cache writes at `cacheWrite` (both default to
 * `input`), every output token (reasoning included) at `output`. A prompt
 * over `longContext.threshold` tokens is priced at the long-context rates throughout.
 * @example
 * // gpt-4o-mini, 1000 prompt tokens of which 400 cached, 200 output:
 * costOf({ input: 1000, cacheRead: 400, cacheWrite: 0, output: 200, reasoning: 0 }, { input: 0.15, cacheRead: 0.075, output: 0.6 })
 * // (600 × 0.15 + 400 × 0.075 + 200 × 0.6) / 1e6 = 0.00024
 */
export function costOf(usage: NormalizedUsage, price: ModelPrice): number {
  const rates: ModelPrice | LongContextPrice = price.longContext && usage.input > price.longContext.threshold ? price.longContext : price
  const uncached = Math.max(0, usage.input - usage.cacheRead - usage.cacheWrite)
  return (
    (uncached * rates.input +
      usage.cacheRead * (rates.cacheRead ?? rates.input) +
      usage.cacheWrite * (rates.cacheWrite ?? rates.input) +
      usage.output * rates.output) /
    1_000_000
  )
}

/**
 * Price every model call: `pricing` entries first, then the built-in table
 * (see `priceFor`). Calls are priced one by one (long-context rates are per
 * call) and grouped by recorded model id.
 * @throws FluxError `FLUX_BAD_CONFIG` when a call's model has no price, or names
 * no model, or a `pricing` entry is not a price. An unknown model is never $0.
 * @note a call with no tokens at all (a provider error, a dropped connection)
 * costs nothing whatever its price, so it needs none and is left out.
 * @example
 * costBreakdown(outcome.modelCalls).total // 0.0123
 * costBreakdown(outcome.modelCalls, { 'my-model': { input: 0.15, output: 0.6 } })
 */
export function costBreakdown(modelCalls: readonly PricedCall[], pricing?: PricingTable): CostBreakdown {
  checkPricing(pricing)
  const out: CostBreakdown = { total: 0, currency: 'USD', byModel: {}, pricesAsOf: PRICES_AS_OF }
  const unpriced = new Map<string, string[]>()
  for (const call of modelCalls) {
    const { input, output, cacheRead, cacheWrite } = call.usage
    const free = input + output + cacheRead + cacheWrite === 0
    const price = call.model ? priceFor(call.model, pricing) : pricing?.['*']
    if (!price) {
      if (!free) unpriced.set(call.model ?? '', [...(unpriced.get(call.model ?? '') ?? []), call.step ?? 'a model call'])
      continue
    }
    const key = call.model ?? 'unknown'
    const entry = (out.byModel[key] ??= { usage: emptyUsage(), price, cost: 0, calls: 0 })
    for (const k of ['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning'] as const) entry.usage[k] += call.usage[k]
    const cost = costOf(call.usage, price)
    entry.cost += cost
    entry.calls++
    out.total += cost
  }
  if (unpriced.size > 0) throw unpricedError(unpriced, pricing)
  return out
}

const EXAMPLE_PRICE = '{ input: 0.15, output: 0.6 }'

function unpricedError(unpriced: Map<string, string[]>, pricing?: PricingTable): FluxError {
  const [[model, steps]] = unpriced
  const others = [...unpriced.keys()].slice(1).map((m) => (m ? `"${m}"` : 'a call with no model id'))
  const details = [`${steps.length > 1 ? 'calls' : 'call'}: ${steps.join(', ')}`]
  if (others.length) details.push(`also unpriced: ${others.join(', ')}`)
  const where = `, or in the pricing option of fluxlab()`
  if (!model)
    return new FluxError('FLUX_BAD_CONFIG', {
      failed: `price ${steps[0]}`,
      reason: 'the recorded call names no model, so no price applies, and fluxlab never counts a call as $0',
      fix: `Pass a price in USD per million tokens under the '*' key: expect(out).toCostUnder(0.05, { pricing: { '*': ${EXAMPLE_PRICE} } })${where}.`,
      details,
    })
  const closest = closestPriced(model, pricing)
  if (closest) details.push(`closest priced model: ${closest}`)
  return new FluxError('FLUX_BAD_CONFIG', {
    failed: `price model "${model}"`,
    reason: `it is not in the built-in price table (list prices as of ${PRICES_AS_OF}) nor in the pricing option, and fluxlab never counts it as $0`,
    fix: `Pass its price in USD per million tokens: expect(out).toCostUnder(0.05, { pricing: { '${model}': ${EXAMPLE_PRICE} } })${where}.`,
    details,
  })
}

const RATES = ['input', 'output', 'cacheRead', 'cacheWrite'] as const

/** Reject a pricing table whose entries are not prices (a typo must not price a run at $0 or NaN). */
function checkPricing(pricing: unknown): asserts pricing is PricingTable | undefined {
  if (pricing === undefined) return
  const bad = (key: string, reason: string) =>
    new FluxError('FLUX_BAD_CONFIG', {
      failed: key ? `read the price of "${key}"` : 'read the pricing option',
      reason,
      fix:
        `Pass USD per million tokens, as in { pricing: { 'my-model': { input: 0.15, output: 0.6, cacheRead: 0.075 } } } (cacheRead, cacheWrite and ` +
        `longContext are optional).`,
    })
  if (typeof pricing !== 'object' || pricing === null || Array.isArray(pricing)) throw bad('', `expected an object of prices by model id, got ${show(pricing)}`)
  for (const [key, price] of Object.entries(pricing)) {
    if (typeof price !== 'object' || price === null) throw bad(key, `expected { input, output }, got ${show(price)}`)
    const tiers: Array<[string, Record<string, unknown>]> = [['', price as Record<string, unknown>]]
    const long = (price as ModelPrice).longContext
    if (long !== undefined) {
      if (typeof long !== 'object' || long === null || !isRate(long.threshold) || long.threshold === 0)
        throw bad(key, `longContext.threshold must be a number of prompt tokens above 0, got ${show(long?.threshold)}`)
      tiers.push(['longContext.', long as unknown as Record<string, unknown>])
    }
    for (const [prefix, tier] of tiers)
      for (const rate of RATES) {
        const v = tier[rate]
        const optional = rate === 'cacheRead' || rate === 'cacheWrite'
        if (!(optional && v === undefined) && !isRate(v))
          throw bad(key, `${prefix}${rate} must be a number of USD per million tokens (0 or more), got ${show(v)}`)
      }
  }
}

const isRate = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0
const show = (v: unknown): string => (v === undefined ? 'undefined' : typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v)))

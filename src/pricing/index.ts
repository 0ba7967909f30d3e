/**
 * Token prices and the cost of a recorded run. Runner-agnostic.
 * @example
 * import { costBreakdown, priceFor, PRICES_AS_OF } from './pricing/index.js'
 * costBreakdown(outcome.modelCalls, { 'my-model': { input: 0.15, output: 0.6 } }).total
 */
export { costBreakdown, costOf, type CostBreakdown } from './cost.js'
export { priceFor } from './resolve.js'
export { PRICES, PRICES_AS_OF, type LongContextPrice, type ModelPrice, type PricingTable } from './table.js'

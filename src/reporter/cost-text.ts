/** How the run summary writes money: a cost, and the models it could not price. */

/** How many unpriced models the cost clause names before it counts the rest. */
const UNPRICED_SHOWN = 3

/**
 * The models with no price, as one clause: each once, sorted, the first few named and the rest counted (a suite on
 * a gateway's model ids can have dozens, and the line is the summary's head).
 * @example
 * unpricedClause(['m5', 'm1', 'm2', 'm1', 'm4', 'm3']) // 'no price for m1, m2, m3 (+2 more)'
 */
export function unpricedClause(models: readonly string[]): string {
  const names = [...new Set(models)].sort()
  // one more name costs no more room than "(+1 more)"
  const shown = names.length > UNPRICED_SHOWN + 1 ? names.slice(0, UNPRICED_SHOWN) : names
  return `no price for ${shown.join(', ')}${names.length > shown.length ? ` (+${names.length - shown.length} more)` : ''}`
}

/**
 * A cost in USD as the summary shows it: 4 decimals from a cent up, 3 significant digits below.
 * @example
 * usd(0.0248) // '$0.0248'
 */
export function usd(v: number): string {
  if (v === 0) return '$0'
  if (v >= 0.01) return `$${v.toFixed(4)}`
  return `$${v.toPrecision(3)}`
}

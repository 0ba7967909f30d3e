import { familyTables } from '../providers/registry.js'
import { PRICES, type ModelPrice, type PricingTable } from './table.js'

/**
 * The price of a model id: `overrides` first, then the built-in table; `undefined` when neither prices it.
 * Ids match case-insensitively after dropping a provider prefix (`openai/`,
 * `models/`, anything up to the last `/`) and, for Claude, reading dots as
 * dashes (`claude-haiku-4.5` = `claude-haiku-4-5`). Then the exact id wins,
 * then the id without its snapshot suffix (`-2024-07-18`, `-20251001`,
 * `@20250929`, `-001`), Bedrock's `anthropic.` prefix and `-v1:0` version, or `-latest`. No other prefix matching: an id that is
 * not priced stays unpriced rather than borrowing a sibling's price.
 * The `'*'` key of `overrides` is the last resort.
 * @example
 * priceFor('gpt-4o-mini-2024-07-18') // the gpt-4o-mini price
 * priceFor('models/gemini-2.5-flash') // the gemini-2.5-flash price
 * priceFor('claude-haiku-4.5') // the claude-haiku-4-5 price
 * priceFor('us.anthropic.claude-haiku-4-5-20251001-v1:0') // the claude-haiku-4-5 price (Bedrock)
 * priceFor('my-model', { 'my-model': { input: 0.15, output: 0.6 } }) // { input: 0.15, output: 0.6 }
 */
export function priceFor(model: string, overrides?: PricingTable): ModelPrice | undefined {
  const ids = candidates(model)
  for (const table of overrides ? [overrides, PRICES] : [PRICES]) {
    const index = indexOf(table)
    for (const id of ids) {
      const price = index.get(id)
      if (price) return price
    }
  }
  return overrides?.['*']
}

/**
 * `model` normalized, then with each suffix a family recognizes (`modelIds.suffixes`: a snapshot date, a version)
 * stripped in turn, longest id first, until none is left. Nothing else is ever cut: `gpt-4.1-mini` never falls back to
 * `gpt-4.1`, `gemini-2.5-flash-lite` never to `gemini-2.5-flash`.
 */
export function candidates(model: string): string[] {
  let id = normalizeId(model)
  const out = [id]
  const suffixes = familyTables.modelIds.flatMap((m) => m.suffixes ?? [])
  // @note again until none applies: `-v1:0` (Bedrock) comes off before the date under it (`-20241022`), whatever the
  // families' order.
  for (let cut = true; cut; ) {
    cut = false
    for (const suffix of suffixes) {
      const next = id.replace(suffix, '')
      if (next === id || next === '') continue
      out.push((id = next))
      cut = true
    }
  }
  return out
}

/** The last `/` part of an id, lowercased, without a family's prefix (`modelIds.prefix`) and as its family prices it (`modelIds.rewrite`). */
function normalizeId(model: string): string {
  const id = model.trim().toLowerCase()
  let last = id.slice(id.lastIndexOf('/') + 1)
  for (const m of familyTables.modelIds) if (m.prefix) last = last.replace(m.prefix, '')
  for (const m of familyTables.modelIds) if (m.rewrite) last = m.rewrite(last)
  return last
}

const indexes = new WeakMap<object, Map<string, ModelPrice>>()

/** A table keyed by normalized id (first key wins when two normalize alike). */
function indexOf(table: PricingTable): Map<string, ModelPrice> {
  let index = indexes.get(table)
  if (!index) {
    index = new Map()
    for (const [key, price] of Object.entries(table)) {
      const id = normalizeId(key)
      if (key !== '*' && !index.has(id)) index.set(id, price)
    }
    // @note caching per object means a table mutated after its first use keeps its old index; the built-in one is frozen.
    if (Object.isFrozen(table)) indexes.set(table, index)
  }
  return index
}

/**
 * The priced id closest to `model` (edit distance at most 2, or 3 for long ids), for "did you mean" hints.
 * @example
 * closestPriced('claude-sonet-4-5') // 'claude-sonnet-4-5'
 */
export function closestPriced(model: string, overrides?: PricingTable): string | undefined {
  const target = candidates(model).at(-1) ?? ''
  const limit = target.length > 15 ? 3 : 2
  let best: { id: string; d: number } | undefined
  for (const table of overrides ? [overrides, PRICES] : [PRICES]) {
    for (const id of indexOf(table).keys()) {
      const d = distance(target, id, limit)
      if (d <= limit && (!best || d < best.d)) best = { id, d }
    }
  }
  return best?.id
}

/** Levenshtein distance, giving up (returning `limit + 1`) once every path exceeds `limit`. */
function distance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    if (Math.min(...row) > limit) return limit + 1
    prev = row
  }
  return prev[b.length]
}

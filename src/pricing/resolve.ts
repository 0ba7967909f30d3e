import { PRICES, type ModelPrice, type PricingTable } from './table.js'

/**
 * Suffixes a recorded id may carry on top of a priced one, each stripped in
 * turn (longest id first). Nothing else is ever cut: `gpt-4.1-mini` never
 * falls back to `gpt-4.1`, `gemini-2.5-flash-lite` never to `gemini-2.5-flash`.
 */
const SUFFIXES: readonly RegExp[] = [
  /-v\d+(?::\d+)?$/, // Bedrock: anthropic.claude-3-5-haiku-20241022-v1:0
  /-latest$/, // claude-3-5-haiku-latest
  /@\d{8}$/, // Vertex AI: claude-sonnet-4-5@20250929
  /-\d{4}-\d{2}-\d{2}$/, // OpenAI: gpt-4o-mini-2024-07-18
  /-\d{8}$/, // Anthropic: claude-haiku-4-5-20251001
  /-\d{3}$/, // Gemini stable versions: gemini-2.0-flash-001
]

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

/** `model` normalized, then with each recognized suffix stripped in turn. */
export function candidates(model: string): string[] {
  let id = normalizeId(model)
  const out = [id]
  for (const suffix of SUFFIXES) {
    const next = id.replace(suffix, '')
    if (next !== id && next !== '') out.push((id = next))
  }
  return out
}

/** Bedrock's provider prefix, after an inference profile's region (`us.anthropic.…`, `global.anthropic.…`). */
const BEDROCK_PREFIX = /^(?:(?:us|us-gov|eu|apac|jp|au|ca|global)\.)?anthropic\./

function normalizeId(model: string): string {
  const id = model.trim().toLowerCase()
  const last = id.slice(id.lastIndexOf('/') + 1).replace(BEDROCK_PREFIX, '')
  return last.startsWith('claude') ? last.replace(/\./g, '-') : last
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

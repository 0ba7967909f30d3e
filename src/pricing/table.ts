/**
 * The built-in price table: list prices in USD per million tokens (standard
 * tier: no batch, flex, priority or regional uplift). Prices change; check
 * every entry against the providers' pricing pages when updating, and move
 * `PRICES_AS_OF` with them:
 *   • https://platform.openai.com/docs/pricing
 *   • https://platform.claude.com/docs/en/about-claude/pricing
 *   • https://ai.google.dev/gemini-api/docs/pricing
 *
 * @note Not modelled, so a run that depends on them is priced low: Anthropic
 * 1-hour cache writes (2× input; usage does not say which TTL was written, so
 * the 5-minute rate applies), Gemini explicit-cache storage per hour, audio
 * input rates, per-query tool fees (web search), data-residency uplifts.
 */

/** Rates that replace the base ones for a whole call whose prompt is longer than `threshold` tokens. */
export interface LongContextPrice {
  /** Prompt size (`usage.input`, cached tokens included) above which these rates apply to every token of the call. */
  threshold: number
  input: number
  output: number
  /** Defaults to this tier's `input`. */
  cacheRead?: number
  /** Defaults to this tier's `input`. */
  cacheWrite?: number
}

/**
 * One model's price, USD per million tokens.
 * @example
 * const price: ModelPrice = { input: 0.15, output: 0.6, cacheRead: 0.075 }
 */
export interface ModelPrice {
  /** Prompt tokens neither read from nor written to a cache. */
  input: number
  /** Every generated token, hidden reasoning included. */
  output: number
  /** Prompt tokens read from a cache; defaults to `input`. */
  cacheRead?: number
  /** Prompt tokens written to a cache; defaults to `input`. */
  cacheWrite?: number
  /** Higher rates for long prompts (Gemini Pro over 200K, GPT-5.4/5.5 over 272K, Claude Sonnet 4/4.5 over 200K). */
  longContext?: LongContextPrice
}

/**
 * Prices by model id. Keys are matched like recorded ids: case-insensitive,
 * with provider prefixes, date snapshots and `-latest` stripped (see `priceFor`).
 * The key `'*'` prices every call nothing else prices (a model with no known
 * price, or a recorded call that names no model).
 * @example
 * const pricing: PricingTable = { 'my-model': { input: 0.15, output: 0.6 } }
 */
export type PricingTable = Record<string, ModelPrice>

/**
 * The date the built-in prices were last checked. Sources, as stored copies:
 * Anthropic's pricing and model pages (with tool changelogs re-checked against
 * them on 2026-10-24), OpenAI's announced prices (GPT-5.4 family March 2026,
 * GPT-5.5 April 2026) cross-checked with a public price snapshot of
 * 2026-10-07, Google's Gemini API pricing page (quoted July 2026).
 * @example
 * PRICES_AS_OF // '2026-10-24'
 */
export const PRICES_AS_OF = '2026-10-24'

const GPT_5_5_LONG: LongContextPrice = { threshold: 272_000, input: 10, output: 45, cacheRead: 1 }
const GPT_5_4_LONG: LongContextPrice = { threshold: 272_000, input: 5, output: 22.5, cacheRead: 0.5 }
const SONNET_4_LONG: LongContextPrice = { threshold: 200_000, input: 6, output: 22.5, cacheRead: 0.6, cacheWrite: 7.5 }
const GEMINI_3_PRO_LONG: LongContextPrice = { threshold: 200_000, input: 4, output: 18, cacheRead: 0.4 }

/**
 * The built-in price table (see the file header for sources and what it leaves out).
 * @example
 * PRICES['gpt-4o-mini'] // { input: 0.15, output: 0.6, cacheRead: 0.075 }
 */
export const PRICES: Readonly<PricingTable> = deepFreeze({
  // OpenAI. Cached prompt tokens are billed at `cacheRead`; there is no cache-write charge.
  'gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25 },
  // @note the first GPT-4o snapshot kept its launch price; every later snapshot is priced as gpt-4o.
  'gpt-4o-2024-05-13': { input: 5, output: 15 },
  'chatgpt-4o-latest': { input: 5, output: 15 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cacheRead: 0.075 },
  'gpt-4.1': { input: 2, output: 8, cacheRead: 0.5 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cacheRead: 0.1 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cacheRead: 0.025 },
  o1: { input: 15, output: 60, cacheRead: 7.5 },
  'o1-mini': { input: 1.1, output: 4.4, cacheRead: 0.55 },
  o3: { input: 2, output: 8, cacheRead: 0.5 },
  'o3-mini': { input: 1.1, output: 4.4, cacheRead: 0.55 },
  'o3-pro': { input: 20, output: 80 },
  'o4-mini': { input: 1.1, output: 4.4, cacheRead: 0.275 },
  'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gpt-5-chat': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gpt-5-codex': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cacheRead: 0.005 },
  'gpt-5-pro': { input: 15, output: 120 },
  'gpt-5.1': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gpt-5.1-chat': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gpt-5.1-codex': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gpt-5.1-codex-max': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gpt-5.1-codex-mini': { input: 0.25, output: 2, cacheRead: 0.025 },
  'gpt-5.2': { input: 1.75, output: 14, cacheRead: 0.175 },
  // Unsure: gpt-5.2-codex and gpt-5.3-codex assumed to carry gpt-5.2's price (seen only in third-party tables).
  'gpt-5.2-codex': { input: 1.75, output: 14, cacheRead: 0.175 },
  'gpt-5.3-codex': { input: 1.75, output: 14, cacheRead: 0.175 },
  'gpt-5.4': { input: 2.5, output: 15, cacheRead: 0.25, longContext: GPT_5_4_LONG },
  'gpt-5.4-mini': { input: 0.75, output: 4.5, cacheRead: 0.075 },
  'gpt-5.4-nano': { input: 0.2, output: 1.25, cacheRead: 0.02 },
  'gpt-5.5': { input: 5, output: 30, cacheRead: 0.5, longContext: GPT_5_5_LONG },
  'text-embedding-3-small': { input: 0.02, output: 0 },
  'text-embedding-3-large': { input: 0.13, output: 0 },
  'text-embedding-ada-002': { input: 0.1, output: 0 },

  // Anthropic. 5-minute cache writes are 1.25× input and cache hits 0.1× input, except where noted.
  'claude-3-haiku': { input: 0.25, output: 1.25, cacheRead: 0.03, cacheWrite: 0.3 },
  'claude-3-opus': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
  'claude-3-5-sonnet': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-3-7-sonnet': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  // `claude-opus-4-20250514` and `claude-sonnet-4-20250514` are the snapshots of the `-4-0` aliases.
  'claude-opus-4': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-opus-4-0': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-opus-4-1': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-opus-4-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-6': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-7': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-8': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-sonnet-4': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, longContext: SONNET_4_LONG },
  'claude-sonnet-4-0': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, longContext: SONNET_4_LONG },
  'claude-sonnet-4-5': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, longContext: SONNET_4_LONG },
  // Unsure: whether Sonnet 4.6 / Opus 4.6+ charge a premium past 200K prompt tokens; none is applied.
  'claude-sonnet-4-6': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  'claude-opus-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  // Cache hits at 0.05× input.
  'claude-opus-5-5': { input: 4, output: 20, cacheRead: 0.2, cacheWrite: 5 },
  // Unsure: Sonnet 5 launched at an introductory $2/$10 said to end 2026-08-31; the model page still lists $2/$10.
  'claude-sonnet-5': { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 },
  // Unsure: cache hits cut from $0.20 to $0.10 on 2026-10-07 (tool changelogs; the stored model page shows $0.20).
  'claude-sonnet-5-5': { input: 2, output: 10, cacheRead: 0.1, cacheWrite: 2.5 },
  // Unsure (third-party tables agree; the model page says "from $0.10 / $0.50"): prompts over 100K are priced 5×.
  'claude-haiku-5-5': {
    input: 0.1,
    output: 0.5,
    cacheRead: 0.01,
    cacheWrite: 0.125,
    longContext: { threshold: 100_000, input: 0.5, output: 2.5, cacheRead: 0.05, cacheWrite: 0.625 },
  },
  'claude-fable-5': { input: 10, output: 50, cacheRead: 1, cacheWrite: 12.5 },
  'claude-fable-5-1': { input: 10, output: 50, cacheRead: 0.25, cacheWrite: 12.5 },

  // Google Gemini API (paid tier, text/image/video input). Thinking tokens are billed as output.
  // @note experimental ids were free while they lasted; priced here as the model they previewed.
  'gemini-2.0-flash': { input: 0.1, output: 0.4, cacheRead: 0.025 },
  'gemini-2.0-flash-exp': { input: 0.1, output: 0.4, cacheRead: 0.025 },
  'gemini-2.0-flash-lite': { input: 0.075, output: 0.3 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5, cacheRead: 0.03 },
  'gemini-2.5-flash-lite': { input: 0.1, output: 0.4, cacheRead: 0.01 },
  'gemini-2.5-pro': {
    input: 1.25,
    output: 10,
    cacheRead: 0.125,
    longContext: { threshold: 200_000, input: 2.5, output: 15, cacheRead: 0.25 },
  },
  'gemini-3-pro-preview': { input: 2, output: 12, cacheRead: 0.2, longContext: GEMINI_3_PRO_LONG },
  // Unsure: 3.1 Pro assumed to keep 3 Pro's price, cache rate included.
  'gemini-3.1-pro-preview': { input: 2, output: 12, cacheRead: 0.2, longContext: GEMINI_3_PRO_LONG },
  'gemini-3-flash-preview': { input: 0.5, output: 3, cacheRead: 0.05 },
  // Unsure: seen only in third-party tables.
  'gemini-3.1-flash-lite-preview': { input: 0.25, output: 1.5, cacheRead: 0.025 },
  'gemini-embedding-001': { input: 0.15, output: 0 },
} satisfies PricingTable)

function deepFreeze<T extends object>(o: T): T {
  for (const v of Object.values(o)) if (typeof v === 'object' && v !== null) deepFreeze(v)
  return Object.freeze(o)
}

import { emptyUsage, type NormalizedUsage } from '../types.js'
import { isRecord, num, rec } from '../json.js'

/**
 * Normalize an OpenAI-style `usage` object (Chat Completions, legacy
 * completions, embeddings and the compatible providers).
 * `cached_tokens` is already part of `prompt_tokens` and `reasoning_tokens`
 * part of `completion_tokens`, so both map straight across.
 * @note DeepSeek reports cache hits as `prompt_cache_hit_tokens` instead of
 * `prompt_tokens_details.cached_tokens`; either is read.
 * @example
 * openaiUsage({ prompt_tokens: 167, completion_tokens: 171, completion_tokens_details: { reasoning_tokens: 128 } })
 * // { input: 167, output: 171, cacheRead: 0, cacheWrite: 0, reasoning: 128 }
 */
export function openaiUsage(usage: unknown): NormalizedUsage {
  if (!isRecord(usage)) return emptyUsage()
  const prompt = rec(usage.prompt_tokens_details)
  const completion = rec(usage.completion_tokens_details)
  return {
    input: num(usage.prompt_tokens),
    output: num(usage.completion_tokens),
    cacheRead: num(prompt.cached_tokens) || num(usage.prompt_cache_hit_tokens),
    cacheWrite: 0,
    reasoning: num(completion.reasoning_tokens),
  }
}

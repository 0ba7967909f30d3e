import { createHash } from 'node:crypto'
import { stableJson } from '../cassette/stable-json.js'

/**
 * What identifies a verdict: everything that could change the judge's answer.
 * Strings are redacted before they get here; transport details (base URL, key,
 * timeout) are not part of it, so a verdict recorded through a proxy replays against the real API.
 */
export interface CanonicalJudgeRequest {
  templateVersion: number
  /** `anthropic/claude-haiku-4-5` or `fn:<name>`. */
  model: string
  criterion: string
  text: string
  instructions?: string
  threshold?: number
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')

/**
 * The verdict's key in `judge.jsonl`: `sha256:` + the hash of the canonical request.
 * @example
 * judgeKey({ templateVersion: 1, model: 'openai/gpt-4.1-mini', criterion: 'cites the policy', text: out.text }) // 'sha256:9b1f…'
 */
export function judgeKey(req: CanonicalJudgeRequest): string {
  return `sha256:${sha256(stableJson(req))}`
}

/**
 * A short digest of the judged text, stored instead of the text so `judge.jsonl` stays small.
 * @example
 * textDigest('Paris') // 'sha256:…' (16 hex digits)
 */
export function textDigest(text: string): string {
  return `sha256:${sha256(text).slice(0, 16)}`
}

import type { JudgeReply } from './rubric.js'

/** A validated judge reply. */
export interface CheckedReply {
  verdict: 'PASS' | 'FAIL'
  rationale: string
  score?: number
}

/** The outcome of checking a reply: the reply, or what is wrong with it. */
export type ReplyCheck = { ok: true; reply: CheckedReply } | { ok: false; problem: string }

/**
 * Check a reply value (a parsed JSON object, or what a `Rubric.fn` returned).
 * `verdict` is PASS or FAIL (any case), `rationale` a string when present, `score`
 * a number from 0 to 1 (required for a scored rubric).
 * @example
 * checkReply({ verdict: 'pass', rationale: 'cites it' }, false) // { ok: true, reply: { verdict: 'PASS', rationale: 'cites it' } }
 */
export function checkReply(value: unknown, scored: boolean): ReplyCheck {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, problem: 'expected a JSON object with "verdict" and "rationale"' }
  const v = value as Partial<Record<keyof JudgeReply, unknown>>
  const verdict = typeof v.verdict === 'string' ? v.verdict.trim().toUpperCase() : undefined
  if (verdict !== 'PASS' && verdict !== 'FAIL')
    return { ok: false, problem: `"verdict" must be "PASS" or "FAIL" (got ${v.verdict === undefined ? 'no verdict' : JSON.stringify(v.verdict)})` }
  if (v.rationale !== undefined && typeof v.rationale !== 'string') return { ok: false, problem: '"rationale" must be a string' }
  if (v.score !== undefined && !(typeof v.score === 'number' && Number.isFinite(v.score)))
    return { ok: false, problem: `"score" must be a number (got ${JSON.stringify(v.score)})` }
  if (scored && v.score === undefined) return { ok: false, problem: 'the rubric has a threshold, so the reply needs a "score" from 0 to 1' }
  if (scored && ((v.score as number) < 0 || (v.score as number) > 1)) return { ok: false, problem: `"score" must be from 0 to 1 (got ${String(v.score)})` }
  const reply: CheckedReply = { verdict, rationale: (v.rationale as string | undefined)?.trim() ?? '' }
  if (v.score !== undefined) reply.score = v.score as number
  return { ok: true, reply }
}

/**
 * Parse a judge model's text reply: one JSON object, possibly inside a Markdown
 * code fence or with words around it.
 * @example
 * parseReplyText('```json\n{"verdict":"FAIL","rationale":"no policy cited"}\n```', false)
 */
export function parseReplyText(text: string, scored: boolean): ReplyCheck {
  const t = text
    .trim()
    .replace(/^```(?:json)?\s*\n?([\s\S]*?)\n?```$/i, '$1')
    .trim()
  const candidates = [t]
  const first = t.indexOf('{')
  const last = t.lastIndexOf('}')
  if (first >= 0 && last > first && (first > 0 || last < t.length - 1)) candidates.push(t.slice(first, last + 1))
  for (const c of candidates) {
    let value: unknown
    try {
      value = JSON.parse(c)
    } catch {
      continue
    }
    return checkReply(value, scored)
  }
  return { ok: false, problem: t === '' ? 'the reply is empty' : 'the reply is not a JSON object' }
}

/**
 * The verdict a reply stands for: with a threshold the score decides (`score >= threshold`),
 * otherwise the judge's own PASS/FAIL.
 * @example
 * decide({ verdict: 'FAIL', rationale: '', score: 0.9 }, 0.8) // 'PASS'
 */
export function decide(reply: CheckedReply, threshold: number | undefined): 'PASS' | 'FAIL' {
  if (threshold === undefined || reply.score === undefined) return reply.verdict
  return reply.score >= threshold ? 'PASS' : 'FAIL'
}

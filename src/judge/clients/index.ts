import { FluxError } from '../../errors.js'
import type { JudgePrompt } from '../prompt.js'
import type { Rubric } from '../rubric.js'
import { excerptOf } from '../text.js'
import { checkReply, type CheckedReply } from '../verdict.js'
import { resolveEndpoint } from './endpoint.js'
import { judgeError, postJudge } from './http.js'
import { judgeRequest, judgeReply } from './wire.js'

/**
 * Grade live: call the rubric's judge model (or function) and return its checked reply.
 * A reply that is not a verdict is a `FLUX_JUDGE_ERROR` that shows it (redacted).
 * @example
 * const reply = await gradeLive(Rubric.model('openai/gpt-4.1-mini'), buildPrompt({ criterion, text }), 'grade "x" with openai/gpt-4.1-mini')
 */
export async function gradeLive(rubric: Rubric, prompt: JudgePrompt, what: string, env: NodeJS.ProcessEnv = process.env): Promise<CheckedReply> {
  const scored = rubric.threshold !== undefined
  if (rubric.kind === 'fn') {
    let value: unknown
    try {
      value = await rubric.fn!(prompt)
    } catch (e) {
      throw new FluxError(
        'FLUX_JUDGE_ERROR',
        {
          failed: what,
          reason: `the judge function threw: ${(e as Error)?.message ?? String(e)}`,
          fix: 'Nothing was written to judge.jsonl. Fix the function passed to Rubric.fn().',
        },
        { cause: e },
      )
    }
    const checked = checkReply(value, scored)
    if (!checked.ok)
      throw new FluxError('FLUX_JUDGE_ERROR', {
        failed: what,
        reason: `the judge function returned something that is not a verdict: ${checked.problem}`,
        fix:
          "Nothing was written to judge.jsonl. Return { verdict: 'PASS' | 'FAIL', rationale?: string, score?: number } from the function passed to " +
          'Rubric.fn().',
        details: [`returned: ${excerptOf(safeJson(value))}`],
      })
    return checked.reply
  }
  const endpoint = resolveEndpoint(rubric, env, what)
  const req = judgeRequest(rubric, prompt, endpoint)
  const { json, text, status } = await postJudge({ ...req, timeoutMs: rubric.transport.timeoutMs, retries: rubric.transport.retries, what })
  const checked = judgeReply(rubric, json)
  if (!checked.ok) throw judgeError({ what }, `the judge's reply (HTTP ${status}) is not a verdict: ${checked.problem}`, [`reply: ${excerptOf(text)}`])
  return checked.reply
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v)
  } catch {
    return String(v)
  }
}

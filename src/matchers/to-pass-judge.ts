import type { Verdict } from '../judge/judge-on-tape.js'
import { isRubric } from '../judge/rubric.js'
import { matcherUtils } from './utils/jest-utils.js'
import { assertOutcome, hint, printReceived, type FluxMatcherContext, type MatcherResult } from './utils/context.js'
import { excerpt, inlineExpected, labels, traceBlock, usageError } from './utils/format.js'

/** How much of the judged text a failure message shows. */
const SHOWN = 400

/**
 * Async. Passes when the judge grades the run's final text (`outcome.text`) PASS on
 * `criterion`. The verdict comes from the scenario's `judge.jsonl` ($0, no key); a
 * verdict that is not there is `FLUX_JUDGE_MISS` (re-grade with `FLUX_GOLDEN=judge`),
 * never a live call. On FAIL the message shows the criterion, the judge's rationale
 * and the judged text.
 * @example
 * await expect(out).toPassJudge('the answer cites the refund policy', Rubric.model('anthropic/claude-haiku-4-5'))
 * await expect(out).not.toPassJudge('the answer promises a refund', Rubric.model('openai/gpt-4.1-mini'))
 */
// @note `rubric` is typed by its public shape (what types/matchers.d.ts declares) and checked with isRubric at run time.
export async function toPassJudge(
  this: FluxMatcherContext,
  received: unknown,
  criterion: string,
  rubric: { readonly kind: 'model' | 'fn'; readonly model: string },
): Promise<MatcherResult> {
  const matcher = 'toPassJudge'
  assertOutcome(this, matcher, received)
  if (typeof criterion !== 'string' || criterion.trim() === '')
    usageError(
      this,
      matcher,
      'criterion, rubric',
      '`criterion` must be a non-empty string',
      "Pass what the text must do: toPassJudge('the answer cites the refund policy', rubric)",
      criterion,
    )
  if (!isRubric(rubric))
    usageError(
      this,
      matcher,
      'criterion, rubric',
      '`rubric` must be a Rubric (there is no default judge model)',
      "Pass Rubric.model('anthropic/claude-haiku-4-5') or Rubric.fn(yourJudge)",
      rubric,
    )
  const dir = received.dir
  if (!dir)
    throw new Error(
      `${hint(this, matcher, 'criterion, rubric')}\n\n[fluxlab] This outcome is not tied to a fixture, so there is no judge.jsonl to grade from. Use the ` +
        `Outcome from \`await s.run(...)\` or \`await s.replay()\`.`,
    )
  // @note issue 14: the judge (with zod, YAML and the fixture reader) loads on the first toPassJudge, not with the matchers.
  const { judgeOnTape, regradeCommand } = await import('../judge/judge-on-tape.js')
  const v = await judgeOnTape({ dir, scenario: received.scenario, mode: received.mode, criterion, text: received.text, rubric })
  const step = [...received.modelCalls].reverse().find((c) => c.text)?.step
  return {
    pass: v.pass,
    message: () => {
      const l = labels(this)
      return (
        `${hint(this, matcher, 'criterion, rubric')}\n\n` +
        `${l.expected}${matcherUtils().EXPECTED_COLOR('PASS')} on ${inlineExpected(criterion)}\n` +
        `${l.received}${matcherUtils().RECEIVED_COLOR(v.verdict)} from ${v.model} (${v.source === 'tape' ? 'judge.jsonl' : 'graded live just now'})\n\n` +
        details(this, v) +
        `\n\nIf the judge is wrong, change the criterion or the rubric and re-grade: ${regradeCommand()}.` +
        traceBlock(received, step, 'judged text')
      )
    },
  }
}

function details(ctx: FluxMatcherContext, v: Verdict): string {
  const shown = v.text
    ? `${printReceived(ctx, excerpt(v.text, 0, SHOWN))}${v.text.length > SHOWN ? ` (first ${SHOWN} of ${v.text.length} chars)` : ''}`
    : `${printReceived(ctx, '')} (no model call produced text)`
  return [
    `Rationale:   ${v.rationale || '(none given)'}`,
    ...(v.score !== undefined ? [`Score:       ${v.score}${v.threshold !== undefined ? ` (threshold ${v.threshold})` : ''}`] : []),
    `Judged text: ${shown}`,
  ].join('\n')
}

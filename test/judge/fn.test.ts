/** `Rubric.fn`: your own judge, on tape by default, or graded every time with `tape: false`. */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { Rubric, type JudgePrompt, type JudgeReply } from 'fluxlab'
import { assertJudgeOnTape, judgeOnTape } from '../../src/judge/index.js'
import { rejection, tempDir, useJudgeSandbox } from './helpers.js'

useJudgeSandbox()

const ANSWER = 'Refunds are possible within 30 days, as our refund policy says.'

function keywordJudge() {
  const calls: JudgePrompt[] = []
  const fn = async (p: JudgePrompt): Promise<JudgeReply> => {
    calls.push(p)
    const word = p.criterion.split(' ').pop()!
    return p.text.includes(word) ? { verdict: 'PASS', rationale: `found "${word}"` } : { verdict: 'FAIL', rationale: `no "${word}"` }
  }
  return { fn, calls }
}

describe('Rubric.fn', () => {
  test('records its verdicts under FLUX_GOLDEN=judge and replays them without calling the function', async () => {
    const { fn, calls } = keywordJudge()
    const rubric = Rubric.fn(fn, { name: 'keyword' })
    const dir = tempDir()
    process.env.FLUX_GOLDEN = 'judge'
    const pass = await judgeOnTape({ dir, scenario: 'refund', criterion: 'mentions policy', text: ANSWER, rubric })
    const fail = await judgeOnTape({ dir, scenario: 'refund', criterion: 'mentions shipping', text: ANSWER, rubric })
    expect([pass.verdict, pass.rationale, fail.verdict, fail.rationale]).toEqual(['PASS', 'found "policy"', 'FAIL', 'no "shipping"'])
    expect(calls).toHaveLength(2)
    expect(calls[0]).toMatchObject({ criterion: 'mentions policy', text: ANSWER, templateVersion: 1 })
    expect(calls[0].user).toBe(`<criterion>\nmentions policy\n</criterion>\n\n<text>\n${ANSWER}\n</text>`)
    expect(calls[0].system).toContain('Reply with one JSON object and nothing else')
    delete process.env.FLUX_GOLDEN
    expect((await judgeOnTape({ dir, scenario: 'refund', criterion: 'mentions policy', text: ANSWER, rubric })).source).toBe('tape')
    expect(calls).toHaveLength(2)
    expect(readFileSync(join(dir, 'judge.jsonl'), 'utf8')).toContain('"model":"fn:keyword"')
  })

  test('misses when the function is renamed (its name is the judge)', async () => {
    const { fn } = keywordJudge()
    const dir = tempDir()
    process.env.FLUX_GOLDEN = 'judge'
    await judgeOnTape({ dir, scenario: 'refund', criterion: 'mentions policy', text: ANSWER, rubric: Rubric.fn(fn, { name: 'keyword' }) })
    delete process.env.FLUX_GOLDEN
    const e = await rejection(
      judgeOnTape({ dir, scenario: 'refund', criterion: 'mentions policy', text: ANSWER, rubric: Rubric.fn(fn, { name: 'keyword@2' }) }),
    )
    expect(e.code).toBe('FLUX_JUDGE_MISS')
    expect(e.message).toContain("(runs your fn:keyword@2 judge; the agent's own calls stay on tape)")
    expect(e.message).toContain('judge model differs: recorded fn:keyword, now fn:keyword@2')
  })

  test('grades every time and never touches judge.jsonl with tape: false', async () => {
    const { fn, calls } = keywordJudge()
    const dir = tempDir()
    process.env.CI = '1'
    const rubric = Rubric.fn(fn, { name: 'keyword', tape: false })
    const v = await judgeOnTape({ dir, scenario: 'refund', criterion: 'mentions policy', text: ANSWER, rubric })
    await judgeOnTape({ dir, scenario: 'refund', criterion: 'mentions policy', text: ANSWER, rubric })
    expect(v).toMatchObject({ verdict: 'PASS', source: 'live', model: 'fn:keyword' })
    expect(calls).toHaveLength(2)
    expect(existsSync(join(dir, 'judge.jsonl'))).toBe(false)
  })

  test('decides by score with a threshold, and passes the threshold to the function', async () => {
    const dir = tempDir()
    const seen: Array<number | undefined> = []
    const rubric = Rubric.fn(
      (p) => {
        seen.push(p.threshold)
        return { verdict: 'FAIL', rationale: 'partly', score: 0.75 }
      },
      { name: 'scored', threshold: 0.7 },
    )
    process.env.FLUX_GOLDEN = 'judge'
    const v = await judgeOnTape({ dir, scenario: 'refund', criterion: 'is helpful', text: ANSWER, rubric })
    expect(v).toMatchObject({ verdict: 'PASS', score: 0.75, threshold: 0.7 })
    expect(seen).toEqual([0.7])
    const strict = Rubric.fn(() => ({ verdict: 'PASS', rationale: 'ok', score: 0.75 }), { name: 'scored', threshold: 0.8 })
    expect((await judgeOnTape({ dir, scenario: 'refund', criterion: 'is helpful', text: ANSWER, rubric: strict })).verdict).toBe('FAIL')
  })

  test('fails when the function throws or returns something that is not a verdict, and writes nothing', async () => {
    const dir = tempDir()
    process.env.FLUX_GOLDEN = 'judge'
    const thrown = await rejection(
      judgeOnTape({
        dir,
        scenario: 'refund',
        criterion: 'mentions policy',
        text: ANSWER,
        rubric: Rubric.fn(
          () => {
            throw new Error('rate limited')
          },
          { name: 'boom' },
        ),
      }),
    )
    expect(thrown.code).toBe('FLUX_JUDGE_ERROR')
    expect(thrown.message).toContain('Failed to grade "mentions policy" with fn:boom: the judge function threw: rate limited.')
    const garbage = await rejection(
      judgeOnTape({
        dir,
        scenario: 'refund',
        criterion: 'mentions policy',
        text: ANSWER,
        rubric: Rubric.fn(() => ({ verdict: 'maybe' }) as never, { name: 'unsure' }),
      }),
    )
    expect(garbage.message).toContain('the judge function returned something that is not a verdict: "verdict" must be "PASS" or "FAIL" (got "maybe")')
    expect(garbage.message).toContain('  • returned: {"verdict":"maybe"}')
    const unscored = await rejection(
      judgeOnTape({
        dir,
        scenario: 'refund',
        criterion: 'mentions policy',
        text: ANSWER,
        rubric: Rubric.fn(() => ({ verdict: 'PASS' }), { name: 'x', threshold: 0.5 }),
      }),
    )
    expect(unscored.message).toContain('the rubric has a threshold, so the reply needs a "score" from 0 to 1')
    expect(existsSync(join(dir, 'judge.jsonl'))).toBe(false)
  })

  test('assertJudgeOnTape resolves on PASS and throws FLUX_JUDGE_FAILED with the rationale and judged text on FAIL', async () => {
    const { fn } = keywordJudge()
    const rubric = Rubric.fn(fn, { name: 'keyword' })
    const dir = tempDir()
    process.env.FLUX_GOLDEN = 'judge'
    await judgeOnTape({ dir, scenario: 'refund', criterion: 'mentions policy', text: ANSWER, rubric })
    await judgeOnTape({ dir, scenario: 'refund', criterion: 'mentions shipping', text: ANSWER, rubric })
    delete process.env.FLUX_GOLDEN
    expect((await assertJudgeOnTape({ dir, scenario: 'refund', criterion: 'mentions policy', text: ANSWER, rubric })).verdict).toBe('PASS')
    const e = await rejection(assertJudgeOnTape({ dir, scenario: 'refund', criterion: 'mentions shipping', text: ANSWER, rubric }))
    expect(e.code).toBe('FLUX_JUDGE_FAILED')
    expect(e.message).toMatchInlineSnapshot(`
      "[fluxlab] FLUX_JUDGE_FAILED: Failed to pass the judge in scenario "refund": fn:keyword graded "mentions shipping" FAIL. If the agent is right and the judge is wrong, change the criterion or the rubric and re-grade with \`FLUX_GOLDEN=judge npx vitest run test/judge/fn.test.ts -t '^Rubric\\.fn assertJudgeOnTape resolves on PASS and throws FLUX_JUDGE_FAILED with the rationale and judged text on FAIL$'\`.
        • rationale: no "shipping"
        • judged text: "Refunds are possible within 30 days, as our refund policy says."
        • verdict from judge.jsonl"
    `)
  })
})

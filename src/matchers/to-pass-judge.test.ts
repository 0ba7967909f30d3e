import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { judgeOnTape } from '../judge/judge-on-tape.js'
import type { JudgePrompt } from '../judge/prompt.js'
import { Rubric } from '../judge/rubric.js'
import type { TraceStep } from '../golden/trace.js'
import { Outcome } from '../scenario/outcome.js'
import { toPassJudge } from './to-pass-judge.js'
import { model, testOutcome, tool } from './utils/test-outcome.js'

expect.extend({ toPassJudge })
/** A judge that passes when the criterion's last word is in the text. */
const keyword = Rubric.fn(
  ({ criterion, text }: JudgePrompt) => {
    const word = criterion.split(' ').pop()!
    return text.includes(word)
      ? { verdict: 'PASS', rationale: `The text names ${word}.` }
      : { verdict: 'FAIL', rationale: `The text never names ${word}; it only covers London and Paris.` }
  },
  { name: 'keyword' },
)
const scored = Rubric.fn(() => ({ verdict: 'PASS', rationale: 'Covers two of three capitals.', score: 0.67 }), { name: 'coverage', threshold: 0.8 })

const dir = mkdtempSync(join(tmpdir(), 'flux-to-pass-judge-'))
const TEXT = 'The capital of the UK is London; the capital of France is Paris (population 2.1M).'

function outcomeIn(fixtureDir: string | undefined, steps: TraceStep[]): Outcome {
  const numbered = testOutcome({ steps }) // numbers the cells the way a run does
  return new Outcome({
    scenario: numbered.scenario,
    mode: 'replay',
    result: undefined,
    steps,
    traceSnapshot: fixtureDir ? { file: join(fixtureDir, 'trace.snap'), status: 'matched' } : undefined,
  })
}
const capitals = () => [
  model({ toolCalls: [{ name: 'get_capital', id: 'call_uk000001', args: { country: 'UK' } }] }),
  tool({ name: 'get_capital', callId: 'call_uk000001', args: { country: 'UK' }, output: 'London' }),
  model({ text: TEXT }),
]
const out = outcomeIn(dir, capitals())

const saved = process.env.FLUX_GOLDEN
const restore = () => (saved === undefined ? delete process.env.FLUX_GOLDEN : (process.env.FLUX_GOLDEN = saved))
beforeAll(async () => {
  process.env.FLUX_GOLDEN = 'judge'
  try {
    for (const criterion of ['names London', 'names Berlin']) await judgeOnTape({ dir, scenario: 'capitals', criterion, text: TEXT, rubric: keyword })
    await judgeOnTape({ dir, scenario: 'capitals', criterion: 'covers every capital asked about', text: TEXT, rubric: scored })
  } finally {
    restore()
  }
})
beforeEach(() => void delete process.env.FLUX_GOLDEN)
afterEach(restore)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The message of the assertion's rejection, without ANSI colours. */
async function messageOf(p: Promise<unknown>): Promise<string> {
  try {
    await p
  } catch (e) {
    return (e as Error).message.replace(/\u001b\[[0-9;]*m/g, '')
  }
  throw new Error('expected the assertion to fail, and it passed')
}

describe('.toPassJudge', () => {
  it('passes when the recorded verdict is PASS', async () => {
    await expect(out).toPassJudge('names London', keyword)
    await expect(Promise.resolve(out)).resolves.toPassJudge('names London', keyword)
  })

  it('fails when the recorded verdict is FAIL, showing the criterion, the rationale and the judged text', async () => {
    expect(await messageOf(expect(out).toPassJudge('names Berlin', keyword))).toMatchInlineSnapshot(`
      "expect(outcome).toPassJudge(criterion, rubric)

      Expected: PASS on "names Berlin"
      Received: FAIL from fn:keyword (judge.jsonl)

      Rationale:   The text never names Berlin; it only covers London and Paris.
      Judged text: "The capital of the UK is London; the capital of France is Paris (population 2.1M)."

      If the judge is wrong, change the criterion or the rubric and re-grade: FLUX_GOLDEN=judge npx vitest run src/matchers/to-pass-judge.test.ts -t '^\\.toPassJudge fails when the recorded verdict is FAIL, showing the criterion, the rationale and the judged text$'.

      Trace around model#2 (judged text):
        1 model#1 openai-chat gpt-4o-mini · in 50 · out 10 · tool_calls
            → get_capital call_<1> {"country":"UK"}
        2 tool#1 get_capital call_<1> {"country":"UK"} → "London"
      › 3 model#2 openai-chat gpt-4o-mini · in 50 · out 10 · stop
            text: "The capital of the UK is London; the capital of France is Paris (population 2.1M)."
        final: "The capital of the UK is London; the capital of France is Paris (population 2.1M).""
    `)
  })

  it('fails when the score is under the threshold, showing both', async () => {
    expect(await messageOf(expect(out).toPassJudge('covers every capital asked about', scored))).toMatchInlineSnapshot(`
      "expect(outcome).toPassJudge(criterion, rubric)

      Expected: PASS on "covers every capital asked about"
      Received: FAIL from fn:coverage (judge.jsonl)

      Rationale:   Covers two of three capitals.
      Score:       0.67 (threshold 0.8)
      Judged text: "The capital of the UK is London; the capital of France is Paris (population 2.1M)."

      If the judge is wrong, change the criterion or the rubric and re-grade: FLUX_GOLDEN=judge npx vitest run src/matchers/to-pass-judge.test.ts -t '^\\.toPassJudge fails when the score is under the threshold, showing both$'.

      Trace around model#2 (judged text):
        1 model#1 openai-chat gpt-4o-mini · in 50 · out 10 · tool_calls
            → get_capital call_<1> {"country":"UK"}
        2 tool#1 get_capital call_<1> {"country":"UK"} → "London"
      › 3 model#2 openai-chat gpt-4o-mini · in 50 · out 10 · stop
            text: "The capital of the UK is London; the capital of France is Paris (population 2.1M)."
        final: "The capital of the UK is London; the capital of France is Paris (population 2.1M).""
    `)
  })

  it('rejects with FLUX_JUDGE_MISS when judge.jsonl has no verdict for it, instead of passing or failing', async () => {
    const message = await messageOf(expect(out).toPassJudge('names Madrid', keyword))
    expect(message).toContain('[fluxlab] FLUX_JUDGE_MISS: Failed to grade "names Madrid" in scenario "capitals"')
    expect(message).toContain(
      "Record it with `FLUX_GOLDEN=judge npx vitest run src/matchers/to-pass-judge.test.ts -t '^\\.toPassJudge rejects with FLUX_JUDGE_MISS",
    )
  })

  it('grades live under FLUX_GOLDEN=judge and says so', async () => {
    process.env.FLUX_GOLDEN = 'judge'
    const message = await messageOf(expect(out).toPassJudge('names Berlin', keyword))
    expect(message).toContain('Received: FAIL from fn:keyword (graded live just now)')
  })

  it('throws when received is not an Outcome', async () => {
    await expect(expect('London').toPassJudge('names London', keyword)).rejects.toThrow(/toPassJudge expects the Outcome/)
  })

  it('throws when the outcome is not tied to a fixture', async () => {
    await expect(expect(outcomeIn(undefined, capitals())).toPassJudge('names London', keyword)).rejects.toThrow(
      /not tied to a fixture, so there is no judge\.jsonl/,
    )
  })

  it('throws when the rubric is not a Rubric or the criterion is empty', async () => {
    await expect(expect(out).toPassJudge('names London', 'anthropic/claude-haiku-4-5' as never)).rejects.toThrow(
      /`rubric` must be a Rubric \(there is no default judge model\)/,
    )
    await expect(expect(out).toPassJudge('', keyword)).rejects.toThrow(/`criterion` must be a non-empty string/)
  })
})

describe('.not.toPassJudge', () => {
  it('passes when the recorded verdict is FAIL', async () => {
    await expect(out).not.toPassJudge('names Berlin', keyword)
  })

  it('fails when the recorded verdict is PASS', async () => {
    expect(await messageOf(expect(out).not.toPassJudge('names London', keyword))).toMatchInlineSnapshot(`
      "expect(outcome).not.toPassJudge(criterion, rubric)

      Expected: not PASS on "names London"
      Received:     PASS from fn:keyword (judge.jsonl)

      Rationale:   The text names London.
      Judged text: "The capital of the UK is London; the capital of France is Paris (population 2.1M)."

      If the judge is wrong, change the criterion or the rubric and re-grade: FLUX_GOLDEN=judge npx vitest run src/matchers/to-pass-judge.test.ts -t '^\\.not\\.toPassJudge fails when the recorded verdict is PASS$'.

      Trace around model#2 (judged text):
        1 model#1 openai-chat gpt-4o-mini · in 50 · out 10 · tool_calls
            → get_capital call_<1> {"country":"UK"}
        2 tool#1 get_capital call_<1> {"country":"UK"} → "London"
      › 3 model#2 openai-chat gpt-4o-mini · in 50 · out 10 · stop
            text: "The capital of the UK is London; the capital of France is Paris (population 2.1M)."
        final: "The capital of the UK is London; the capital of France is Paris (population 2.1M).""
    `)
  })
})

/**
 * Judges on a real scenario: an agent (the openai SDK) against a local provider,
 * `toPassJudge` against a local Anthropic-style judge. The first local run records the
 * agent and grades live; later runs replay both for $0 with every server stopped;
 * FLUX_GOLDEN=judge re-grades while the agent's model calls stay on tape. A judge call
 * made inside `s.run` passes through interception and is never recorded as a model call.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import OpenAI from 'openai'
import { describe, expect, test, vi } from 'vitest'
import { Rubric, scenario, type Outcome } from 'fluxlab'
import { toPassJudge } from 'fluxlab/matchers'
import { finishJudgeTapes, judgeOnTape } from '../../src/judge/index.js'
import { startProviderServer, type Exchange, type ProviderServer } from '../support/index.js'
import { FAKE_KEYS, judgeServer, rejection, stripAnsi, tempDir, useFamily, useJudgeSandbox } from './helpers.js'

expect.extend({ toPassJudge })
useJudgeSandbox()

const ANSWER = 'You can get a refund within 30 days: that is our refund policy.'
const exchange: Exchange = {
  method: 'POST',
  path: '/v1/chat/completions',
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    id: 'chatcmpl-refund1',
    object: 'chat.completion',
    created: 1770000000,
    model: 'gpt-4o-mini-2024-07-18',
    choices: [{ index: 0, message: { role: 'assistant', content: ANSWER }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 20, completion_tokens: 15, total_tokens: 35 },
  }),
}

async function provider(): Promise<ProviderServer> {
  return startProviderServer({ script: () => exchange })
}

const agent = (server: ProviderServer) => async () => {
  const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: process.env.OPENAI_API_KEY ?? 'none', maxRetries: 0 })
  const res = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Can I get my money back?' }] })
  return res.choices[0].message.content
}

const judge = Rubric.model('anthropic/claude-haiku-4-5')
const PASSING = 'the answer cites the refund policy'
const FAILING = 'the answer mentions shipping'

describe('toPassJudge on a scenario', () => {
  test('grades live while recording, replays verdicts with every server stopped, and re-grades with FLUX_GOLDEN=judge', async () => {
    const dir = tempDir()
    const llm = await provider()
    const grader = await judgeServer()
    useFamily('anthropic', grader)
    process.env.OPENAI_API_KEY = FAKE_KEYS.openai

    // 1. first local run: the agent is recorded and the judge grades live
    const s1 = await scenario('refund', { dir })
    expect(s1.mode).toBe('record')
    const recorded = await s1.run(agent(llm))
    await expect(recorded).toPassJudge(PASSING, judge)
    await expect(recorded).not.toPassJudge(FAILING, judge)
    expect(grader.hits).toBe(2)

    // 2. a plain run: no key, no network, $0
    await llm.close()
    await grader.close()
    for (const k of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY']) delete process.env[k]
    const s2 = await scenario('refund', { dir })
    const replayed = await s2.run(agent(llm))
    expect(replayed.mode).toBe('replay')
    await expect(replayed).toPassJudge(PASSING, judge)
    await expect(replayed).not.toPassJudge(FAILING, judge)
    await expect(await s2.replay()).toPassJudge(PASSING, judge)
    expect(replayed.hermetic).toBe(true)

    // 3. a rubric change misses, and names the command that re-grades
    const stricter = Rubric.model('anthropic/claude-haiku-4-5', { instructions: 'The policy must be quoted.' })
    const miss = await rejection(expect(replayed).toPassJudge(PASSING, stricter))
    expect(stripAnsi(miss.message)).toContain('FLUX_JUDGE_MISS')
    expect(stripAnsi(miss.message)).toContain('rubric instructions differ: recorded none, now "The policy must be quoted."')

    // 4. FLUX_GOLDEN=judge (a new test-file run) re-grades with a judge key only: the agent's calls
    //    stay on tape (its provider is gone), and the stale verdict of the old rubric is replaced
    finishJudgeTapes({ prune: false })
    const grader2 = await judgeServer()
    useFamily('anthropic', grader2)
    process.env.FLUX_GOLDEN = 'judge'
    const s3 = await scenario('refund', { dir })
    expect(s3.mode).toBe('replay')
    const regraded = await s3.run(agent(llm))
    expect(regraded.hermetic).toBe(true)
    const warned: string[] = []
    const warn = vi.spyOn(console, 'warn').mockImplementation((m) => void warned.push(String(m)))
    try {
      await expect(regraded).toPassJudge(PASSING, stricter)
    } finally {
      warn.mockRestore()
    }
    expect(warned).toHaveLength(1)
    expect(warned[0]).toMatch(/replaced 1 stale verdict of "the answer cites the refund policy" by anthropic\/claude-haiku-4-5 \(rubric changed\)$/)
    expect(grader2.hits).toBe(1)

    const lines = readFileSync(join(dir, 'refund', 'judge.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
    expect(lines.map((l) => JSON.parse(l)).map((e) => [e.criterion, e.verdict, e.instructions])).toEqual([
      [PASSING, 'PASS', 'The policy must be quoted.'],
      [FAILING, 'FAIL', undefined],
    ])
    const modelLines = readFileSync(join(dir, 'refund', 'model.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
    expect(modelLines).toHaveLength(1)
  })

  test('a judge called inside s.run passes through interception and is not recorded as a model call', async () => {
    const dir = tempDir()
    const llm = await provider()
    const grader = await judgeServer()
    useFamily('anthropic', grader)
    let outcome!: Outcome
    const s = await scenario('inside', { dir })
    outcome = await s.run(async () => {
      const text = (await agent(llm)())!
      return judgeOnTape({ dir: s.dir, scenario: s.name, mode: s.mode, criterion: PASSING, text, rubric: judge })
    })
    expect((outcome.result as { verdict: string }).verdict).toBe('PASS')
    expect(grader.hits).toBe(1)
    expect(outcome.modelCalls.map((c) => c.url)).toEqual([`${llm.url}/v1/chat/completions`])
    expect(
      readFileSync(join(dir, 'inside', 'model.jsonl'), 'utf8')
        .trimEnd()
        .split('\n'),
    ).toHaveLength(1)

    // in replay, a re-grade inside the run reaches the judge and leaves the tape untouched
    await llm.close()
    process.env.FLUX_GOLDEN = 'judge'
    const again = await scenario('inside', { dir })
    const replayed = await again.run(async () => {
      const text = (await agent(llm)())!
      return judgeOnTape({ dir: again.dir, scenario: again.name, mode: again.mode, criterion: PASSING, text, rubric: judge })
    })
    expect(grader.hits).toBe(2)
    expect(replayed.divergences).toEqual([])
    expect(replayed.hermetic).toBe(true)
  })
})

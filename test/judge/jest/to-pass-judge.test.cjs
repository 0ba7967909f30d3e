// toPassJudge under jest 30's own `expect` (async matcher: `.not`, `.resolves`, failure text).
// jest-run.test.ts bundles the matcher from src/ and runs this file in a jest child process.
const { mkdtempSync, rmSync } = require('node:fs')
const { tmpdir } = require('node:os')
const { join } = require('node:path')
const { toPassJudge, Rubric, judgeOnTape, Outcome } = require(process.env.FLUX_JUDGE_BUNDLE)

expect.extend({ toPassJudge })

const TEXT = 'The capital of the UK is London (population 8.9M).'
const usage = { input: 50, output: 10, cacheRead: 0, cacheWrite: 0, reasoning: 0 }
const cell = {
  seq: 0, step: 'model#1', key: 'k', family: 'openai-chat', url: 'https://api.openai.com/v1/chat/completions',
  request: { method: 'POST', path: '/v1/chat/completions', body: {} }, response: { status: 200, headers: {}, chunks: [] },
  model: 'gpt-4o-mini', usage, finishReason: 'stop', text: TEXT, toolCalls: [], durationMs: 1, truncated: false,
}
const dir = mkdtempSync(join(tmpdir(), 'flux-jest-judge-'))
const out = new Outcome({ scenario: 'capitals', mode: 'replay', result: undefined, steps: [{ channel: 'model', cell }], traceSnapshot: { file: join(dir, 'trace.snap'), status: 'matched' } })
const keyword = Rubric.fn(({ criterion, text }) => {
  const word = criterion.split(' ').pop()
  return text.includes(word) ? { verdict: 'PASS', rationale: `The text names ${word}.` } : { verdict: 'FAIL', rationale: `The text never names ${word}.` }
}, { name: 'keyword' })

beforeAll(async () => {
  process.env.FLUX_GOLDEN = 'judge'
  for (const criterion of ['names London', 'names Berlin']) await judgeOnTape({ dir, scenario: 'capitals', criterion, text: TEXT, rubric: keyword })
  delete process.env.FLUX_GOLDEN
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('toPassJudge under jest', () => {
  it('passes on a recorded PASS, also through .resolves', async () => {
    await expect(out).toPassJudge('names London', keyword)
    await expect(Promise.resolve(out)).resolves.toPassJudge('names London', keyword)
  })

  it('fails on a recorded FAIL with the criterion, rationale and judged text', async () => {
    let message = ''
    try {
      await expect(out).toPassJudge('names Berlin', keyword)
    } catch (e) {
      message = e.message.replace(/\u001b\[[0-9;]*m/g, '')
    }
    expect(message).toContain('expect(outcome).toPassJudge(criterion, rubric)')
    expect(message).toContain('Expected: PASS on "names Berlin"')
    expect(message).toContain('Received: FAIL from fn:keyword (judge.jsonl)')
    expect(message).toContain('Rationale:   The text never names Berlin.')
    expect(message).toContain(`Judged text: "${TEXT}"`)
  })

  it('.not passes on a recorded FAIL and fails on a PASS', async () => {
    await expect(out).not.toPassJudge('names Berlin', keyword)
    await expect(expect(out).not.toPassJudge('names London', keyword)).rejects.toThrow(/Expected: not PASS on "names London"/)
  })

  it('rejects with FLUX_JUDGE_MISS on a verdict that is not on tape', async () => {
    await expect(expect(out).toPassJudge('names Madrid', keyword)).rejects.toThrow(/FLUX_JUDGE_MISS: Failed to grade "names Madrid"/)
  })
})

/**
 * Verdicts on tape, end to end through the real HTTP path of each judge API:
 * record with FLUX_GOLDEN=judge, stop the judge, replay for $0; any change to the
 * judged text, the criterion or the judge model is FLUX_JUDGE_MISS, never a live call.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test, vi } from 'vitest'
import { Rubric } from 'fluxlab'
import { finishJudgeTapes, judgeOnTape, readJudgeTape, textDigest, type JudgeOnTapeInput } from '../../src/judge/index.js'
import { scanText } from '../../src/cassette/scan.js'
import { FAKE_KEYS, judgeServer, MODEL, rejection, tempDir, useFamily, useJudgeSandbox } from './helpers.js'
import type { Family } from './judge-server.js'

useJudgeSandbox()

const ANSWER = 'Refunds are possible within 30 days, as our refund policy says. The capital of France is Paris.'
const PASSING = 'the answer cites the refund policy'
const FAILING = 'the answer mentions shipping costs'

const FAMILIES: Family[] = ['openai', 'anthropic', 'gemini']

describe.each(FAMILIES)('%s judge', (family) => {
  const input = (dir: string, over: Partial<JudgeOnTapeInput> = {}): JudgeOnTapeInput => ({
    dir,
    scenario: 'refund',
    criterion: PASSING,
    text: ANSWER,
    rubric: Rubric.model(MODEL[family]),
    ...over,
  })

  test('records PASS and FAIL under FLUX_GOLDEN=judge, then replays them with the judge stopped and no key', async () => {
    const server = await judgeServer()
    useFamily(family, server)
    const dir = tempDir()
    process.env.FLUX_GOLDEN = 'judge'
    const pass = await judgeOnTape(input(dir))
    const fail = await judgeOnTape(input(dir, { criterion: FAILING }))
    expect([pass.verdict, pass.source, fail.verdict, fail.source]).toEqual(['PASS', 'live', 'FAIL', 'live'])
    expect(pass.rationale).toBe('The text mentions "refund", "policy".')
    expect(fail.rationale).toBe('The text mentions none of "answer", "mentions", "shipping", "costs".')
    expect(server.hits).toBe(2)
    expect(server.requests.map((r) => [r.criterion, r.text])).toEqual([
      [PASSING, ANSWER],
      [FAILING, ANSWER],
    ])

    await server.close()
    delete process.env.FLUX_GOLDEN
    for (const k of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY']) delete process.env[k]
    const replayedPass = await judgeOnTape(input(dir))
    const replayedFail = await judgeOnTape(input(dir, { criterion: FAILING }))
    expect(replayedPass).toEqual({ ...pass, source: 'tape' })
    expect(replayedFail).toEqual({ ...fail, source: 'tape' })
    expect(server.hits).toBe(2)

    const lines = readFileSync(join(dir, 'judge.jsonl'), 'utf8').trimEnd().split('\n')
    expect(lines).toHaveLength(2)
    const entries = lines.map((l) => JSON.parse(l))
    expect(entries.map((e) => [e.criterion, e.model, e.verdict])).toEqual([
      [PASSING, MODEL[family], 'PASS'],
      [FAILING, MODEL[family], 'FAIL'],
    ])
    expect(Object.keys(entries[0])).toEqual(['criterion', 'key', 'model', 'rationale', 'recordedAt', 'templateVersion', 'textDigest', 'verdict'])
    expect(entries[0].key).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(entries[0].textDigest).toMatch(/^sha256:[0-9a-f]{16}$/)
  })

  test('sends the key in its header, never in the URL, and asks for a structured verdict', async () => {
    const server = await judgeServer()
    useFamily(family, server)
    process.env.FLUX_GOLDEN = 'judge'
    await judgeOnTape(input(tempDir()))
    const [req] = server.requests
    expect(req.path).not.toContain('key=')
    if (family === 'openai') {
      expect(req.path).toBe('/v1/chat/completions')
      expect(req.headers.authorization).toBe(`Bearer ${FAKE_KEYS.openai}`)
      expect(req.body).toMatchObject({ model: 'gpt-4.1-mini', temperature: 0, response_format: { type: 'json_object' } })
    } else if (family === 'anthropic') {
      expect(req.path).toBe('/v1/messages')
      expect(req.headers['x-api-key']).toBe(FAKE_KEYS.anthropic)
      expect(req.headers['anthropic-version']).toBe('2023-06-01')
      expect(req.body).toMatchObject({ model: 'claude-haiku-4-5', tool_choice: { type: 'tool', name: 'record_verdict' } })
    } else {
      expect(req.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent')
      expect(req.headers['x-goog-api-key']).toBe(FAKE_KEYS.gemini)
      expect(req.body.generationConfig).toMatchObject({ responseMimeType: 'application/json', temperature: 0 })
    }
  })

  test('fails with FLUX_JUDGE_MISS when the judged text changed, and calls no judge', async () => {
    const server = await judgeServer()
    useFamily(family, server)
    const dir = tempDir()
    process.env.FLUX_GOLDEN = 'judge'
    await judgeOnTape(input(dir))
    delete process.env.FLUX_GOLDEN
    const before = readFileSync(join(dir, 'judge.jsonl'), 'utf8')
    const e = await rejection(judgeOnTape(input(dir, { text: ANSWER.replace('30 days', '14 days') })))
    expect(e.code).toBe('FLUX_JUDGE_MISS')
    expect(e.message).toContain(`Failed to grade "${PASSING}" in scenario "refund"`)
    expect(e.message).toContain("Record it with `FLUX_GOLDEN=judge npx vitest run test/judge/on-tape.test.ts -t '^")
    expect(e.message).toMatch(/• {3}judged text differs: recorded sha256:[0-9a-f]{16}, now sha256:[0-9a-f]{16}/)
    expect(server.hits).toBe(1)
    expect(readFileSync(join(dir, 'judge.jsonl'), 'utf8')).toBe(before)
  })

  test('fails with FLUX_JUDGE_MISS when the criterion changed', async () => {
    const server = await judgeServer()
    useFamily(family, server)
    const dir = tempDir()
    process.env.FLUX_GOLDEN = 'judge'
    await judgeOnTape(input(dir))
    delete process.env.FLUX_GOLDEN
    const e = await rejection(judgeOnTape(input(dir, { criterion: 'the answer cites the refund policy and its 30 days' })))
    expect(e.code).toBe('FLUX_JUDGE_MISS')
    expect(e.message).toContain(`criterion differs: recorded "${PASSING}", now "the answer cites the refund policy and its 30 days"`)
    expect(e.message).not.toContain('judged text differs')
    expect(server.hits).toBe(1)
  })

  test('fails with FLUX_JUDGE_MISS when the judge model changed', async () => {
    const server = await judgeServer()
    useFamily(family, server)
    const dir = tempDir()
    process.env.FLUX_GOLDEN = 'judge'
    await judgeOnTape(input(dir))
    delete process.env.FLUX_GOLDEN
    const other = `${MODEL[family]}-2026` as const
    const e = await rejection(judgeOnTape(input(dir, { rubric: Rubric.model(other) })))
    expect(e.code).toBe('FLUX_JUDGE_MISS')
    expect(e.message).toContain(`judge model differs: recorded ${MODEL[family]}, now ${other}`)
    expect(server.hits).toBe(1)
  })

  test('keeps every key out of judge.jsonl, and redacts a secret in the judged text before hashing, sending and storing', async () => {
    const server = await judgeServer()
    useFamily(family, server)
    const dir = tempDir()
    process.env.FLUX_GOLDEN = 'judge'
    const leaked = `${ANSWER} Debug: OPENAI_API_KEY=${FAKE_KEYS.openai} refund`
    const v = await judgeOnTape(input(dir, { text: leaked }))
    expect(v.text).not.toContain(FAKE_KEYS.openai)
    expect(v.text).toMatch(/OPENAI_API_KEY=\[REDACTED:[0-9a-f]{8}\] refund$/)
    expect(server.requests[0].text).toBe(v.text)
    const file = readFileSync(join(dir, 'judge.jsonl'), 'utf8')
    for (const key of Object.values(FAKE_KEYS)) expect(file).not.toContain(key)
    expect(scanText(file, 'judge.jsonl')).toEqual([])
    // the same secret gives the same placeholder, so the replay hits
    delete process.env.FLUX_GOLDEN
    expect((await judgeOnTape(input(dir, { text: leaked }))).source).toBe('tape')
  })
})

describe('the update switch', () => {
  const rubric = Rubric.model('openai/gpt-4.1-mini')

  test('re-grades a hit live under FLUX_GOLDEN=update and keeps one line for it', async () => {
    const server = await judgeServer()
    useFamily('openai', server)
    const dir = tempDir()
    process.env.FLUX_GOLDEN = 'judge'
    await judgeOnTape({ dir, scenario: 'refund', criterion: PASSING, text: ANSWER, rubric })
    process.env.FLUX_GOLDEN = 'update'
    const again = await judgeOnTape({ dir, scenario: 'refund', criterion: PASSING, text: ANSWER, rubric })
    expect(again.source).toBe('live')
    expect(server.hits).toBe(2)
    expect(readJudgeTape(dir)).toHaveLength(1)
  })

  test('grades live while the scenario records (mode record), without FLUX_GOLDEN', async () => {
    const server = await judgeServer()
    useFamily('openai', server)
    const dir = tempDir()
    const v = await judgeOnTape({ dir, scenario: 'refund', mode: 'record', criterion: PASSING, text: ANSWER, rubric })
    expect(v.source).toBe('live')
    expect(readJudgeTape(dir)).toHaveLength(1)
  })

  test('replaces a stale verdict of the same criterion and judge when the judged text changed, and says so', async () => {
    const server = await judgeServer()
    useFamily('openai', server)
    const dir = tempDir()
    process.env.FLUX_GOLDEN = 'judge'
    // recorded by an earlier process: written, then forgotten as "used"
    await judgeOnTape({ dir, scenario: 'refund', criterion: PASSING, text: 'Our refund policy: 14 days.', rubric })
    await judgeOnTape({ dir, scenario: 'refund', criterion: FAILING, text: 'Our refund policy: 14 days.', rubric })
    finishJudgeTapes({ prune: false })

    const warned: string[] = []
    const warn = vi.spyOn(console, 'warn').mockImplementation((m) => void warned.push(String(m)))
    try {
      await judgeOnTape({ dir, scenario: 'refund', criterion: PASSING, text: ANSWER, rubric })
      expect(warned).toEqual([
        expect.stringMatching(
          /^\[fluxlab\] .*judge\.jsonl \(scenario "refund"\): replaced 1 stale verdict of "the answer cites the refund policy" by openai\/gpt-4\.1-mini \(judged text changed\)$/,
        ),
      ])
    } finally {
      warn.mockRestore()
    }
    // the stale line is gone; the other criterion's verdict is untouched
    expect(readJudgeTape(dir).map((e) => [e.criterion, e.textDigest])).toEqual([
      [PASSING, textDigest(ANSWER)],
      [FAILING, textDigest('Our refund policy: 14 days.')],
    ])
  })

  test('never writes without the switch, also under CI: a hit leaves the file as it was, a miss writes nothing', async () => {
    const server = await judgeServer()
    useFamily('openai', server)
    const dir = tempDir()
    process.env.FLUX_GOLDEN = 'judge'
    await judgeOnTape({ dir, scenario: 'refund', criterion: PASSING, text: ANSWER, rubric })
    delete process.env.FLUX_GOLDEN
    process.env.CI = '1'
    const before = readFileSync(join(dir, 'judge.jsonl'), 'utf8')
    expect((await judgeOnTape({ dir, scenario: 'refund', criterion: PASSING, text: ANSWER, rubric })).source).toBe('tape')
    expect((await rejection(judgeOnTape({ dir, scenario: 'refund', criterion: FAILING, text: ANSWER, rubric }))).code).toBe('FLUX_JUDGE_MISS')
    expect(readFileSync(join(dir, 'judge.jsonl'), 'utf8')).toBe(before)
    const fresh = tempDir()
    expect((await rejection(judgeOnTape({ dir: fresh, scenario: 'refund', criterion: PASSING, text: ANSWER, rubric }))).message).toContain(
      'holds no verdicts yet',
    )
    expect(existsSync(join(fresh, 'judge.jsonl'))).toBe(false)
    expect(server.hits).toBe(1)
  })
})

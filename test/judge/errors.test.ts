/**
 * A judge that cannot grade (a malformed reply, 5xx, a timeout, no key, offline) gives a
 * clear FLUX_JUDGE_ERROR / FLUX_BAD_CONFIG / FLUX_OFFLINE and writes nothing.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { Rubric } from 'fluxlab'
import { judgeOnTape, type JudgeOnTapeInput } from '../../src/judge/index.js'
import { FAKE_KEYS, judgeServer, MODEL, rejection, tempDir, useFamily, useJudgeSandbox } from './helpers.js'
import type { Family } from './judge-server.js'

useJudgeSandbox()

const ANSWER = 'Refunds are possible within 30 days, as our refund policy says.'
const CRITERION = 'the answer cites the refund policy'

const input = (dir: string, rubric: Rubric, over: Partial<JudgeOnTapeInput> = {}): JudgeOnTapeInput => ({
  dir,
  scenario: 'refund',
  criterion: CRITERION,
  text: ANSWER,
  rubric,
  ...over,
})

describe.each(['openai', 'anthropic', 'gemini'] as Family[])('%s judge', (family) => {
  test('fails on a reply that is not a verdict, showing it redacted, and writes nothing', async () => {
    const server = await judgeServer()
    useFamily(family, server)
    server.behaviour = { kind: 'malformed', text: `I think it passes. (debug: ${FAKE_KEYS.anthropic})` }
    const dir = tempDir()
    process.env.FLUX_GOLDEN = 'judge'
    const e = await rejection(judgeOnTape(input(dir, Rubric.model(MODEL[family]))))
    expect(e.code).toBe('FLUX_JUDGE_ERROR')
    expect(e.message).toContain(
      `[fluxlab] FLUX_JUDGE_ERROR: Failed to grade "${CRITERION}" with ${MODEL[family]}: the judge's reply (HTTP 200) is not a verdict: the reply is not a JSON object.`,
    )
    expect(e.message).toContain('Nothing was written to judge.jsonl.')
    expect(e.message).toMatch(/ {2}• reply: .*I think it passes\. \(debug: \[REDACTED:[0-9a-f]{8}\]\)/)
    expect(e.message).not.toContain(FAKE_KEYS.anthropic)
    for (const key of Object.values(FAKE_KEYS)) expect(e.message).not.toContain(key)
    expect(existsSync(join(dir, 'judge.jsonl'))).toBe(false)
  })

  test('fails on a 5xx after its retries, showing the status and body, and leaves judge.jsonl as it was', async () => {
    const server = await judgeServer()
    useFamily(family, server)
    const dir = tempDir()
    process.env.FLUX_GOLDEN = 'judge'
    await judgeOnTape(input(dir, Rubric.model(MODEL[family])))
    const before = readFileSync(join(dir, 'judge.jsonl'), 'utf8')
    server.behaviour = { kind: 'status', status: 503, body: '{"error":{"message":"overloaded"}}' }
    const e = await rejection(judgeOnTape(input(dir, Rubric.model(MODEL[family], { retries: 1 }), { criterion: 'the answer is polite' })))
    expect(e.code).toBe('FLUX_JUDGE_ERROR')
    expect(e.message).toMatch(
      new RegExp(`Failed to grade "the answer is polite" with ${MODEL[family]}: POST http://127\\.0\\.0\\.1:\\d+/\\S+ answered HTTP 503 after 2 attempts\\.`),
    )
    expect(e.message).toContain('  • reply: {"error":{"message":"overloaded"}}')
    expect(server.hits).toBe(3)
    expect(readFileSync(join(dir, 'judge.jsonl'), 'utf8')).toBe(before)
  })

  test('fails on a timeout with the timeout in the message, and writes nothing', async () => {
    const server = await judgeServer()
    useFamily(family, server)
    server.behaviour = { kind: 'hang' }
    const dir = tempDir()
    process.env.FLUX_GOLDEN = 'judge'
    const e = await rejection(judgeOnTape(input(dir, Rubric.model(MODEL[family], { timeoutMs: 150, retries: 0 }))))
    expect(e.code).toBe('FLUX_JUDGE_ERROR')
    expect(e.message).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/\S+ did not answer within 150 ms \(the rubric's timeoutMs\)\./)
    expect(existsSync(join(dir, 'judge.jsonl'))).toBe(false)
  })
})

describe('judge errors', () => {
  const rubric = () => Rubric.model('openai/gpt-4.1-mini', { retries: 0 })

  test('retries a 503 and records the verdict that follows', async () => {
    const server = await judgeServer()
    useFamily('openai', server)
    server.behaviour = { kind: 'status', status: 503, body: 'busy', times: 1 }
    process.env.FLUX_GOLDEN = 'judge'
    const v = await judgeOnTape(input(tempDir(), Rubric.model('openai/gpt-4.1-mini')))
    expect(v.verdict).toBe('PASS')
    expect(server.hits).toBe(2)
  })

  test('does not retry a 400, and shows the provider error', async () => {
    const server = await judgeServer()
    useFamily('openai', server)
    server.behaviour = { kind: 'status', status: 400, body: '{"error":{"message":"model not found"}}' }
    process.env.FLUX_GOLDEN = 'judge'
    const e = await rejection(judgeOnTape(input(tempDir(), Rubric.model('openai/gpt-4.1-mini'))))
    expect(e.message).toMatch(/answered HTTP 400\.\s/)
    expect(e.message).toContain('model not found')
    expect(server.hits).toBe(1)
  })

  test('fails clearly when the judge cannot be reached', async () => {
    const server = await judgeServer()
    useFamily('openai', server)
    await server.close()
    process.env.FLUX_GOLDEN = 'judge'
    const e = await rejection(judgeOnTape(input(tempDir(), rubric())))
    expect(e.code).toBe('FLUX_JUDGE_ERROR')
    expect(e.message).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions failed \(fetch failed: ECONNREFUSED\)/)
  })

  test('names the missing key variable when grading live, and a replay needs no key', async () => {
    const server = await judgeServer()
    process.env.GEMINI_BASE_URL = server.url
    process.env.FLUX_GOLDEN = 'judge'
    const dir = tempDir()
    const gemini = Rubric.model('google/gemini-2.5-flash')
    const e = await rejection(judgeOnTape(input(dir, gemini)))
    expect(e.code).toBe('FLUX_BAD_CONFIG')
    expect(e.message).toContain(
      'Failed to grade "the answer cites the refund policy" with google/gemini-2.5-flash: GEMINI_API_KEY / GOOGLE_API_KEY / GOOGLE_GENERATIVE_AI_API_KEY are not set, and grading live needs the judge\'s key. Set GEMINI_API_KEY to re-grade.',
    )
    process.env.GOOGLE_API_KEY = FAKE_KEYS.gemini
    await judgeOnTape(input(dir, gemini))
    delete process.env.GOOGLE_API_KEY
    delete process.env.FLUX_GOLDEN
    expect((await judgeOnTape(input(dir, gemini))).source).toBe('tape')
  })

  test("treats fluxlab's replay placeholder as no key", async () => {
    const server = await judgeServer()
    process.env.OPENAI_BASE_URL = `${server.url}/v1`
    process.env.OPENAI_API_KEY = 'fluxlab-replay-no-key'
    process.env.FLUX_GOLDEN = 'judge'
    expect((await rejection(judgeOnTape(input(tempDir(), rubric())))).message).toContain('OPENAI_API_KEY is not set')
  })

  test("needs a base URL for a provider it does not know, and reads that provider's key when set", async () => {
    const server = await judgeServer()
    process.env.FLUX_GOLDEN = 'judge'
    const local = Rubric.model('localjudge/llama-3.3-70b')
    const e = await rejection(judgeOnTape(input(tempDir(), local)))
    expect(e.message).toContain('fluxlab does not know where "localjudge" is served. Pass its OpenAI-compatible base URL')
    expect(e.message).toContain('or set LOCALJUDGE_BASE_URL.')
    process.env.LOCALJUDGE_BASE_URL = `${server.url}/v1`
    await judgeOnTape(input(tempDir(), local))
    expect(server.requests[0].headers.authorization).toBeUndefined()
    process.env.LOCALJUDGE_API_KEY = 'gsk_' + 'k3y'.repeat(12)
    await judgeOnTape(input(tempDir(), Rubric.model('localjudge/llama-3.3-70b', { baseURL: `${server.url}/v1/` })))
    expect(server.requests[1].headers.authorization).toBe(`Bearer ${process.env.LOCALJUDGE_API_KEY}`)
    expect(server.requests[1].body.model).toBe('llama-3.3-70b')
  })

  test('refuses to grade live under FLUX_OFFLINE=1', async () => {
    const server = await judgeServer()
    useFamily('openai', server)
    process.env.FLUX_GOLDEN = 'judge'
    process.env.FLUX_OFFLINE = '1'
    const e = await rejection(judgeOnTape(input(tempDir(), rubric())))
    expect(e.code).toBe('FLUX_OFFLINE')
    expect(e.message).toContain('FLUX_OFFLINE=1 forbids live requests and FLUX_GOLDEN=judge asks the judge to grade live')
    expect(server.hits).toBe(0)
  })

  test('rejects an invalid FLUX_GOLDEN, listing the valid values', async () => {
    process.env.FLUX_GOLDEN = 'regrade'
    const e = await rejection(judgeOnTape(input(tempDir(), rubric())))
    expect(e.message).toContain('Use one of: update, snapshots, judge')
  })

  test('refuses a judge.jsonl holding a secret, naming the line and never the value', async () => {
    const dir = tempDir()
    const line = JSON.stringify({
      criterion: CRITERION,
      key: 'sha256:' + '0'.repeat(64),
      model: 'openai/gpt-4.1-mini',
      rationale: `fine, key ${FAKE_KEYS.openai}`,
      recordedAt: '2026-01-01T00:00:00.000Z',
      templateVersion: 1,
      textDigest: 'sha256:0000000000000000',
      verdict: 'PASS',
    })
    writeFileSync(join(dir, 'judge.jsonl'), `${line}\n`)
    const e = await rejection(judgeOnTape(input(dir, rubric())))
    expect(e.code).toBe('FLUX_CREDENTIAL_FOUND')
    expect(e.message).toContain('  • judge.jsonl:1 rationale (openai-key)')
    expect(e.message).not.toContain(FAKE_KEYS.openai)
  })

  test('redacts a secret the judge echoes in its rationale before writing', async () => {
    const server = await judgeServer()
    useFamily('openai', server)
    process.env.FLUX_GOLDEN = 'judge'
    const dir = tempDir()
    // the rule echoes matched criterion words; a key-shaped word in the criterion comes back in the rationale
    const v = await judgeOnTape(input(dir, rubric(), { criterion: `mentions ${FAKE_KEYS.openai}` }))
    expect(v.criterion).toMatch(/^mentions \[REDACTED:[0-9a-f]{8}\]$/)
    const file = readFileSync(join(dir, 'judge.jsonl'), 'utf8')
    expect(file).not.toContain(FAKE_KEYS.openai)
    expect(file).not.toContain('A1b2A1b2')
  })

  test('rejects an empty criterion and a rubric that is not one', async () => {
    const dir = tempDir()
    expect((await rejection(judgeOnTape(input(dir, rubric(), { criterion: ' ' })))).message).toContain('the criterion is empty')
    const e = await rejection(judgeOnTape(input(dir, 'openai/gpt-4.1-mini' as never)))
    expect(e.code).toBe('FLUX_BAD_CONFIG')
    expect(e.message).toContain('there is no default judge model')
  })
})

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createOpenAI } from '@ai-sdk/openai'
import { stepCountIs, streamText, tool } from 'ai'
import { scenario, type Lab } from 'fluxlab'
import { matchers } from 'fluxlab/matchers'
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { loadExchanges, openaiBaseURL, startProviderServer } from '../support/index.js'

expect.extend(matchers)
const saved = { CI: process.env.CI, FLUX_GOLDEN: process.env.FLUX_GOLDEN }
let dir: string
let baseURL: string
const execute = vi.fn(async ({ a, b }: { a: number; b: number }) => a * b)
const strip = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '')

const agent = async (lab: Lab) => {
  const openai = createOpenAI({ baseURL, apiKey: 'sk-test' })
  const r = streamText({
    model: openai.chat('gpt-4o-mini'),
    prompt: 'What is 1231 * 2331?',
    tools: lab.tools({ multiply: tool({ inputSchema: z.object({ a: z.number(), b: z.number() }), execute }) }),
    stopWhen: stepCountIs(3),
    maxRetries: 0,
  })
  return await r.text
}

beforeAll(async () => {
  delete process.env.CI
  delete process.env.FLUX_GOLDEN
  dir = mkdtempSync(join(tmpdir(), 'flux-trace-'))
  const server = await startProviderServer()
  server.queue(...loadExchanges('openai-chat/test_tool_use_basic.yaml'))
  baseURL = openaiBaseURL(server)
  await (await scenario('golden', { dir })).run(agent)
  await server.close()
})
beforeEach(() => {
  delete process.env.CI
  delete process.env.FLUX_GOLDEN
})
afterEach(() => {
  for (const [k, v] of Object.entries(saved))
    if (v === undefined) delete process.env[k]
    else process.env[k] = v
})

const traceFile = () => join(dir, 'golden', 'trace.snap')

describe('s.replay()', () => {
  it('builds the recorded run from the fixture without running any code', async () => {
    execute.mockClear()
    const out = await (await scenario('golden', { dir })).replay()
    expect(execute).not.toHaveBeenCalled()
    expect(out.calls).toEqual([
      expect.objectContaining({ name: 'multiply', args: { a: 1231, b: 2331 }, requestedAt: 'model#1', executedAt: 'tool#1 multiply' }),
    ])
    expect(out.modelCalls.map((c) => c.model)).toEqual(['gpt-4o-mini-2024-07-18', 'gpt-4o-mini-2024-07-18'])
    expect(out).toMatchTraceSnapshot()
  })
})

describe('.toMatchTraceSnapshot', () => {
  it('passes when the replayed trace equals trace.snap', async () => {
    const out = await (await scenario('golden', { dir })).run(agent)
    expect(out.traceSnapshot?.status).toBe('matched')
    expect(out).toMatchTraceSnapshot()
  })

  it('fails with a unified diff and the update command when trace.snap differs, writing nothing', async () => {
    const good = readFileSync(traceFile(), 'utf8')
    const edited = good.replace('multiply', 'multiplyX')
    writeFileSync(traceFile(), edited)
    try {
      const out = await (await scenario('golden', { dir })).run(agent)
      let message = ''
      try {
        expect(out).toMatchTraceSnapshot()
      } catch (e) {
        message = strip((e as Error).message)
      }
      expect(message).toContain('toMatchTraceSnapshot')
      expect(message).toMatch(/^- .*multiplyX/m)
      expect(message).toMatch(/^\+ .*multiply /m)
      expect(message).toContain('FLUX_GOLDEN=snapshots')
      expect(readFileSync(traceFile(), 'utf8')).toBe(edited)
    } finally {
      writeFileSync(traceFile(), good)
    }
  })

  it('rewrites trace.snap offline under FLUX_GOLDEN=snapshots', async () => {
    const good = readFileSync(traceFile(), 'utf8')
    writeFileSync(traceFile(), 'stale\n')
    process.env.FLUX_GOLDEN = 'snapshots'
    const out = await (await scenario('golden', { dir })).run(agent)
    expect(out.traceSnapshot?.status).toBe('updated')
    expect(out).toMatchTraceSnapshot()
    expect(readFileSync(traceFile(), 'utf8')).toBe(good)
  })

  it('writes a missing trace.snap locally but never under CI', async () => {
    rmSync(traceFile())
    process.env.CI = '1'
    const ci = await (await scenario('golden', { dir })).run(agent)
    expect(ci.traceSnapshot?.status).toBe('mismatch')
    expect(existsSync(traceFile())).toBe(false)
    expect(() => expect(ci).toMatchTraceSnapshot()).toThrow(/does not exist yet[\s\S]*nothing is written under CI/)

    delete process.env.CI
    const local = await (await scenario('golden', { dir })).run(agent)
    expect(local.traceSnapshot?.status).toBe('added')
    expect(existsSync(traceFile())).toBe(true)
  })

  it('counts into the runner snapshot summary', async () => {
    const out = await (await scenario('golden', { dir })).run(agent)
    const snapshotState = { matched: 0, added: 0, updated: 0 }
    const r = matchers.toMatchTraceSnapshot.call({ equals: () => true, snapshotState }, out)
    expect(r.pass).toBe(true)
    expect(snapshotState).toEqual({ matched: 1, added: 0, updated: 0 })
  })

  it('throws a matcher error for something that is not an Outcome', () => {
    expect(() => expect({ text: 'hi' }).toMatchTraceSnapshot()).toThrow(/expects the Outcome/)
  })
})

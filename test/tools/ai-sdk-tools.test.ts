import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createOpenAI } from '@ai-sdk/openai'
import { stepCountIs, streamText, tool } from 'ai'
import { scenario, tools } from 'fluxlab'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { loadExchanges, openaiBaseURL, startProviderServer, type ProviderServer } from '../support/index.js'

const PROMPT = 'What is 1231 * 2331?'
let server: ProviderServer
let dir: string
const env = { CI: process.env.CI, FLUX_GOLDEN: process.env.FLUX_GOLDEN }

beforeEach(async () => {
  delete process.env.CI
  delete process.env.FLUX_GOLDEN
  dir = mkdtempSync(join(tmpdir(), 'flux-tools-'))
  server = await startProviderServer()
  server.queue(...loadExchanges('openai-chat/test_tool_use_basic.yaml'))
})
afterEach(async () => {
  await server.close()
  Object.assign(process.env, env)
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete process.env[k]
})

function agent(baseURL: string, multiply: (input: { a: number; b: number }) => Promise<number>) {
  return async (lab: { tools<T>(t: T): T }) => {
    const openai = createOpenAI({ baseURL, apiKey: 'sk-test' })
    const result = streamText({
      model: openai.chat('gpt-4o-mini'),
      prompt: PROMPT,
      tools: lab.tools({ multiply: tool({ inputSchema: z.object({ a: z.number(), b: z.number() }), execute: multiply }) }),
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    })
    return await result.text
  }
}

describe('lab.tools with Vercel AI SDK tools', () => {
  it('records the tool call with its call id and replays it without running the tool body', async () => {
    const base = openaiBaseURL(server)
    const live = vi.fn(async ({ a, b }: { a: number; b: number }) => a * b)
    const recorded = await (await scenario('multiply', { dir })).run(agent(base, live))
    expect(live).toHaveBeenCalledTimes(1)
    const cells = readFileSync(join(dir, 'multiply', 'tools.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(cells).toEqual([
      expect.objectContaining({ kind: 'fn', name: 'multiply', callId: 'call_1EYWDzueHEp8OsB8jJSEp7WB', args: { a: 1231, b: 2331 }, output: 2869461 }),
    ])
    await server.close()
    const hits = server.hits

    const spy = vi.fn(async () => -1)
    const replayed = await (await scenario('multiply', { dir })).run(agent(base, spy))
    expect(spy).not.toHaveBeenCalled()
    expect(server.hits).toBe(hits)
    expect(replayed.result).toBe(recorded.result)
    expect(replayed.hermetic).toBe(true)
    expect(replayed.divergences).toEqual([])
    expect(replayed.calls).toEqual([
      { name: 'multiply', id: 'call_1EYWDzueHEp8OsB8jJSEp7WB', args: { a: 1231, b: 2331 }, requestedAt: 'model#1', executedAt: 'tool#1 multiply' },
    ])
  })

  it('replays a recorded tool error as the same throw', async () => {
    const base = openaiBaseURL(server)
    const failing = async () => {
      throw Object.assign(new RangeError('numbers too large'), { code: 'E_RANGE' })
    }
    // The recorded second model turn answers whatever the tool said; the AI SDK turns a throw into a tool-error part.
    await (await scenario('multiply-error', { dir })).run(agent(base, failing))
    const cell = JSON.parse(readFileSync(join(dir, 'multiply-error', 'tools.jsonl'), 'utf8').trim())
    expect(cell.error).toEqual({ name: 'RangeError', message: 'numbers too large', data: { code: 'E_RANGE' } })

    let seen: unknown
    const spy = vi.fn()
    const s = await scenario('multiply-error', { dir })
    await s
      .run(async (lab) => {
        const wrapped = lab.tool('multiply', spy)
        try {
          await wrapped({ a: 1231, b: 2331 }, { toolCallId: 'call_1EYWDzueHEp8OsB8jJSEp7WB', messages: [] })
        } catch (e) {
          seen = e
        }
      })
      .catch(() => undefined)
    expect(spy).not.toHaveBeenCalled()
    expect(seen).toBeInstanceOf(Error)
    expect(seen).toMatchObject({ name: 'RangeError', message: 'numbers too large', code: 'E_RANGE' })
  })

  it('tools() from fluxlab, built once outside every run, goes on the tape of the run it is called in, and runs untouched outside', async () => {
    const base = openaiBaseURL(server)
    const body = vi.fn(({ a, b }: { a: number; b: number }) => a * b)
    const { multiply } = tools({
      multiply: tool({ inputSchema: z.object({ a: z.number(), b: z.number() }), execute: async (input: { a: number; b: number }) => body(input) }),
    })
    const { double } = tools({ double: (n: number) => n * 2 })
    // outside every run: the tool itself, synchronously
    expect(double(21)).toBe(42)
    const agentWith = async () => {
      const openai = createOpenAI({ baseURL: base, apiKey: 'sk-test' })
      const r = streamText({ model: openai.chat('gpt-4o-mini'), prompt: PROMPT, tools: { multiply }, stopWhen: stepCountIs(3), maxRetries: 0 })
      return await r.text
    }
    await (await scenario('module-tools', { dir })).run(agentWith)
    expect(body).toHaveBeenCalledTimes(1)
    const out = await (await scenario('module-tools', { dir })).run(agentWith)
    expect(body).toHaveBeenCalledTimes(1)
    expect(out.warnings).toEqual([])
    expect(out.calls.map((c) => [c.name, c.executedAt])).toEqual([['multiply', 'tool#1 multiply']])
  })

  it('warns unwrapped_tool when a replayed turn requests a tool that ran outside the tape', async () => {
    const base = openaiBaseURL(server)
    const unwrapped = async (lab: { tools<T>(t: T): T }) => {
      void lab
      const openai = createOpenAI({ baseURL: base, apiKey: 'sk-test' })
      const r = streamText({
        model: openai.chat('gpt-4o-mini'),
        prompt: PROMPT,
        tools: { multiply: tool({ inputSchema: z.object({ a: z.number(), b: z.number() }), execute: async ({ a, b }) => a * b }) },
        stopWhen: stepCountIs(3),
        maxRetries: 0,
      })
      return await r.text
    }
    await (await scenario('unwrapped', { dir })).run(unwrapped)
    const out = await (await scenario('unwrapped', { dir })).run(unwrapped)
    expect(out.warnings.map((w) => [w.code, w.step])).toEqual([['unwrapped_tool', 'model#1']])
    expect(out.warnings[0].message).toMatch(
      /^model#1 asked for `multiply` \(call_\w+\); model#2 sent its result back, and no tool call on the tape answered it/,
    )
    expect(out.warnings[0].message).toContain('lab.tools({ multiply })')
  })

  it('does not warn unwrapped_tool when the test only reads the tool calls and no result goes back to the model', async () => {
    const base = openaiBaseURL(server)
    // a tool with no execute(): the SDK hands the call to the caller and stops, so nothing runs
    const asksOnly = async () => {
      const openai = createOpenAI({ baseURL: base, apiKey: 'sk-test' })
      const r = streamText({
        model: openai.chat('gpt-4o-mini'),
        prompt: PROMPT,
        tools: { multiply: tool({ inputSchema: z.object({ a: z.number(), b: z.number() }) }) },
        maxRetries: 0,
      })
      return (await r.toolCalls).map((c) => c.toolName)
    }
    await (await scenario('asks-only', { dir })).run(asksOnly)
    const out = await (await scenario('asks-only', { dir })).run(asksOnly)
    expect(out.result).toEqual(['multiply'])
    expect(out.modelCalls).toHaveLength(1)
    expect(out.warnings).toEqual([])
  })
})

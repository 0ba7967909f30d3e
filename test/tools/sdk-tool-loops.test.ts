import Anthropic from '@anthropic-ai/sdk'
import { scenario, type Lab } from 'fluxlab'
import { matchers } from 'fluxlab/matchers'
import OpenAI from 'openai'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it, vi } from 'vitest'
import { anthropicBaseURL, openaiBaseURL } from '../support/index.js'
import { serve, tempDir, useEngineSandbox } from '../engine/helpers.js'

useEngineSandbox()
expect.extend(matchers)

type ToolFn = (args: Record<string, unknown>, ctx: { toolCallId: string }) => Promise<unknown>

/** OpenAI SDK, manual tool loop (non-streaming), as many agents are written. */
async function openaiLoop(lab: Lab, baseURL: string, impl: Record<string, ToolFn>, passId = true): Promise<string> {
  const client = new OpenAI({ baseURL, apiKey: 'sk-test', maxRetries: 0 })
  const tools = lab.tools(impl)
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Can the country of Crumpet have dragons? Answer with only YES or NO' }]
  for (let i = 0; i < 5; i++) {
    const r = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: false })
    const msg = r.choices[0].message
    if (!msg.tool_calls?.length) return msg.content ?? ''
    messages.push(msg)
    for (const call of msg.tool_calls) {
      if (call.type !== 'function') continue
      const args = JSON.parse(call.function.arguments) as Record<string, unknown>
      const out = await (passId
        ? tools[call.function.name](args, { toolCallId: call.id })
        : (tools[call.function.name] as (a: unknown) => Promise<unknown>)(args))
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(out) })
    }
  }
  throw new Error('no answer in 5 steps')
}

/** Anthropic SDK tool loop running the model's parallel tool_use blocks concurrently, finishing in `order`. */
async function anthropicLoop(lab: Lab, baseURL: string, lookup: ToolFn, delays: (i: number) => number): Promise<string> {
  const client = new Anthropic({ baseURL, apiKey: 'sk-ant-test', maxRetries: 0 })
  const retrieve = lab.tool('retrieve_entity_info', lookup)
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Alice, Bob, Charlie and Daisy are a family. Who is the youngest?' }]
  for (let i = 0; i < 4; i++) {
    const r = await client.messages.create({ model: 'claude-haiku-4-5', max_tokens: 1024, messages })
    const uses = r.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')
    if (uses.length === 0) return r.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('')
    messages.push({ role: 'assistant', content: r.content })
    const results = await Promise.all(
      uses.map(async (u, n) => {
        await new Promise((res) => setTimeout(res, delays(n)))
        return {
          type: 'tool_result' as const,
          tool_use_id: u.id,
          content: JSON.stringify(await retrieve(u.input as Record<string, unknown>, { toolCallId: u.id })),
        }
      }),
    )
    messages.push({ role: 'user', content: results })
  }
  throw new Error('no answer in 4 steps')
}

describe('tool loops on tape', () => {
  it('replays an OpenAI SDK manual tool loop without running any tool body', async () => {
    const dir = tempDir()
    const server = await serve(['openai-chat/test_tool_use_chain_of_two_calls.yaml'])
    const live = { lookup_population: vi.fn(async () => 123124), can_have_dragons: vi.fn(async () => true) }
    const rec = await (await scenario('dragons', { dir })).run((lab) => openaiLoop(lab, openaiBaseURL(server), live))
    expect(live.lookup_population).toHaveBeenCalledTimes(1)
    expect(live.can_have_dragons).toHaveBeenCalledTimes(1)
    await server.close()

    const spies = { lookup_population: vi.fn(async () => 0), can_have_dragons: vi.fn(async () => false) }
    const out = await (await scenario('dragons', { dir })).run((lab) => openaiLoop(lab, openaiBaseURL(server), spies))
    expect(spies.lookup_population).not.toHaveBeenCalled()
    expect(spies.can_have_dragons).not.toHaveBeenCalled()
    expect(out.result).toBe(rec.result)
    expect(out.hermetic).toBe(true)
    expect(out.calls.map((c) => [c.name, c.requestedAt, c.executedAt])).toEqual([
      ['lookup_population', 'model#1', 'tool#1 lookup_population'],
      ['can_have_dragons', 'model#2', 'tool#2 can_have_dragons'],
    ])
  })

  it('joins a tool the loop calls without the call id to the model request that asked for it: one trajectory entry per call', async () => {
    const dir = tempDir()
    const server = await serve(['openai-chat/test_tool_use_chain_of_two_calls.yaml'])
    const impl = { lookup_population: async () => 123124, can_have_dragons: async () => true }
    const rec = await (await scenario('dragons-no-id', { dir })).run((lab) => openaiLoop(lab, openaiBaseURL(server), impl, false))
    await server.close()
    const out = await (await scenario('dragons-no-id', { dir })).run((lab) => openaiLoop(lab, openaiBaseURL(server), impl, false))
    for (const o of [rec, out]) {
      expect(o).toCall(['lookup_population', 'can_have_dragons'])
      expect(o.calls.every((c) => c.requestedAt && c.executedAt)).toBe(true)
    }
    expect(out.hermetic).toBe(true)
  })

  it("keeps HTTP made inside a wrapped tool in that tool's cell: recorded once, never required on replay", async () => {
    const dir = tempDir()
    const server = await serve(['openai-chat/test_tool_use_chain_of_two_calls.yaml'])
    let hits = 0
    const census = createServer((_req, res) => {
      hits++
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"population":123124}')
    })
    await new Promise<void>((r) => census.listen(0, '127.0.0.1', () => r()))
    const censusUrl = `http://127.0.0.1:${(census.address() as AddressInfo).port}/population`
    const impl = {
      lookup_population: async () => ((await (await fetch(censusUrl)).json()) as { population: number }).population,
      can_have_dragons: async () => true,
    }
    const rec = await (await scenario('dragons-nested', { dir })).run((lab) => openaiLoop(lab, openaiBaseURL(server), impl))
    expect(hits).toBe(1)
    expect(rec.calls.map((c) => c.name)).toEqual(['lookup_population', 'can_have_dragons'])
    await server.close()
    await new Promise<void>((r) => census.close(() => r()))

    const out = await (await scenario('dragons-nested', { dir })).run((lab) => openaiLoop(lab, openaiBaseURL(server), impl))
    expect(hits).toBe(1)
    expect(out.divergences).toEqual([])
    expect(out.hermetic).toBe(true)
    expect(out.result).toBe(rec.result)
  })

  it('replays parallel Anthropic tool calls whatever order they complete in', async () => {
    const dir = tempDir()
    const server = await serve(['anthropic/test_multiple_parallel_tool_calls.yaml'])
    const ages: Record<string, number> = { Alice: 30, Bob: 28, Charlie: 6, Daisy: 4 }
    const live = vi.fn(async (args: Record<string, unknown>) => ({ name: args.name, age: ages[String(args.name)] }))
    // Recorded finishing first to last, replayed finishing last to first.
    await (await scenario('family', { dir })).run((lab) => anthropicLoop(lab, anthropicBaseURL(server), live, (n) => n * 15))
    expect(live).toHaveBeenCalledTimes(4)
    await server.close()

    const seen: string[] = []
    const spy = vi.fn(async () => ({}))
    const out = await (await scenario('family', { dir })).run((lab) =>
      anthropicLoop(lab, anthropicBaseURL(server), spy, (n) => (3 - n) * 15).finally(() => seen.push('done')),
    )
    expect(spy).not.toHaveBeenCalled()
    expect(out.hermetic).toBe(true)
    expect(out.divergences).toEqual([])
    const executed = out.calls.map((c) => [c.args, c.executedAt?.split(' ')[0]])
    expect(executed).toEqual([
      [{ name: 'Alice' }, 'tool#4'],
      [{ name: 'Bob' }, 'tool#3'],
      [{ name: 'Charlie' }, 'tool#2'],
      [{ name: 'Daisy' }, 'tool#1'],
    ])
  })
})

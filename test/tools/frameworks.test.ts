import { ToolMessage } from '@langchain/core/messages'
import { tool as lcTool } from '@langchain/core/tools'
import { RunContext, tool as agentsTool } from '@openai/agents-core'
import { scenario } from 'fluxlab'
import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { tempDir, useEngineSandbox } from '../engine/helpers.js'

useEngineSandbox()

describe('lab.tools with agent frameworks', () => {
  it('tapes an OpenAI Agents JS tool() called the way the Agents runtime calls it', async () => {
    const dir = tempDir()
    const make = (impl: (a: { city: string }) => Promise<string>) =>
      agentsTool({ name: 'get_weather', description: 'Weather for a city', parameters: z.object({ city: z.string() }), execute: impl })
    const call = async (t: ReturnType<typeof make>) =>
      t.invoke(new RunContext({}), JSON.stringify({ city: 'Paris' }), {
        toolCall: { type: 'function_call', callId: 'call_agents_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      })

    const live = vi.fn(async ({ city }: { city: string }) => `18°C in ${city}`)
    const rec = await (await scenario('agents-tool', { dir })).run(async (lab) => {
      const [wrapped] = lab.tools([make(live)])
      expect(wrapped.name).toBe('get_weather')
      expect(wrapped.type).toBe('function')
      return call(wrapped)
    })
    expect(live).toHaveBeenCalledTimes(1)
    expect(rec.result).toBe('18°C in Paris')
    expect(rec.calls).toEqual([{ name: 'get_weather', id: 'call_agents_1', args: { city: 'Paris' }, executedAt: 'tool#1 get_weather' }])

    const spy = vi.fn(async () => 'never')
    const out = await (await scenario('agents-tool', { dir })).run(async (lab) => call(lab.tools([make(spy)])[0]))
    expect(spy).not.toHaveBeenCalled()
    expect(out.result).toBe('18°C in Paris')
    expect(out.divergences).toEqual([])
  })

  it('tapes a LangChain.js tool and still returns a ToolMessage for a tool call', async () => {
    const dir = tempDir()
    const make = (impl: (a: { city: string }) => Promise<string>) =>
      lcTool(impl, { name: 'get_weather', description: 'Weather for a city', schema: z.object({ city: z.string() }) })
    const toolCall = { type: 'tool_call' as const, id: 'call_lc_1', name: 'get_weather', args: { city: 'Paris' } }

    const live = vi.fn(async ({ city }: { city: string }) => `18°C in ${city}`)
    await (await scenario('langchain-tool', { dir })).run(async (lab) => {
      const [wrapped] = lab.tools([make(live)])
      expect(wrapped.name).toBe('get_weather')
      return { direct: await wrapped.invoke({ city: 'Lyon' }), message: await wrapped.invoke(toolCall) }
    })
    expect(live).toHaveBeenCalledTimes(2)

    const spy = vi.fn(async () => 'never')
    const out = await (await scenario('langchain-tool', { dir })).run(async (lab) => {
      const [wrapped] = lab.tools([make(spy)])
      return { direct: await wrapped.invoke({ city: 'Lyon' }), message: await wrapped.invoke(toolCall) }
    })
    expect(spy).not.toHaveBeenCalled()
    expect(out.result.direct).toBe('18°C in Lyon')
    expect(out.result.message).toBeInstanceOf(ToolMessage)
    expect(out.result.message).toMatchObject({ content: '18°C in Paris', tool_call_id: 'call_lc_1' })
    expect(out.calls.map((c) => [c.id, c.args])).toEqual([
      [undefined, { city: 'Lyon' }],
      ['call_lc_1', { city: 'Paris' }],
    ])
    expect(out.divergences).toEqual([])
  })
})

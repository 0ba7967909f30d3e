/**
 * Issue 14: a fixture is read once per process and shared, frozen, by every scenario() of it. What the
 * agent gets from the tape is its own: changing it changes neither the fixture nor the next replay.
 */
import OpenAI from 'openai'
import { expect, test } from 'vitest'
import { scenario, type Lab } from 'fluxlab'
import { openaiBaseURL } from '../support/index.js'
import { serve, tempDir, useEngineSandbox } from './helpers.js'

useEngineSandbox()

test('an agent may change the tool output and input it is replayed; the next replay gets them as recorded', async () => {
  const server = await serve(['openai-chat/test_tool_use_basic.yaml'])
  const dir = tempDir()
  const agent = async (lab: Lab) => {
    const client = new OpenAI({ baseURL: openaiBaseURL(server), apiKey: 'sk-test', maxRetries: 0 })
    const s = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'first' }], stream: true })
    for await (const _ of s);
    const found = (await lab.tool('lookup', async () => ({ items: ['a'] }))()) as { items: string[] }
    const input = lab.input as { tags: string[] }
    found.items.push('changed by the agent')
    input.tags.push('changed too')
    return { items: [...found.items], tags: [...input.tags] }
  }
  await (await scenario('shared', { dir, input: { tags: ['x'] } })).run(agent)
  const recordedTags = (await scenario('shared', { dir })).fixture!.manifest.input as { tags: string[] }
  for (let i = 0; i < 2; i++) {
    const s = await scenario('shared', { dir })
    expect(s.mode).toBe('replay')
    const out = await s.run(agent)
    expect(out.divergences).toEqual([])
    expect(out.result).toEqual({ items: ['a', 'changed by the agent'], tags: [...recordedTags.tags, 'changed too'] })
  }
})

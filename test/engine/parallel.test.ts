/**
 * Two scenarios running at once in one process (SPEC §1): each request is
 * routed to the run it was made in (AsyncLocalStorage), so each records and
 * replays its own whole fixture.
 */
import { join } from 'node:path'
import OpenAI from 'openai'
import { expect, test } from 'vitest'
import { scenario, type Lab } from 'fluxlab'
import { loadExchanges, openaiBaseURL, startProviderServer, type ProviderServer } from '../support/index.js'
import { readJsonl, tempDir, track, useEngineSandbox } from './helpers.js'

useEngineSandbox()

const PROMPT_A = 'What is 1231 * 2331?'
const PROMPT_B = 'Can the country of Crumpet have dragons? Answer with only YES or NO'

/** A non-streaming tool loop on one OpenAI chat endpoint; the two agents differ only by prompt. */
const loopAgent = (server: ProviderServer, prompt: string, stream: boolean) => async (lab: Lab) => {
  const client = new OpenAI({ baseURL: openaiBaseURL(server), apiKey: 'sk-test', maxRetries: 0 })
  const tools = lab.tools({ multiply: async () => 2869461, lookup_population: async () => 123124, can_have_dragons: async () => true })
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: prompt }]
  for (let i = 0; i < 5; i++) {
    let calls: Array<{ id: string; name: string; args: string }> = []
    let content = ''
    if (stream) {
      const s = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true, stream_options: { include_usage: true } })
      const call = { id: '', name: '', args: '' }
      for await (const chunk of s) {
        const d = chunk.choices[0]?.delta
        content += d?.content ?? ''
        call.id += d?.tool_calls?.[0]?.id ?? ''
        call.name += d?.tool_calls?.[0]?.function?.name ?? ''
        call.args += d?.tool_calls?.[0]?.function?.arguments ?? ''
      }
      if (call.id) calls = [call]
    } else {
      const msg = (await client.chat.completions.create({ model: 'gpt-4o-mini', messages })).choices[0].message
      content = msg.content ?? ''
      calls = (msg.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [{ id: c.id, name: c.function.name, args: c.function.arguments }] : []))
    }
    if (calls.length === 0) return content
    messages.push({ role: 'assistant', tool_calls: calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.args } })) })
    for (const c of calls) {
      const fn = tools[c.name as keyof typeof tools] as (a: unknown, o: { toolCallId: string }) => Promise<unknown>
      messages.push({ role: 'tool', tool_call_id: c.id, content: String(await fn(JSON.parse(c.args), { toolCallId: c.id })) })
    }
  }
  throw new Error('no final answer')
}

test('two scenarios run concurrently each record and replay their own whole fixture', async () => {
  const queues: Record<string, ReturnType<typeof loadExchanges>> = {
    [PROMPT_A]: loadExchanges('openai-chat/test_tool_use_basic.yaml'),
    [PROMPT_B]: loadExchanges('openai-chat/test_tool_use_chain_of_two_calls.yaml'),
  }
  // the server answers by prompt, so a request routed to the wrong run would still be answered right, and only the fixtures tell
  const server = await startProviderServer({
    script: (req) => queues[(req.json as { messages: Array<{ content: string }> }).messages[0].content]?.shift(),
    delayMs: 5,
  })
  track(server)
  const dir = tempDir()
  const [a, b] = await Promise.all([scenario('a', { dir }), scenario('b', { dir })])
  const [recA, recB] = await Promise.all([a.run(loopAgent(server, PROMPT_A, true)), b.run(loopAgent(server, PROMPT_B, false))])

  expect(server.hits).toBe(5)
  const firstTwo = server.requests.slice(0, 2).map((r) => (r.json as { messages: Array<{ content: string }> }).messages[0].content)
  expect(firstTwo.sort()).toEqual([PROMPT_A, PROMPT_B].sort()) // both runs were in flight at once
  expect(recA.result).toBe('The result of \\( 1231 \\times 2331 \\) is \\( 2,869,461 \\).')
  expect(recB.result).toBe('YES')

  const cells = (name: string) => readJsonl(join(dir, name, 'model.jsonl'))
  const tools = (name: string) => readJsonl(join(dir, name, 'tools.jsonl'))
  expect(cells('a').map((c) => [c.step, c.request.body.messages[0].content, c.usage.input])).toEqual([
    ['model#1', PROMPT_A, 54],
    ['model#2', PROMPT_A, 87],
  ])
  expect(cells('b').map((c) => [c.step, c.request.body.messages[0].content, c.usage.input])).toEqual([
    ['model#1', PROMPT_B, 92],
    ['model#2', PROMPT_B, 118],
    ['model#3', PROMPT_B, 146],
  ])
  expect(tools('a').map((c) => c.name)).toEqual(['multiply'])
  expect(tools('b').map((c) => c.name)).toEqual(['lookup_population', 'can_have_dragons'])

  await server.close()
  const [repA, repB] = await Promise.all([
    scenario('a', { dir }).then((s) => s.run(loopAgent(server, PROMPT_A, true))),
    scenario('b', { dir }).then((s) => s.run(loopAgent(server, PROMPT_B, false))),
  ])
  expect(server.hits).toBe(5)
  for (const [rec, rep] of [
    [recA, repA],
    [recB, repB],
  ]) {
    expect(rep.mode).toBe('replay')
    expect(rep.divergences).toEqual([])
    expect(rep.hermetic).toBe(true)
    expect(rep.result).toBe(rec.result)
    expect(rep.modelCalls).toEqual(rec.modelCalls)
  }
})

/**
 * Replaying a changed agent (SPEC §3): drift is served by position with a
 * warning; extra, missing and swallowed calls are failures on the outcome; the
 * off-tape answer is a 400 that the openai SDK (default retries) does not retry.
 */
import OpenAI from 'openai'
import { describe, expect, test } from 'vitest'
import { isFluxError, scenario, type Lab, type ScenarioOptions } from 'fluxlab'
import { openaiBaseURL, type ProviderServer } from '../support/index.js'
import { serve, tempDir, useEngineSandbox } from './helpers.js'

useEngineSandbox()

const CHAIN = 'openai-chat/test_tool_use_chain_of_two_calls.yaml'
const PROMPT = 'Can the country of Crumpet have dragons? Answer with only YES or NO'

interface Variant {
  prompt?: string
  /** Model calls of the chain to make (the recording has 3). */
  calls?: number
  /** Ask one more question after the chain: a model call the tape does not have. */
  extra?: 'throw' | 'swallow' | 'return'
  /** Counts every attempt the SDK makes (its `fetch` option). */
  attempts?: { n: number }
}

/** The three-call tool chain of the recording, with the openai SDK at its default `maxRetries` (2). */
const chainAgent =
  (server: ProviderServer, v: Variant = {}) =>
  async (lab: Lab) => {
    const counted: typeof fetch = (input, init) => {
      if (v.attempts) v.attempts.n++
      return fetch(input, init)
    }
    const client = new OpenAI({ baseURL: openaiBaseURL(server), apiKey: 'sk-test', fetch: counted })
    const tools = lab.tools({ lookup_population: async () => 123124, can_have_dragons: async () => true })
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: v.prompt ?? PROMPT }]
    const answers: Array<string | null> = []
    for (let i = 0; i < (v.calls ?? 3); i++) {
      const msg = (await client.chat.completions.create({ model: 'gpt-4o-mini', messages })).choices[0].message
      answers.push(msg.content ?? msg.tool_calls?.map((c) => (c.type === 'function' ? c.function.name : '')).join(',') ?? null)
      messages.push(msg)
      for (const c of msg.tool_calls ?? [])
        if (c.type === 'function') {
          const fn = tools[c.function.name as keyof typeof tools] as (a: unknown, o: { toolCallId: string }) => Promise<unknown>
          messages.push({ role: 'tool', tool_call_id: c.id, content: String(await fn(JSON.parse(c.function.arguments), { toolCallId: c.id })) })
        }
    }
    if (!v.extra) return { answers }
    messages.push({ role: 'user', content: 'Are you sure?' })
    try {
      await client.chat.completions.create({ model: 'gpt-4o-mini', messages })
    } catch (e) {
      if (v.extra === 'throw') throw e
      if (v.extra === 'return')
        return { answers, error: { status: (e as { status?: number }).status, name: (e as Error).constructor.name, message: (e as Error).message } }
    }
    return { answers }
  }

/** Record the chain once, then close the provider. */
async function recordChain(options: ScenarioOptions = {}) {
  const server = await serve([CHAIN])
  const dir = tempDir()
  const recorded = await (await scenario('chain', { dir, ...options })).run(chainAgent(server))
  expect(recorded.modelCalls).toHaveLength(3)
  await server.close()
  const hits = server.hits
  const replay = async (v: Variant, more: ScenarioOptions = {}) => (await scenario('chain', { dir, ...options, ...more })).run(chainAgent(server, v))
  return { server, hits, recorded, replay }
}

const RECORDED_ANSWERS = ['lookup_population', 'can_have_dragons', 'YES']

describe('request drift', () => {
  test('a changed prompt is served by position with a model_request_drift warning naming messages[0].content', async () => {
    const { server, hits, replay } = await recordChain()
    const out = await replay({ prompt: 'Can the country of Muffin have dragons? Answer with only YES or NO' })
    expect(out.result.answers).toEqual(RECORDED_ANSWERS)
    expect(server.hits).toBe(hits)
    expect(out.divergences.map((d) => [d.code, d.severity, d.step])).toEqual([
      ['model_request_drift', 'warning', 'model#1'],
      ['model_request_drift', 'warning', 'model#2'],
      ['model_request_drift', 'warning', 'model#3'],
    ])
    expect(out.warnings).toEqual(out.divergences)
    expect(out.divergences[0].diff).toEqual([
      { path: 'messages[0].content', kind: 'changed', recorded: PROMPT, actual: 'Can the country of Muffin have dragons? Answer with only YES or NO' },
    ])
    expect(out.divergences[0].message).toContain('messages[0].content differs')
    expect(out.divergences[0].closest).toBe('model#1')
    expect(out.failures).toEqual([])
    expect(out.hermetic).toBe(true)
  })

  test('with ignore ["messages[*].content"] a changed prompt matches exactly', async () => {
    const { replay } = await recordChain({ ignore: ['messages[*].content'] })
    const out = await replay({ prompt: 'Can the country of Muffin have dragons? Answer with only YES or NO' })
    expect(out.result.answers).toEqual(RECORDED_ANSWERS)
    expect(out.divergences).toEqual([])
    expect(out.hermetic).toBe(true)
  })
})

describe('calls the tape cannot explain', () => {
  test('an extra model call gets one non-retried 400 naming model#4, and model_index_overflow', async () => {
    const { server, hits, replay } = await recordChain()
    const attempts = { n: 0 }
    const out = await replay({ extra: 'return', attempts })
    expect(attempts.n).toBe(4) // 3 from tape + exactly one attempt at the off-tape call, despite maxRetries 2
    expect(server.hits).toBe(hits)
    const { error } = out.result as { error?: { status: number; name: string; message: string } }
    expect(error).toMatchObject({ status: 400, name: 'BadRequestError' })
    expect(error?.message).toContain('[fluxlab]')
    expect(error?.message).toContain('model#4')
    expect(error?.message).toContain('FLUX_GOLDEN=update')
    expect(out.divergences).toHaveLength(1)
    expect(out.divergences[0]).toMatchObject({ code: 'model_index_overflow', severity: 'failure', step: 'model#4' })
    expect(out.divergences[0].message).toContain('more model calls than the 3 recorded')
    expect(out.hermetic).toBe(false)
  })

  test('a dropped model call fails with unused_interaction for the recorded step', async () => {
    const { server, hits, replay } = await recordChain()
    const out = await replay({ calls: 2 })
    expect(out.result.answers).toEqual(RECORDED_ANSWERS.slice(0, 2))
    expect(server.hits).toBe(hits)
    expect(out.divergences).toEqual([expect.objectContaining({ code: 'unused_interaction', severity: 'failure', step: 'model#3' })])
    expect(out.divergences[0].message).toContain('model#3')
    expect(out.hermetic).toBe(false)
  })

  test('an agent that swallows the off-tape error still has the failure on out.divergences', async () => {
    const { replay } = await recordChain()
    const out = await replay({ extra: 'swallow' })
    expect(out.result).toEqual({ answers: RECORDED_ANSWERS })
    expect(out.failures.map((d) => [d.code, d.step])).toEqual([['model_index_overflow', 'model#4']])
    expect(out.hermetic).toBe(false)
  })

  test('run() rejects with FLUX_DIVERGED naming the step when the agent throws after leaving the tape', async () => {
    const { server, hits, replay } = await recordChain()
    const error = await replay({ extra: 'throw' }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(isFluxError(error, 'FLUX_DIVERGED')).toBe(true)
    const message = (error as Error).message
    expect(message).toMatch(/^\[fluxlab\] (FLUX_DIVERGED: )?Failed to replay scenario "chain"/)
    expect(message).toContain('model#4')
    expect(message).toContain('model_index_overflow')
    expect(message).toContain('FLUX_GOLDEN=update')
    expect((error as Error).cause).toBeInstanceOf(OpenAI.BadRequestError)
    expect(message).toContain(((error as Error).cause as Error).message) // the agent's own error is shown too
    expect(server.hits).toBe(hits)
  })
})

/**
 * Model-channel faults against each SDK's real client: record a two-call tool
 * loop against the local provider server, close the server, then inject the
 * fault at model#2 (or cut model#1's stream). The SDK's own retry logic runs
 * against the injected 429/5xx, reset and timeout and recovers from tape;
 * without retries the fault surfaces as the SDK's own error type.
 */
import Anthropic from '@anthropic-ai/sdk'
import { APICallError, RetryError } from 'ai'
import { matchers } from 'fluxlab/matchers'
import OpenAI from 'openai'
import { describe, expect, test } from 'vitest'
import { useEngineSandbox } from '../engine/helpers.js'
import { aiSdkGenerateAgent, record, recordSdk, SDKS, type SdkName } from './helpers.js'

useEngineSandbox()
expect.extend(matchers)

/** Fast retries: every SDK honours `retry-after-ms` (the AI SDK and OpenAI/Anthropic SDKs alike). */
const NOW = { 'retry-after-ms': '0', 'retry-after': '0' }

/** The error each SDK throws for an HTTP status it was not allowed to retry. */
const statusError: Record<SdkName, Record<number, (e: unknown) => boolean>> = {
  openai: {
    429: (e) => e instanceof OpenAI.RateLimitError,
    500: (e) => e instanceof OpenAI.InternalServerError,
    503: (e) => e instanceof OpenAI.InternalServerError,
    529: (e) => e instanceof OpenAI.InternalServerError,
  },
  anthropic: {
    429: (e) => e instanceof Anthropic.RateLimitError,
    500: (e) => e instanceof Anthropic.InternalServerError,
    503: (e) => e instanceof Anthropic.InternalServerError,
    529: (e) => e instanceof Anthropic.InternalServerError && (e as Error).constructor.name === 'OverloadedError',
  },
  'ai-sdk': {
    429: (e) => APICallError.isInstance(e) && e.statusCode === 429 && e.isRetryable,
    500: (e) => APICallError.isInstance(e) && e.statusCode === 500 && e.isRetryable,
    503: (e) => APICallError.isInstance(e) && e.statusCode === 503 && e.isRetryable,
    529: (e) => APICallError.isInstance(e) && e.statusCode === 529 && e.isRetryable,
  },
}

describe.each(['openai', 'anthropic', 'ai-sdk'] as const)('%s client', (sdk) => {
  const { agent, text } = SDKS[sdk]

  test.each([429, 500, 503, 529])('retries an injected %i and finishes from the tape', async (status) => {
    const { s, url, server, hits } = await recordSdk(sdk)
    const cf = await s
      .injectAt('model#2', { status, headers: status === 429 ? { 'retry-after': '0', 'retry-after-ms': '0' } : NOW })
      .run(agent(url, { maxRetries: 2 }))

    expect(cf.error).toBeUndefined()
    expect(cf.result).toBe(text)
    expect(cf).toReplayFaithfully()
    expect(cf).toBeHermetic()
    expect(server.hits).toBe(hits)
    expect(cf.modelCalls.map((c) => c.status)).toEqual([200, status, 200])
    expect(cf.firstDivergence).toMatchObject({ index: 3, step: 'model#2', reason: 'change' })
    expect(cf.diff()).toEqual([expect.objectContaining({ kind: 'added', index: 3, step: 'model#2', injected: true })])
    expect(cf.applied).toEqual([{ step: 'model#2', description: expect.stringContaining(`HTTP ${status}`) }])
  })

  test.each([429, 500, 503, 529])('surfaces an injected %i as the SDK error when it may not retry', async (status) => {
    const { s, url } = await recordSdk(sdk)
    const cf = await s.injectAt('model#2', { status }).run(agent(url, { maxRetries: 0 }))

    expect(statusError[sdk][status](cf.error)).toBe(true)
    expect(String((cf.error as Error).message)).toContain('injected by fluxlab')
    // the run stayed on tape: the fault is the change, and the recorded model#2 it answered is not a divergence
    expect(cf.hermetic).toBe(true)
    expect(cf.diff()).toMatchObject([
      { kind: 'changed', index: 3, step: 'model#2', recorded: expect.stringContaining('model#2'), actual: expect.stringContaining(`HTTP ${status}`) },
    ])
  })

  test('gives up after `times` faults in a row, as the SDK retry budget runs out', async () => {
    const { s, url } = await recordSdk(sdk)
    const cf = await s.injectAt('model#2', { status: 503, headers: NOW, times: 3 }).run(agent(url, { maxRetries: 2 }))

    expect(cf.modelCalls.map((c) => c.status)).toEqual([200, 503, 503, 503])
    if (sdk === 'ai-sdk') expect(RetryError.isInstance(cf.error)).toBe(true)
    else expect(statusError[sdk][503](cf.error)).toBe(true)
  })

  test('surfaces a connection reset as the SDK connection error', async () => {
    const { s, url } = await recordSdk(sdk)
    const cf = await s.injectAt('model#2', { reset: true }).run(agent(url, { maxRetries: 0 }))

    if (sdk === 'openai') expect(cf.error).toBeInstanceOf(OpenAI.APIConnectionError)
    if (sdk === 'anthropic') expect(cf.error).toBeInstanceOf(Anthropic.APIConnectionError)
    if (sdk === 'ai-sdk') expect(APICallError.isInstance(cf.error) && cf.error.isRetryable && cf.error.message.startsWith('Cannot connect to API')).toBe(true)
    expect(cf.trace()).toContain('transport error: ConnectionReset: the connection dropped before a response (injected by fluxlab)')
  })

  // @note the AI SDK's streamText does not retry a dropped connection or a client timeout (its abort ends the
  // stream quietly), so recovery is a property of the OpenAI and Anthropic clients only; the AI SDK's
  // errors are asserted in the reset test above and in the generateText timeout test below.
  if (sdk !== 'ai-sdk')
    test('retries a connection reset and recovers from the tape', async () => {
      const { s, url } = await recordSdk(sdk)
      const cf = await s.injectAt('model#2', { reset: true }).run(agent(url, { maxRetries: 1 }))

      expect(cf.error).toBeUndefined()
      expect(cf.result).toBe(text)
      expect(cf).toBeHermetic()
      expect(cf.modelCalls.map((c) => c.status)).toEqual([200, 0, 200])
    })

  if (sdk !== 'ai-sdk')
    test('times out while the response hangs, then retries from the tape', async () => {
      const { s, url } = await recordSdk(sdk)
      const timedOut = await s.injectAt('model#2', { timeout: true }).run(agent(url, { maxRetries: 0, timeout: 200 }))
      if (sdk === 'openai') expect(timedOut.error).toBeInstanceOf(OpenAI.APIConnectionTimeoutError)
      if (sdk === 'anthropic') expect(timedOut.error).toBeInstanceOf(Anthropic.APIConnectionTimeoutError)

      const recovered = await s.injectAt('model#2', { timeout: true }).run(agent(url, { maxRetries: 1, timeout: 200 }))
      expect(recovered.error).toBeUndefined()
      expect(recovered.result).toBe(text)
      expect(recovered).toBeHermetic()
    })

  test('cuts a stream after N chunks with a network error', async () => {
    const { s, url } = await recordSdk(sdk)
    const cf = await s.injectAt('model#1', { cutAfter: 2 }).run(agent(url, { maxRetries: 0 }))

    if (sdk === 'openai') expect([(cf.error as Error).name, (cf.error as Error).message]).toEqual(['TypeError', 'terminated'])
    if (sdk === 'anthropic') expect(cf.error).toBeInstanceOf(Anthropic.AnthropicError)
    if (sdk === 'ai-sdk') expect(APICallError.isInstance(cf.error) && (cf.error.cause as Error)?.message === 'terminated').toBe(true)
    expect(cf.modelCalls[0]).toMatchObject({ step: 'model#1', error: expect.stringContaining('stream cut after 2 chunks') })
    const recorded = s.fixture!.model[0].response.chunks
    expect(cf.firstDivergence).toMatchObject({ index: 1, step: 'model#1', reason: 'change' })
    expect((cf.outcome.trace().match(/stream cut after 2 chunks/g) ?? []).length).toBe(1)
    expect(recorded.length).toBeGreaterThan(2)
    // the rest of the recorded run is not a divergence: the fault took the run elsewhere
    expect(cf.diff().map((r) => r.kind)).toEqual(['changed', 'removed', 'removed'])
    expect(cf.hermetic).toBe(true)
  })
})

test('AI SDK generateText rejects with its abort reason when an injected timeout outlasts its abortSignal', async () => {
  const { s, url } = await record('ai-sdk-generate', ['openai-chat/test_tool_use_chain_of_two_calls.yaml'], aiSdkGenerateAgent)
  const cf = await s.injectAt('model#2', { timeout: true }).run(aiSdkGenerateAgent(url, { maxRetries: 0, timeout: 200 }))

  expect([(cf.error as Error).name, (cf.error as Error).constructor.name]).toEqual(['TimeoutError', 'DOMException'])
  expect(cf.trace()).toContain('transport error: Timeout: no response until the client aborted (injected by fluxlab)')

  const fine = await s.injectAt('model#2', { status: 429, headers: NOW }).run(aiSdkGenerateAgent(url, { maxRetries: 1 }))
  expect(fine.result).toBe('YES')
  expect(fine).toBeHermetic()
})

test('an injected 429 with retry-after: 1 makes the OpenAI SDK wait a second, then the retry is served from tape', async () => {
  const { s, url } = await recordSdk('openai')
  const t0 = Date.now()
  const rl = await s.injectAt('model#2', { status: 429, headers: { 'retry-after': '1' } }).run(SDKS.openai.agent(url, { maxRetries: 2 }))
  expect(Date.now() - t0).toBeGreaterThanOrEqual(950)
  expect(rl).toReplayFaithfully()
  expect(rl.result).toBe(SDKS.openai.text)
})

describe('wrong faults', () => {
  test('a step the recording does not have is an error that lists its steps', async () => {
    const { s, url } = await recordSdk('openai')
    await expect(s.injectAt(9, { status: 500 }).run(SDKS.openai.agent(url, { maxRetries: 0 }))).rejects.toThrowErrorMatchingInlineSnapshot(`
      [FluxError: [fluxlab] FLUX_BAD_CONFIG: Failed to inject a fault at step 9 of scenario "openai-loop": the recording has 3 steps and none is 9. Use a step as numbered in the scenario's trace.snap, e.g. 3, 'model#2' or 'tool#1'.
        • 1 model#1
        • 2 tool#1 multiply
        • 3 model#2]
    `)
  })

  test('a tool fault on a model step is an error that names the faults that fit', async () => {
    const { s, url } = await recordSdk('openai')
    await expect(s.injectAt('model#1', { error: 'disk full' }).run(SDKS.openai.agent(url, { maxRetries: 0 }))).rejects.toThrow(
      'an error fault does not apply to a model call. Use { status }, { reset: true }, { timeout: true } or { cutAfter: n } there.',
    )
  })
})

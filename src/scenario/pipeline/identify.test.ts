// How a request is identified (./index.ts `classifyRequest`): its canonical form and key are remembered by its exact
// bytes and the run's rules, shared between runs and frozen; a user's replacement function is never trusted to answer
// the same twice.
import OpenAI from 'openai'
import { describe, expect, test } from 'vitest'
import { canonicalRequest, requestKey } from '../../cassette/canonical.js'
import { createNormalizer } from '../../cassette/normalize.js'
import { createRedactor } from '../../cassette/redact.js'
import { Run, runSettings } from '../run.js'
import type { RunSettings } from './config.js'

const COMPLETION = {
  id: 'chatcmpl-identify01',
  object: 'chat.completion',
  created: 1764979200,
  model: 'gpt-4o-mini-2024-07-18',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Sunny.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 },
}
const live = async () => new Response(JSON.stringify(COMPLETION), { headers: { 'content-type': 'application/json' } })

/** One recording run asking `question`; its model call as the run identified it. */
async function recordOne(settings: RunSettings, question = 'Weather in Paris on 2026-12-06?') {
  const run = new Run({ name: 'weather', dir: '/nonexistent/weather', mode: 'record', settings, live })
  const client = new OpenAI({ baseURL: 'https://api.openai.com/v1', apiKey: 'sk-test', maxRetries: 0 })
  const { failure } = await run.drive(() => client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: question }] }))
  expect(failure).toBeUndefined()
  const [cell] = run.recordedCells().model
  return cell
}

describe('identifying a request', () => {
  test('the same bytes under the same rules: one canonical form, shared by both runs and frozen, with the key computed afresh', async () => {
    const settings = runSettings({}, false)
    const [a, b] = [await recordOne(settings), await recordOne(settings)]
    expect(b.request).toBe(a.request)
    expect(b.key).toBe(a.key)
    expect(Object.isFrozen(a.request) && Object.isFrozen(a.request.body)).toBe(true)
    expect(() => ((a.request.body as { messages: unknown[] }).messages = [])).toThrow(TypeError)
    const fresh = canonicalRequest(
      'POST',
      new URL('https://api.openai.com/v1/chat/completions'),
      JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Weather in Paris on 2026-12-06?' }] }),
      settings,
    )
    expect(a.request).toEqual(fresh)
    expect(a.key).toBe(requestKey(fresh))
  })

  test('other bytes, or the same bytes under other rules, are identified apart', async () => {
    const plain = runSettings({}, false)
    const a = await recordOne(plain)
    expect((await recordOne(plain, 'Weather in Rome?')).key).not.toBe(a.key)
    const redacting = { ...plain, redactor: createRedactor({ replace: [{ pattern: 'Paris', with: '<city>' }] }) }
    const r = await recordOne(redacting)
    expect(JSON.stringify(r.request.body)).toContain('<city>')
    expect(r.key).not.toBe(a.key)
    const dated = { ...plain, normalize: createNormalizer(['iso-dates']) }
    expect(JSON.stringify((await recordOne(dated)).request.body)).toContain('<date>')
    expect((await recordOne({ ...plain, ignore: ['messages'] })).request.body).not.toHaveProperty('messages')
  })

  // (the option's type says a string; a suite in plain JavaScript can pass a function, which String.replace takes)
  const fn = (f: () => string) => f as unknown as string
  test('a normalize rule whose replacement is a function is asked again for every request: its answer may change', async () => {
    let n = 0
    const counting = { ...runSettings({}, false), normalize: createNormalizer([{ pattern: /Paris/g, replace: fn(() => `<city ${++n}>`) }]) }
    const [a, b] = [await recordOne(counting), await recordOne(counting)]
    expect(JSON.stringify(a.request.body)).toContain('<city 1>')
    expect(JSON.stringify(b.request.body)).toContain('<city 2>')
    expect(b.key).not.toBe(a.key)
    // and such a normalizer is never handed out again for an equal-looking config with another function
    expect(createNormalizer([{ pattern: /Paris/g, replace: fn(() => 'x') }])).not.toBe(createNormalizer([{ pattern: /Paris/g, replace: fn(() => 'y') }]))
  })

  test('a recording identifies a model call after the client has its answer: its canonical form waits for the end of the body', async () => {
    let n = 0
    const settings = { ...runSettings({}, false), normalize: createNormalizer([{ pattern: /Paris/g, replace: fn(() => `<city ${++n}>`) }]) }
    let end!: () => void
    const body = new ReadableStream<Uint8Array>({
      start: (c) => {
        c.enqueue(new TextEncoder().encode(JSON.stringify(COMPLETION)))
        end = () => c.close()
      },
    })
    const streaming = async () => new Response(body, { headers: { 'content-type': 'application/json' } })
    const run = new Run({ name: 'weather', dir: '/nonexistent/weather', mode: 'record', settings, live: streaming })
    const question = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Weather in Paris?' }] })
    const response = await run.handle(new Request('https://api.openai.com/v1/chat/completions', { method: 'POST', body: question }))
    expect([response.status, n]).toEqual([200, 0])
    end()
    expect(JSON.parse(await response.text())).toEqual(COMPLETION)
    await run.settled()
    expect(n).toBe(1)
    expect(JSON.stringify(run.recordedCells().model[0].request.body)).toContain('<city 1>')
  })

  test('an in-process tool call is remembered by its name and JSON arguments; arguments with no JSON text are keyed as before', async () => {
    const settings = runSettings({}, false)
    /** One recording run calling the tool once with `args`; the call's cell. */
    const callOnce = async (args: unknown) => {
      const run = new Run({ name: 'tools', dir: '/nonexistent/tools', mode: 'record', settings, live })
      const { failure } = await run.drive((lab) => lab.tool('lookup', (a: unknown) => ({ got: typeof a }))(args))
      expect(failure).toBeUndefined()
      return run.recordedCells().tools[0] as { args: unknown; key: string }
    }
    const [a, b] = [await callOnce({ city: 'Paris', days: [1, 2] }), await callOnce({ city: 'Paris', days: [1, 2] })]
    expect(b.args).toBe(a.args)
    expect(Object.isFrozen((a.args as { days: unknown }).days)).toBe(true)
    expect((await callOnce({ city: 'Rome', days: [1, 2] })).key).not.toBe(a.key)
    // a BigInt has no JSON text: its string stands for it, as it did
    const big = await callOnce(10n)
    expect(big.args).toBe('10')
    expect((await callOnce(11n)).key).not.toBe(big.key)
  })
})

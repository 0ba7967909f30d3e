/**
 * Issue 38 item 2, SPEC §3: a call is on the tape from its send, and its replay keeps the order of events the test saw.
 * A test that races a model call against a short timer (burnside's `should handle network timeouts gracefully`) is
 * over before the answer comes; the recording still takes the answer in (the run waits a moment for calls in flight),
 * and stores that it came after the run's end (`afterEnd`). A replay holds that answer until its own run ends, so the
 * timer wins again: without it, the replayed answer beat the 1 ms timer and the test failed on replay only.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import OpenAI from 'openai'
import { expect, test } from 'vitest'
import { scenario } from 'fluxlab'
import { readJsonl, tempDir, track, useEngineSandbox } from './helpers.js'

useEngineSandbox()

const ANSWER = {
  id: 'chatcmpl-AfterEnd01',
  object: 'chat.completion',
  created: 1764000000,
  model: 'gpt-4o-mini-2024-07-18',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 },
}

/** A provider that sends its headers `delayMs` after the request, as a slow model does. */
async function slowProvider(delayMs: number) {
  let hits = 0
  const server = createServer((req, res) => {
    hits++
    req.resume()
    req.on('end', () => setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(ANSWER)), delayMs))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const handle = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    hits: () => hits,
    close: () => new Promise<void>((r) => server.close(() => r())),
  }
  track(handle)
  return handle
}

/** The test's body: the call against a 5 ms timer, as `withTimeout(client.chat(…), 1)` does. */
const raced = (baseURL: string) => async () => {
  const client = new OpenAI({ apiKey: 'sk-proj-afterEnd0123456789abcdefABCDEF', baseURL, maxRetries: 0 })
  const call = client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello.' }] })
  call.catch(() => undefined)
  const timer = new Promise<string>((resolve) => setTimeout(() => resolve('timed out'), 5))
  return Promise.race([call.then((r) => `answered: ${r.choices[0].message.content}`), timer])
}

test('an answer that came after its test was over is stored so, and its replay comes after the replay is over', async () => {
  const provider = await slowProvider(80)
  const dir = tempDir()
  const recorded = await (await scenario('raced', { dir })).run(raced(provider.url))
  expect(recorded.mode).toBe('record')
  expect(recorded.result).toBe('timed out')
  const [cell] = readJsonl(join(dir, 'raced', 'model.jsonl'))
  expect([cell.response.status, cell.response.afterEnd, cell.text]).toEqual([200, true, 'Hello.'])

  const hits = provider.hits()
  await provider.close()
  process.env.FLUX_OFFLINE = '1'
  const replayed = await (await scenario('raced', { dir })).run(raced(provider.url))
  expect(replayed.mode).toBe('replay')
  expect(replayed.result).toBe('timed out')
  expect(replayed.divergences ?? []).toEqual([])
  expect(provider.hits()).toBe(hits)
})

test('an answer that came before the end replays at once, as before', async () => {
  const provider = await slowProvider(0)
  const dir = tempDir()
  const slow = (baseURL: string) => async () => {
    const client = new OpenAI({ apiKey: 'sk-proj-afterEnd0123456789abcdefABCDEF', baseURL, maxRetries: 0 })
    const r = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello.' }] })
    return r.choices[0].message.content
  }
  await (await scenario('awaited', { dir })).run(slow(provider.url))
  const [cell] = readJsonl(join(dir, 'awaited', 'model.jsonl'))
  expect(cell.response.afterEnd).toBeUndefined()
  await provider.close()
  process.env.FLUX_OFFLINE = '1'
  const replayed = await (await scenario('awaited', { dir })).run(slow(provider.url))
  expect([replayed.mode, replayed.result]).toEqual(['replay', 'Hello.'])
})

/**
 * SPEC §3 / issue 12: a client abort is an event on the tape. Recording keeps the chunks the run
 * saw and that the client aborted; replay serves them and waits for the client's own abort, so
 * the client sees its own abort (which the openai SDK ends the stream on), never a network error.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import OpenAI from 'openai'
import { scenario } from 'fluxlab'
import { matchers } from 'fluxlab/matchers'
import { expect, test } from 'vitest'
import { openaiBaseURL, type ProviderServer } from '../support/index.js'
import { serve, tempDir, useEngineSandbox } from './helpers.js'

useEngineSandbox()
expect.extend(matchers)

/** Streams a completion and aborts after the second content chunk, as a "stop generating" button does. */
const agent = (server: ProviderServer) => async () => {
  const client = new OpenAI({ baseURL: openaiBaseURL(server), apiKey: 'sk-test', maxRetries: 0 })
  const controller = new AbortController()
  const stream = await client.chat.completions.create(
    { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'Tell me a story' }] },
    { signal: controller.signal },
  )
  let text = ''
  let seen = 0
  try {
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta?.content
      if (!delta) continue
      text += delta
      if (++seen === 2) controller.abort()
    }
    return { ended: 'complete', text }
  } catch (e) {
    return { ended: (e as Error).constructor.name, text }
  }
}

test('a client abort mid-stream replays as the same abort after the same text', async () => {
  const dir = tempDir()
  const server = await serve(['openai-chat/openai-text.chunks.txt'], { chunking: 'events', delayMs: 30 })
  const rec = await (await scenario('abort', { dir })).run(agent(server))
  // The openai SDK ends the iteration quietly when its own signal aborts it.
  expect(rec.result).toEqual({ ended: 'complete', text: expect.any(String) })
  expect(rec.result.text.length).toBeGreaterThan(0)
  const cell = JSON.parse(readFileSync(join(dir, 'abort/model.jsonl'), 'utf8').trim())
  expect(cell.transportError).toBeUndefined()
  expect(cell.response.clientAbort).toMatchObject({ afterChunks: expect.any(Number) })
  await server.close()

  for (const timing of [undefined, 'recorded' as const]) {
    const out = await (await scenario('abort', { dir, ...(timing ? { timing } : {}) })).run(agent(server))
    expect(out.result).toEqual(rec.result)
    expect(out).toReplayFaithfully()
  }
})

test('while recording, a client that aborts mid-stream reads no chunk past its abort, as without fluxlab', async () => {
  const server = await serve(['openai-chat/openai-text.chunks.txt'], { chunking: 'events', delayMs: 20 })
  /** Read one chunk, abort, wait until more has arrived upstream, then read again: fetch rejects that read. */
  const readPastAbort = async () => {
    const controller = new AbortController()
    const res = await fetch(`${openaiBaseURL(server)}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'Tell me a story' }] }),
      signal: controller.signal,
    })
    const reader = res.body!.getReader()
    await reader.read()
    controller.abort()
    await new Promise((resolve) => setTimeout(resolve, 120))
    return reader.read().then(
      () => 'read on',
      (e: Error) => e.name,
    )
  }
  const live = await readPastAbort()
  const recorded = await (await scenario('abort-read-on', { dir: tempDir() })).run(readPastAbort)
  expect(live).toBe('AbortError')
  expect(recorded.result).toBe(live)
})

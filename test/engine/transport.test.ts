/**
 * SPEC §3: a transport failure (here: connection refused) is a cell, replayed as the same error
 * the client saw, so an agent that handles it behaves the same on replay.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import OpenAI from 'openai'
import { scenario } from 'fluxlab'
import { matchers } from 'fluxlab/matchers'
import { expect, test } from 'vitest'
import { tempDir, useEngineSandbox } from './helpers.js'
import { downProviderUrl } from '../e2e/support/capital-server.js'

useEngineSandbox()
expect.extend(matchers)

/** An agent that falls back when the provider and its status service cannot be reached. */
const agent = (base: string) => async () => {
  const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: 'sk-test', maxRetries: 0 })
  const seen: string[] = []
  try {
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
  } catch (e) {
    seen.push(`model: ${(e as Error).constructor.name}`)
  }
  try {
    await fetch(`${base}/status`)
  } catch (e) {
    seen.push(`status: ${(e as Error).name}`)
  }
  return seen
}

test('a refused connection is recorded as a cell and replayed as the same error', async () => {
  const dir = tempDir()
  const base = await downProviderUrl()
  const rec = await (await scenario('refused', { dir })).run(agent(base))
  expect(rec.result).toEqual(['model: APIConnectionError', 'status: TypeError'])
  const model = JSON.parse(readFileSync(join(dir, 'refused/model.jsonl'), 'utf8').trim())
  expect(model.transportError).toMatchObject({ code: 'ECONNREFUSED' })
  expect(model.response.status).toBe(0)
  const tool = JSON.parse(readFileSync(join(dir, 'refused/tools.jsonl'), 'utf8').trim())
  expect(tool).toMatchObject({ name: expect.stringMatching(/^GET 127\.0\.0\.1:\d+\/status$/), transportError: { code: 'ECONNREFUSED' } })
  expect(tool.response).toBeUndefined()

  const out = await (await scenario('refused', { dir })).run(agent(base))
  expect(out.result).toEqual(rec.result)
  expect(out).toReplayFaithfully()
  expect(out.hermetic).toBe(true)
})

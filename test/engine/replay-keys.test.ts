/**
 * Issue 11: on replay, the key variables a suite's gates read get a placeholder, the built-in provider keys and
 * the names the user lists (`keys`, `FLUX_KEYS`), and they are gone again after the run.
 */
import OpenAI from 'openai'
import { scenario } from 'fluxlab'
import { afterEach, expect, test } from 'vitest'
import { serve, tempDir, useEngineSandbox } from './helpers.js'
import { openaiBaseURL } from '../support/base-urls.js'

useEngineSandbox()
afterEach(() => {
  delete process.env.FLUX_KEYS
})

test('a replay fills AZURE_OPENAI_API_KEY and the listed names while it runs, and removes them after', async () => {
  const dir = tempDir()
  const server = await serve(['openai-chat/openai-text.json'])
  const agent = async () => {
    const seen = { azure: process.env.AZURE_OPENAI_API_KEY, gateway: process.env.LITELLM_API_KEY, fromEnv: process.env.MY_GATE }
    const client = new OpenAI({ baseURL: openaiBaseURL(server), apiKey: 'sk-test', maxRetries: 0 })
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Tell me a joke' }] })
    return seen
  }
  await (await scenario('joke', { dir, keys: ['LITELLM_API_KEY'] })).run(agent)
  await server.close()
  process.env.FLUX_KEYS = 'MY_GATE'
  const out = await (await scenario('joke', { dir, keys: ['LITELLM_API_KEY'] })).run(agent)
  expect(out.mode).toBe('replay')
  expect(out.result).toEqual({ azure: 'fluxlab-replay-no-key', gateway: 'fluxlab-replay-no-key', fromEnv: 'fluxlab-replay-no-key' })
  expect([process.env.AZURE_OPENAI_API_KEY, process.env.LITELLM_API_KEY, process.env.MY_GATE]).toEqual([undefined, undefined, undefined])
})

/**
 * Issue 24 (SPEC §2 "Keys"): a recording notes the names of the key variables its requests carried, never their
 * values; a replay gives exactly those (and the names the user lists in `keys`, `FLUX_KEYS`) a placeholder while it
 * runs, no other provider's, and removes them after.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import OpenAI from 'openai'
import { scenario } from 'fluxlab'
import { matchers } from 'fluxlab/matchers'
import { afterEach, expect, test } from 'vitest'
import { serve, tempDir, useEngineSandbox } from './helpers.js'
import { openaiBaseURL } from '../support/base-urls.js'

useEngineSandbox()
expect.extend(matchers)
const NAMES = ['TEST_GATEWAY_API_KEY', 'AZURE_OPENAI_API_KEY', 'LITELLM_API_KEY', 'MY_GATE']
afterEach(() => {
  for (const k of [...NAMES, 'FLUX_KEYS']) delete process.env[k]
})

test('a recording notes the key variable its requests carried; its replay fills exactly that one and the listed names, then removes them', async () => {
  const dir = tempDir()
  const server = await serve(['openai-chat/openai-text.json'])
  const key = 'sk-gw-7Hq2vX9pLm4rT8wZ1nB5cY3d'
  const agent = async () => {
    const seen = {
      gateway: process.env.TEST_GATEWAY_API_KEY,
      azure: process.env.AZURE_OPENAI_API_KEY,
      listed: process.env.LITELLM_API_KEY,
      fromEnv: process.env.MY_GATE,
    }
    // The client reads its key from the environment, as `new OpenAI()` does with OPENAI_API_KEY.
    const client = new OpenAI({ baseURL: openaiBaseURL(server), apiKey: process.env.TEST_GATEWAY_API_KEY, maxRetries: 0 })
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Tell me a joke' }] })
    return seen
  }
  process.env.TEST_GATEWAY_API_KEY = key
  await (await scenario('joke', { dir, keys: ['LITELLM_API_KEY'] })).run(agent)
  await server.close()
  const manifest = readFileSync(join(dir, 'joke/scenario.yaml'), 'utf8')
  expect(manifest).toContain('keyVars:\n  - TEST_GATEWAY_API_KEY\n')
  for (const f of ['scenario.yaml', 'model.jsonl', 'trace.snap']) expect(readFileSync(join(dir, 'joke', f), 'utf8')).not.toContain(key.slice(6))

  delete process.env.TEST_GATEWAY_API_KEY
  process.env.FLUX_KEYS = 'MY_GATE'
  const out = await (await scenario('joke', { dir, keys: ['LITELLM_API_KEY'] })).run(agent)
  expect(out.mode).toBe('replay')
  expect(out).toReplayFaithfully()
  expect(out.result).toEqual({
    gateway: 'fluxlab-replay-no-key-TEST_GATEWAY_API_KEY',
    azure: undefined,
    listed: 'fluxlab-replay-no-key-LITELLM_API_KEY',
    fromEnv: 'fluxlab-replay-no-key-MY_GATE',
  })
  expect(NAMES.map((k) => process.env[k])).toEqual(NAMES.map(() => undefined))
})

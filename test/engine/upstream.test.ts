/**
 * Issue 11: a client hard-wired to the vendor's base URL records through an upstream (a
 * gateway, a proxy, a local emulator), and the fixture keeps the vendor host.
 * @note the vendor host here is under `.invalid` (RFC 2606), so even a broken upstream map
 * could never reach a public address.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import OpenAI from 'openai'
import { scenario } from 'fluxlab'
import { afterEach, expect, test } from 'vitest'
import { serve, tempDir, useEngineSandbox } from './helpers.js'

useEngineSandbox()
afterEach(() => {
  delete process.env.FLUX_UPSTREAM
})

const VENDOR = 'https://api.vendor.invalid/v1'
const agent = async () => {
  const client = new OpenAI({ baseURL: VENDOR, apiKey: 'sk-test', maxRetries: 0 })
  const r = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Tell me a joke' }] })
  return r.choices[0].message.content
}

test.each([
  ['the upstream option', (url: string) => ({ upstream: { 'api.vendor.invalid': url } })],
  ['FLUX_UPSTREAM', (url: string) => ((process.env.FLUX_UPSTREAM = `api.vendor.invalid=${url}`), {})],
])('%s sends recording traffic to the upstream; the fixture keeps the vendor host; replay needs neither', async (_, configure) => {
  const dir = tempDir()
  const server = await serve(['openai-chat/openai-text.json'])
  const options = configure(server.url)
  const rec = await (await scenario('joke', { dir, ...options })).run(agent)
  expect(server.hits).toBe(1)
  expect(server.requests[0].path).toBe('/v1/chat/completions')
  const cell = JSON.parse(readFileSync(join(dir, 'joke/model.jsonl'), 'utf8').trim())
  expect(cell.url).toBe(`${VENDOR}/chat/completions`)
  expect(readFileSync(join(dir, 'joke/scenario.yaml'), 'utf8')).toContain('api.vendor.invalid')
  await server.close()
  delete process.env.FLUX_UPSTREAM

  const out = await (await scenario('joke', { dir })).run(agent)
  expect(out.result).toBe(rec.result)
  expect(out.hermetic).toBe(true)
})

test('a malformed FLUX_UPSTREAM is FLUX_BAD_CONFIG naming the pair', async () => {
  process.env.FLUX_UPSTREAM = 'api.vendor.invalid'
  await expect(scenario('x', { dir: tempDir() })).rejects.toThrow('FLUX_BAD_CONFIG: Failed to read FLUX_UPSTREAM: "api.vendor.invalid" is not host=url')
})

test('a recording that reached a provider host but made no model call it knows is FLUX_RECORD_FAILED, and writes nothing', async () => {
  const dir = tempDir()
  const server = await serve(['openai-chat/openai-text.json'])
  // A path no family serves (a file upload), on a host mapped to openai-chat.
  const options = { upstream: { 'api.vendor.invalid': server.url }, hosts: { 'api.vendor.invalid': 'openai-chat' as const } }
  const s = await scenario('upload', { dir, ...options })
  await expect(s.run(() => fetch('https://api.vendor.invalid/v1/files', { method: 'POST', body: '{"purpose":"batch"}' }))).rejects.toThrow(
    'FLUX_RECORD_FAILED: Failed to record scenario "upload": the run reached api.vendor.invalid (openai-chat) at POST /v1/files, which fluxlab does not know as a model call',
  )
  expect(existsSync(join(dir, 'upload'))).toBe(false)
})

test('a recording that only read the provider model list (GET /v1/models) writes it, and its replay serves that list offline', async () => {
  const dir = tempDir()
  const list = JSON.stringify({ object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model', created: 1, owned_by: 'openai' }] })
  const server = await serve([{ method: 'GET', path: '/v1/models', status: 200, headers: { 'content-type': 'application/json' }, body: list }])
  const options = { upstream: { 'api.vendor.invalid': server.url }, hosts: { 'api.vendor.invalid': 'openai-chat' as const } }
  const models = async () => {
    const client = new OpenAI({ baseURL: VENDOR, apiKey: 'sk-test', maxRetries: 0 })
    const ids: string[] = []
    for await (const m of client.models.list()) ids.push(m.id)
    return ids
  }
  const rec = await (await scenario('models', { dir, ...options })).run(models)
  expect(rec.result).toEqual(['gpt-4o-mini'])
  expect(readFileSync(join(dir, 'models/tools.jsonl'), 'utf8')).toContain('"name":"GET api.vendor.invalid/v1/models"')
  await server.close()
  const out = await (await scenario('models', { dir, ...options })).run(models)
  expect(out.result).toEqual(['gpt-4o-mini'])
  expect(out.hermetic).toBe(true)
  expect(server.hits).toBe(1)
})

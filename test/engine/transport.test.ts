/**
 * SPEC §3: a transport failure (connection refused, reset before a response, TLS) is a cell, replayed as the same error
 * the client saw, so an agent that handles it behaves the same on replay.
 */
import { readFileSync } from 'node:fs'
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
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
  // issue 39: the model call went live and failed: a live call all the same
  expect(rec.modelLive).toBe(1)
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

/** The first `code` down an error's cause chain (`fetch failed` → `ECONNRESET`). */
function codeOf(e: unknown): string | undefined {
  for (let c = e as { code?: unknown; cause?: unknown } | undefined, i = 0; c && i < 5; c = c.cause as typeof c, i++)
    if (typeof c.code === 'string') return c.code
  return undefined
}

/** The same agent, noting the error code the client saw (through the SDK's and fetch's cause chains). */
const codeAgent = (base: string) => async () => {
  const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: 'sk-test', maxRetries: 0 })
  const seen: string[] = []
  await client.chat.completions
    .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
    .catch((e: unknown) => seen.push(`model: ${(e as Error).constructor.name} ${codeOf(e)}`))
  await fetch(`${base}/status`).catch((e: unknown) => seen.push(`status: ${(e as Error).name} ${codeOf(e)}`))
  return seen
}

test.each([
  {
    what: 'a connection reset before any response',
    // The server takes the request and drops the socket without a byte of answer.
    listen: () => listen(createHttpServer((req) => req.socket.destroy())),
    scheme: 'http',
    code: 'UND_ERR_SOCKET',
  },
  {
    what: 'a TLS failure (https to a server that speaks plain HTTP)',
    listen: () => listen(createHttpServer((_req, res) => res.end('plain'))),
    scheme: 'https',
    code: 'ERR_SSL_WRONG_VERSION_NUMBER',
  },
])('$what is recorded as a cell and replayed as the same error', async ({ what, listen: start, scheme, code }) => {
  const dir = tempDir()
  const name = what.startsWith('a TLS') ? 'tls' : 'reset'
  const server = await start()
  const base = `${scheme}://127.0.0.1:${server.port}`
  const rec = await (await scenario(name, { dir })).run(codeAgent(base))
  expect(rec.result).toEqual(['model: APIConnectionError undefined', 'status: TypeError undefined'])
  const model = JSON.parse(readFileSync(join(dir, `${name}/model.jsonl`), 'utf8').trim())
  expect(model.response.status).toBe(0)
  // The cell keeps the error's class and code; the client is answered with a network error (msw's), as on replay.
  expect(model.transportError.code).toBe(code)
  const tool = JSON.parse(readFileSync(join(dir, `${name}/tools.jsonl`), 'utf8').trim())
  expect(tool.transportError.code).toBe(code)
  await server.close()

  const out = await (await scenario(name, { dir })).run(codeAgent(base))
  expect(out.result).toEqual(rec.result)
  expect(out).toReplayFaithfully()
  expect(out.hermetic).toBe(true)
})

function listen(server: HttpServer): Promise<{ port: number; close(): Promise<void> }> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () => {
          server.closeAllConnections()
          return new Promise<void>((r) => server.close(() => r()))
        },
      }),
    ),
  )
}

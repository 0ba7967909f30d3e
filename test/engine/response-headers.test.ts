/**
 * Issue 38 item 7, SPEC §4: the response headers a client reads (the request id the OpenAI and Anthropic SDKs expose as
 * `_request_id`, rate limits, retry hints) are replayed as recorded; secrets, cookies, hop-by-hop headers and `date`
 * never reach the fixture. Real SDK clients against a local server on 127.0.0.1, replayed with the server closed and
 * `FLUX_OFFLINE=1`.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { describe, expect, test } from 'vitest'
import type { Exchange } from '../support/index.js'
import { anthropicBaseURL, openaiBaseURL } from '../support/index.js'
import { scenario, type Outcome } from 'fluxlab'
import { serve, tempDir, useEngineSandbox } from './helpers.js'

useEngineSandbox()

const COOKIE = '__cf_bm=Zq8cookieValueThatMustNeverBeStored0123456789; path=/; HttpOnly'
const TOKEN = 'tok_live_1b2c3d4e5f60718293a4b5c6d7e8f901'
/** What a client may read of a response, and the secrets it must not find in a fixture. */
const secrets = { 'set-cookie': COOKIE, 'x-auth-token': TOKEN }

const chat: Exchange = {
  method: 'POST',
  path: '/v1/chat/completions',
  status: 200,
  headers: {
    'content-type': 'application/json',
    'x-request-id': 'req_5f1d0c3e9a86953713a6dc1b17e399fd',
    'x-ratelimit-remaining-requests': '4999',
    'x-ratelimit-reset-requests': '12ms',
    'retry-after-ms': '20',
    ...secrets,
  },
  body: JSON.stringify({
    id: 'chatcmpl-AbC123dEf456',
    object: 'chat.completion',
    created: 1764000000,
    model: 'gpt-4o-mini-2024-07-18',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Paris.' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 12, completion_tokens: 2, total_tokens: 14 },
  }),
}

const messages: Exchange = {
  method: 'POST',
  path: '/v1/messages',
  status: 200,
  headers: {
    'content-type': 'application/json',
    'request-id': 'req_011CVxyzAbCdEfGhIjKlMnOp',
    'anthropic-ratelimit-requests-remaining': '49',
    'anthropic-ratelimit-requests-reset': '2026-12-06T16:50:00Z',
    'retry-after': '3',
    ...secrets,
  },
  body: JSON.stringify({
    id: 'msg_01AbCdEfGhIjKlMnOp',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'text', text: 'Paris.' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 2 },
  }),
}

/** Record `agent` against `server`, close it, and replay offline (`FLUX_OFFLINE=1`). */
async function recordThenReplayOffline<R>(name: string, server: { hits: number; close(): Promise<void> }, agent: () => Promise<R>) {
  const dir = tempDir()
  const recorded: Outcome<R> = await (await scenario(name, { dir })).run(agent)
  const hits = server.hits
  await server.close()
  process.env.FLUX_OFFLINE = '1'
  const replayed: Outcome<R> = await (await scenario(name, { dir })).run(agent)
  return { recorded, replayed, replayHits: server.hits - hits, fixture: join(dir, name) }
}

/** What the client saw of the response's headers, beside the SDK's own `_request_id`. */
function seen(requestId: string | null | undefined, headers: Headers, names: string[]) {
  return { requestId, ...Object.fromEntries([...names, 'set-cookie', 'x-auth-token', 'connection', 'date'].map((n) => [n, headers.get(n)])) }
}

describe('response headers on the tape', () => {
  test('the OpenAI SDK reads the recorded x-request-id (_request_id) and rate-limit headers on an offline replay', async () => {
    const server = await serve([chat])
    const rr = await recordThenReplayOffline('openai-headers', server, async () => {
      const client = new OpenAI({ baseURL: openaiBaseURL(server), apiKey: 'sk-test', maxRetries: 0 })
      const { data, response, request_id } = await client.chat.completions
        .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Capital of France?' }] })
        .withResponse()
      // the SDK puts the same id on the parsed response (`_request_id`, not in the type of withResponse's data)
      expect((data as { _request_id?: string })._request_id).toBe(request_id)
      return seen(request_id, response.headers, ['x-ratelimit-remaining-requests', 'x-ratelimit-reset-requests', 'retry-after-ms'])
    })
    expect(rr.recorded.result).toMatchObject({ requestId: 'req_5f1d0c3e9a86953713a6dc1b17e399fd', 'set-cookie': COOKIE, 'x-auth-token': TOKEN })
    expect(rr.replayHits).toBe(0)
    expect(rr.replayed.result).toEqual({
      requestId: 'req_5f1d0c3e9a86953713a6dc1b17e399fd',
      'x-ratelimit-remaining-requests': '4999',
      'x-ratelimit-reset-requests': '12ms',
      'retry-after-ms': '20',
      'set-cookie': null,
      'x-auth-token': null,
      connection: null,
      date: null,
    })
    expect(rr.replayed.divergences).toEqual([])
    expectNoSecrets(rr.fixture)
  })

  test('the Anthropic SDK reads the recorded request-id (_request_id), rate-limit and retry-after headers on an offline replay', async () => {
    const server = await serve([messages])
    const rr = await recordThenReplayOffline('anthropic-headers', server, async () => {
      const client = new Anthropic({ baseURL: anthropicBaseURL(server), apiKey: 'sk-ant-test', maxRetries: 0 })
      const { data, response, request_id } = await client.messages
        .create({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'Capital of France?' }] })
        .withResponse()
      expect((data as { _request_id?: string })._request_id).toBe(request_id)
      return seen(request_id, response.headers, ['anthropic-ratelimit-requests-remaining', 'anthropic-ratelimit-requests-reset', 'retry-after'])
    })
    expect(rr.recorded.result).toMatchObject({ requestId: 'req_011CVxyzAbCdEfGhIjKlMnOp' })
    expect(rr.replayed.result).toEqual({
      requestId: 'req_011CVxyzAbCdEfGhIjKlMnOp',
      'anthropic-ratelimit-requests-remaining': '49',
      'anthropic-ratelimit-requests-reset': '2026-12-06T16:50:00Z',
      'retry-after': '3',
      'set-cookie': null,
      'x-auth-token': null,
      connection: null,
      date: null,
    })
    expectNoSecrets(rr.fixture)
  })
})

/** The fixture keeps the headers per call (one set on the cell), and no cookie, token, hop-by-hop header or date. */
function expectNoSecrets(fixture: string): void {
  const text = readFileSync(join(fixture, 'model.jsonl'), 'utf8')
  const [cell] = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { response: { headers: Record<string, string>; chunks: unknown[] } })
  for (const name of ['set-cookie', 'x-auth-token', 'connection', 'date']) expect(cell.response.headers).not.toHaveProperty(name)
  expect(text).not.toContain('Zq8cookieValue')
  expect(text).not.toContain(TOKEN)
  expect(text.match(/"request-id"|"x-request-id"/g)).toHaveLength(1)
}

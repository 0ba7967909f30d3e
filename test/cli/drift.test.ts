// `fluxlab drift`: fixtures recorded with the real `openai` and `@anthropic-ai/sdk` clients (streaming), then
// re-sent by the CLI to local servers on 127.0.0.1 that each change ONE thing about the shape of the answer.
// @note the vendor hosts are under `.invalid` (RFC 2606): recording and drift reach them only through the
// upstream map, so even a broken map could never reach a public address.
import Anthropic from '@anthropic-ai/sdk'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import OpenAI from 'openai'
import { scenario } from 'fluxlab'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { loadExchanges, startProviderServer, type Exchange, type ProviderServer } from '../support/index.js'
import { assertBuilt, cleanup, copyFixture, editJsonl, fluxlab, tempDir } from './support.js'

const OPENAI_HOST = 'api.openai.invalid'
const ANTHROPIC_HOST = 'api.anthropic.invalid'
// Shaped like real keys, valid for nothing; built here so no key-shaped literal sits in the repo.
const OPENAI_KEY = `sk-${'proj'}-driftTEST0123456789abcdefghijklmnopqrstuvwxyzABCD`
const ANTHROPIC_KEY = `sk-${'ant'}-api03-driftTEST0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH`
const KEYS = { OPENAI_API_KEY: OPENAI_KEY, ANTHROPIC_API_KEY: ANTHROPIC_KEY }

// ---- OpenAI Chat Completions stream, as api.openai.com sends it (stream_options.include_usage) -----------
type Variant = 'recorded' | 'same' | 'added' | 'removed' | 'type' | 'event' | 'finish' | 'nousage' | 'order' | 'tools'

function chatStream(v: Variant): string {
  const words = v === 'same' ? ['Bonjour', ' tout', ' le', ' monde', '!'] : ['Hello', ' there', '!']
  const chunk = (choices: unknown[], usage: unknown = null, extra: Record<string, unknown> = {}) => {
    const c: Record<string, unknown> = {
      id: 'chatcmpl-Drift0001',
      object: 'chat.completion.chunk',
      created: v === 'type' ? '1770933892' : 1770933892,
      model: 'gpt-4o-mini-2024-07-18',
      service_tier: 'default',
      system_fingerprint: 'fp_de604bd877',
      choices,
      usage,
      ...extra,
    }
    if (v === 'removed') delete c.system_fingerprint
    return c
  }
  if (v === 'tools') {
    const call = { index: 0, id: 'call_DriftAAAAAAAAAAAAAAAAAAAA', type: 'function', function: { name: 'get_weather', arguments: '' } }
    const tool = [
      chunk([{ index: 0, delta: { role: 'assistant', content: null, tool_calls: [call] }, logprobs: null, finish_reason: null }]),
      ...['{"city"', ':"Paris"}'].map((a) =>
        chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: a } }] }, logprobs: null, finish_reason: null }]),
      ),
      chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: 'tool_calls' }]),
      chunk([], {
        prompt_tokens: 12,
        completion_tokens: 9,
        total_tokens: 21,
        prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
      }),
    ]
    return `${tool.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`
  }
  const events = [
    chunk([{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }]),
    ...(v === 'event' ? [chunk([{ index: 0, delta: { reasoning_content: 'thinking…' }, logprobs: null, finish_reason: null }])] : []),
    ...words.map((w) =>
      chunk([{ index: 0, delta: { content: w }, logprobs: null, finish_reason: null }], null, v === 'added' ? { obfuscation: 'Qup1BsQ3' } : {}),
    ),
    chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: v === 'finish' ? 'length' : 'stop' }]),
    ...(v === 'nousage'
      ? []
      : [
          chunk([], {
            prompt_tokens: 12,
            completion_tokens: words.length,
            total_tokens: 12 + words.length,
            prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
            completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
          }),
        ]),
  ]
  if (v === 'order') events.push(...events.splice(-2, 1))
  return `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`
}

// ---- Anthropic Messages stream, as api.anthropic.com sends it --------------------------------------------
function messagesStream(v: Variant): string {
  const words = v === 'same' ? ['Bonjour', ' tout', ' le', ' monde', '!'] : ['Hello', ' there', '!']
  const message: Record<string, unknown> = {
    id: 'msg_01DriftAAAAAAAAAAAAAAAA',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-0',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1, service_tier: 'standard' },
  }
  if (v === 'added') message.container = null
  if (v === 'removed') delete message.stop_sequence
  const messageDelta: Record<string, unknown> = {
    type: 'message_delta',
    delta: { stop_reason: v === 'finish' ? 'max_tokens' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: words.length },
  }
  if (v === 'nousage') delete messageDelta.usage
  const events: Array<Record<string, unknown>> = [
    { type: 'message_start', message },
    { type: 'content_block_start', index: v === 'type' ? '0' : 0, content_block: { type: 'text', text: '' } },
    { type: 'ping' },
    ...(v === 'event' ? [{ type: 'server_heartbeat', at: 1 }] : []),
    ...words.map((w) => ({ type: 'content_block_delta', index: v === 'type' ? '0' : 0, delta: { type: 'text_delta', text: w } })),
    { type: 'content_block_stop', index: v === 'type' ? '0' : 0 },
    messageDelta,
    { type: 'message_stop' },
  ]
  if (v === 'order') events.splice(-2, 0, ...events.splice(2, 1))
  return events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join('')
}

// ---- Anthropic Messages JSON (no stream): a tool call, then the answer to its result -------------------
const toolUse = JSON.stringify({
  id: 'msg_01DriftToolAAAAAAAAAAAAA',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-0',
  content: [{ type: 'tool_use', id: 'toolu_01DriftAAAAAAAAAAAAAAAA', name: 'get_weather', input: { city: 'Paris' } }],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: { input_tokens: 20, output_tokens: 10 },
})
const answer = JSON.stringify({
  id: 'msg_01DriftTextAAAAAAAAAAAAA',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-0',
  content: [{ type: 'text', text: 'Sunny in Paris.' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 40, output_tokens: 5 },
})
const hasToolResult = (json: unknown) => JSON.stringify(json).includes('"tool_result"')

// ---- OpenAI Responses stream: a real recording (test/fixtures/traffic), edited one way per variant --------
const RESPONSES = loadExchanges('openai-responses/test_openai_responses_stream.yaml')[1]
function responsesStream(v: 'recorded' | 'same' | 'added'): string {
  return RESPONSES.body
    .split('\n\n')
    .map((block) => {
      const data = block.split('\n').find((l) => l.startsWith('data: '))
      if (!data || v === 'recorded') return block
      const e = JSON.parse(data.slice(6)) as Record<string, unknown>
      if (e.type === 'response.output_text.delta' && v === 'same') e.delta = String(e.delta).toUpperCase()
      if (e.type === 'response.output_text.delta' && v === 'added') e.logprobs = []
      return block.replace(data, `data: ${JSON.stringify(e)}`)
    })
    .join('\n\n')
}

const SSE = { 'content-type': 'text/event-stream; charset=utf-8' }
const chatExchange = (v: Variant): Exchange => ({ method: 'POST', path: '/v1/chat/completions', status: 200, headers: SSE, body: chatStream(v) })
const messagesExchange = (v: Variant): Exchange => ({ method: 'POST', path: '/v1/messages', status: 200, headers: SSE, body: messagesStream(v) })

const servers: ProviderServer[] = []
async function server(answer: (path: string) => Exchange): Promise<ProviderServer> {
  const s = await startProviderServer({ script: (req) => answer(req.path) })
  servers.push(s)
  return s
}
/** A local provider that answers both hosts' paths with one variant (and the tool loop of "weather" as recorded). */
async function providerWith(v: Variant): Promise<ProviderServer> {
  const s = await startProviderServer({
    script: (req) => {
      const body = req.json as { stream?: boolean } | undefined
      if (req.path.startsWith('/v1/messages') && !body?.stream)
        return {
          method: 'POST',
          path: req.path,
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: hasToolResult(req.json) ? answer : toolUse,
        }
      return req.path.startsWith('/v1/messages') ? messagesExchange(v) : chatExchange(v)
    },
  })
  servers.push(s)
  return s
}
const upstreamTo = (s: ProviderServer) => `${OPENAI_HOST}=${s.url},${ANTHROPIC_HOST}=${s.url}`

let cwd: string
let root: string
let before: Record<string, string>
const snapshot = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name), `${rel}${e.name}/`)
      else out[`${rel}${e.name}`] = readFileSync(join(d, e.name), 'latin1')
    }
  }
  walk(dir, '')
  return out
}

beforeAll(async () => {
  assertBuilt()
  cwd = tempDir('flux-drift-')
  root = join(cwd, 'tests/scenarios')
  const recording = await providerWith('recorded')
  const saved = { CI: process.env.CI, FLUX_GOLDEN: process.env.FLUX_GOLDEN, FLUX_OFFLINE: process.env.FLUX_OFFLINE, FLUX_UPSTREAM: process.env.FLUX_UPSTREAM }
  for (const k of Object.keys(saved)) delete process.env[k]
  try {
    const upstream = { [OPENAI_HOST]: recording.url, [ANTHROPIC_HOST]: recording.url }
    const chat = await scenario('chat', { dir: root, upstream })
    if (chat.mode !== 'record') throw new Error(`expected to record, got ${chat.mode}`)
    await chat.run(async () => {
      const client = new OpenAI({ baseURL: `https://${OPENAI_HOST}/v1`, apiKey: 'sk-record-only', maxRetries: 0 })
      const stream = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'Say hello' }],
        stream: true,
        stream_options: { include_usage: true },
      })
      let text = ''
      for await (const c of stream) text += c.choices[0]?.delta?.content ?? ''
      return text
    })
    const messages = await scenario('messages', { dir: root, upstream })
    await messages.run(async () => {
      const client = new Anthropic({ baseURL: `https://${ANTHROPIC_HOST}`, apiKey: 'sk-ant-record-only', maxRetries: 0 })
      const stream = client.messages.stream({ model: 'claude-sonnet-4-0', max_tokens: 64, messages: [{ role: 'user', content: 'Say hello' }] })
      return (await stream.finalMessage()).content
    })
    const weather = await scenario('weather', { dir: join(cwd, 'other'), upstream })
    await weather.run(async () => {
      const client = new Anthropic({ baseURL: `https://${ANTHROPIC_HOST}`, apiKey: 'sk-ant-record-only', maxRetries: 0 })
      const tools: Anthropic.Tool[] = [
        {
          name: 'get_weather',
          description: 'Weather in a city',
          input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ]
      const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }]
      const first = await client.messages.create({ model: 'claude-sonnet-4-0', max_tokens: 64, tools, messages })
      const use = first.content.find((b) => b.type === 'tool_use')!
      messages.push({ role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sunny' }] })
      return (await client.messages.create({ model: 'claude-sonnet-4-0', max_tokens: 64, tools, messages })).content
    })
    const recorded = await server(() => ({ ...RESPONSES, body: responsesStream('recorded') }))
    const answer = await scenario('answer', { dir: join(cwd, 'responses'), upstream: { [OPENAI_HOST]: recorded.url } })
    await answer.run(async () => {
      const client = new OpenAI({ baseURL: `https://${OPENAI_HOST}/v1`, apiKey: 'sk-record-only', maxRetries: 0 })
      const stream = await client.responses.create({ model: 'gpt-4o', input: 'What is the capital of France?', stream: true })
      let text = ''
      for await (const e of stream) if (e.type === 'response.output_text.delta') text += e.delta
      return text
    })
  } finally {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
  }
  expect(recording.hits).toBe(4)
  before = snapshot(cwd)
})
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()))
  cleanup()
})

/** Drift runs that reached a provider and compared (exit 0 or 1): the last test checks they wrote nothing. */
let compared = 0
const drift = async (args: string[], env: Record<string, string | undefined>) => {
  const r = await fluxlab(['drift', ...args], { cwd, env: { ...KEYS, ...env } })
  if ((r.code === 0 || r.code === 1) && r.stdout.includes('request')) compared++
  return r
}

describe.concurrent('fluxlab drift', () => {
  test('says what it will send before it sends it; --dry-run sends nothing and needs no key', async () => {
    const s = await providerWith('recorded')
    const r = await fluxlab(['drift', '--dry-run'], { cwd, env: { FLUX_UPSTREAM: upstreamTo(s) } })
    expect(r.code, r.output).toBe(0)
    expect(s.hits).toBe(0)
    expect(r.stderr).toContain('[fluxlab] drift would re-send 2 recorded model requests from 2 fixtures to the live providers:')
    expect(r.stderr).toContain(`  • ${OPENAI_HOST} (openai-chat): 1 request, key from OPENAI_API_KEY, sent to ${s.url} (upstream)`)
    expect(r.stderr).toContain(`  • ${ANTHROPIC_HOST} (anthropic): 1 request, key from ANTHROPIC_API_KEY, sent to ${s.url} (upstream)`)
    expect(r.stderr).toContain('costs money')
  })

  test('a missing key is FLUX_NO_KEY naming the variable (exit 3), after the plan and before any request', async () => {
    const s = await providerWith('recorded')
    const r = await fluxlab(['drift', 'chat'], { cwd, env: { FLUX_UPSTREAM: upstreamTo(s), OPENAI_API_KEY: undefined } })
    expect(r.code, r.output).toBe(3)
    expect(s.hits).toBe(0)
    expect(r.stderr).toContain('[fluxlab] drift re-sends 1 recorded model request from 1 fixture to the live provider:')
    expect(r.stderr).toContain('FLUX_NO_KEY: Failed to check the fixtures for drift: OPENAI_API_KEY is not set')
    expect(r.stderr).toContain('Set OPENAI_API_KEY to a key for the provider')
  })

  test('FLUX_OFFLINE=1 forbids it (exit 3) before any request', async () => {
    const s = await providerWith('same')
    const r = await drift(['chat'], { FLUX_UPSTREAM: upstreamTo(s), FLUX_OFFLINE: '1' })
    expect(r.code, r.output).toBe(3)
    expect(s.hits).toBe(0)
    expect(r.stderr).toContain(
      'FLUX_OFFLINE: Failed to check the fixtures for drift: FLUX_OFFLINE=1 forbids live requests, and drift sends 1 to the live provider; nothing was sent.',
    )
  })

  test("sends the recorded request with the real key in the provider's own header, and no key reaches the output", async () => {
    const s = await providerWith('same')
    const r = await drift(['chat', 'messages'], { FLUX_UPSTREAM: upstreamTo(s) })
    expect(r.code, r.output).toBe(0)
    const [chat, messages] = [s.requests.find((q) => q.path === '/v1/chat/completions')!, s.requests.find((q) => q.path === '/v1/messages')!]
    expect(chat.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`)
    expect(chat.json).toMatchObject({
      model: 'gpt-4o-mini',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Say hello' }],
    })
    expect(messages.headers['x-api-key']).toBe(ANTHROPIC_KEY)
    expect(messages.headers['anthropic-version']).toBe('2023-06-01')
    expect(messages.json).toMatchObject({ model: 'claude-sonnet-4-0', stream: true, max_tokens: 64 })
    expect(r.output).not.toContain('driftTEST')
  })

  test('a provider that answers an error (echoing the key) is "could not check" (exit 3), and the key is not printed', async () => {
    const s = await server(() => ({
      method: 'POST',
      path: '/v1/chat/completions',
      status: 401,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ error: { type: 'invalid_request_error', message: `Incorrect API key provided: ${OPENAI_KEY}.` } }),
    }))
    const r = await drift(['chat'], { FLUX_UPSTREAM: upstreamTo(s) })
    expect(r.code, r.output).toBe(3)
    expect(r.stdout).toContain('! chat  1 request · could not check')
    expect(r.stdout).toContain(`model#1 ${OPENAI_HOST} answered HTTP 401`)
    expect(r.output).not.toContain('driftTEST')
  })

  test('a host with no upstream and no route is "could not check" (exit 3), naming FLUX_UPSTREAM', async () => {
    const r = await drift(['chat'], {})
    expect(r.code, r.output).toBe(3)
    expect(r.stdout).toContain(`model#1 POST https://${OPENAI_HOST}/v1/chat/completions failed`)
    expect(r.stdout).toContain('set FLUX_UPSTREAM=<host>=<url>')
  })

  test('names and globs pick fixtures; one that matches nothing is exit 3', async () => {
    const s = await providerWith('same')
    const all = await drift(['*'], { FLUX_UPSTREAM: upstreamTo(s) })
    expect(all.code, all.output).toBe(0)
    expect(all.stdout).toContain('✓ chat  1 request · shape unchanged')
    expect(all.stdout).toContain('✓ messages  1 request · shape unchanged')
    expect(all.stdout).toContain('✓ 2 fixtures: the providers still answer in the recorded shape (2 requests sent, no fixture written).')
    const none = await drift(['billing/*'], { FLUX_UPSTREAM: upstreamTo(s) })
    expect(none.code).toBe(3)
    expect(none.stderr).toContain('Failed to find fixtures matching "billing/*": no scenario under tests/scenarios matches it')
  })

  test('--json: one fluxlab.drift/v1 document on stdout with the plan and every change; the plan still on stderr', async () => {
    const s = await providerWith('added')
    const r = await drift(['chat', '--json'], { FLUX_UPSTREAM: upstreamTo(s) })
    expect(r.code, r.output).toBe(1)
    expect(r.stderr).toContain('costs money')
    const doc = JSON.parse(r.stdout)
    expect(doc).toMatchObject({
      schema: 'fluxlab.drift/v1',
      root: 'tests/scenarios',
      ok: false,
      dryRun: false,
      summary: { fixtures: 1, unchanged: 0, changed: 1, unchecked: 0, requests: 1 },
      plan: [{ host: OPENAI_HOST, family: 'openai-chat', requests: 1, keyVars: ['OPENAI_API_KEY'], target: s.url, upstream: true }],
      fixtures: [
        {
          name: 'chat',
          dir: 'tests/scenarios/chat',
          status: 'changed',
          steps: [
            {
              step: 'model#1',
              status: 'changed',
              changes: [{ kind: 'added field', path: 'event[chat.completion.chunk/content].obfuscation', live: 'string' }],
            },
          ],
        },
      ],
    })
    expect(r.output).not.toContain('driftTEST')
  })

  test('a tool loop: the recorded ids go out as valid ids (the same one in tool_use and tool_result), JSON answers compared by shape', async () => {
    const s = await providerWith('same')
    const r = await drift(['--dir', 'other'], { FLUX_UPSTREAM: upstreamTo(s) })
    expect(r.code, r.output).toBe(0)
    expect(r.stdout).toContain('✓ weather  2 requests · shape unchanged')
    const second = s.requests[1].json as { messages: Array<{ content: Array<{ type: string; id?: string; tool_use_id?: string }> }> }
    const use = second.messages[1].content.find((b) => b.type === 'tool_use')!
    const result = second.messages[2].content.find((b) => b.type === 'tool_result')!
    expect(use.id).toBe('toolu_fluxdrift0001')
    expect(result.tool_use_id).toBe(use.id)
    expect(use.id).toMatch(/^[a-zA-Z0-9_-]+$/)
  })

  test('a tool loop answered without the tool call: tool-call structure and stop reason changed', async () => {
    const s = await server(() => ({ method: 'POST', path: '/v1/messages', status: 200, headers: { 'content-type': 'application/json' }, body: answer }))
    const r = await drift(['weather', '--dir', 'other'], { FLUX_UPSTREAM: upstreamTo(s) })
    expect(r.code, r.output).toBe(1)
    expect(r.stdout).toContain('model#1 finishReason  finish reason changed: tool_use → end_turn')
    expect(r.stdout).toContain('model#1 toolCalls  tool calls changed: get_weather(object) → none')
    expect(r.stdout).not.toMatch(/model#2 /)
  })

  test('a recording that is no whole answer is not re-sent, and says why; nothing left to send is exit 3', async () => {
    const dir = tempDir()
    const copy = copyFixture(join(root, 'chat'), dir, 'cut')
    editJsonl(join(copy, 'model.jsonl'), 1, (c) => {
      c.truncated = true
    })
    const s = await providerWith('same')
    const r = await fluxlab(['drift', '--dir', dir], { cwd, env: { ...KEYS, FLUX_UPSTREAM: upstreamTo(s) } })
    expect(r.code, r.output).toBe(3)
    expect(s.hits).toBe(0)
    expect(r.stderr).toContain('Failed to check the fixtures for drift: none of the 1 recorded model calls can be re-sent')
    expect(r.stderr).toContain('cut model#1: its response was cut at the cassette cap (FLUX_CASSETTE_MAX_BYTES), so the recording is partial')
  })

  test.each([
    ['same', 0, '✓ answer  1 request · shape unchanged'],
    ['added', 1, '• model#1 event[response.output_text.delta].logprobs  added field (array)'],
  ] as const)('OpenAI Responses stream (a real recording), %s: exit %i', async (variant, code, line) => {
    const s = await server(() => ({ ...RESPONSES, body: responsesStream(variant) }))
    const r = await drift(['--dir', 'responses'], { FLUX_UPSTREAM: upstreamTo(s) })
    expect(r.code, r.output).toBe(code)
    expect(s.requests[0].path).toBe('/v1/responses')
    expect(r.stdout).toContain(line)
  })

  const kinds = ['role', 'content', 'finish', 'usage']
  const cases: Array<[Variant, number, string[], string[] | undefined]> = [
    ['same', 0, [], ['✓ messages  1 request · shape unchanged']],
    ['added', 1, ['event[chat.completion.chunk/content].obfuscation  added field (string)'], ['event[message_start].message.container  added field (null)']],
    [
      'removed',
      1,
      kinds.map((k) => `event[chat.completion.chunk/${k}].system_fingerprint  removed field (was string)`),
      ['event[message_start].message.stop_sequence  removed field (was null)'],
    ],
    [
      'type',
      1,
      kinds.map((k) => `event[chat.completion.chunk/${k}].created  type changed: number → string`),
      ['event[content_block_start/text].index  type changed: number → string', 'event[content_block_delta/text_delta].index  type changed: number → string'],
    ],
    [
      'event',
      1,
      ['event[chat.completion.chunk/reasoning_content]  new event type ({id: string, object: string, created: number'],
      ['event[server_heartbeat]  new event type ({type: string, at: number})'],
    ],
    ['finish', 1, ['finishReason  finish reason changed: stop → length'], ['finishReason  finish reason changed: end_turn → max_tokens']],
    [
      'order',
      1,
      [
        'events  order changed: was chat.completion.chunk/role → chat.completion.chunk/content → chat.completion.chunk/finish → chat.completion.chunk/usage → data([DONE]), now chat.completion.chunk/role → chat.completion.chunk/content → chat.completion.chunk/usage → chat.completion.chunk/finish → data([DONE])',
      ],
      [
        'events  order changed: was message_start → content_block_start/text → ping → content_block_delta/text_delta → content_block_stop → message_delta → message_stop, now message_start → content_block_start/text → content_block_delta/text_delta → content_block_stop → ping → message_delta → message_stop',
      ],
    ],
    [
      'tools',
      1,
      [
        'event[chat.completion.chunk/role,tool_calls]  new event type (',
        'event[chat.completion.chunk/tool_calls]  new event type (',
        'event[chat.completion.chunk/role]  event type gone',
        'event[chat.completion.chunk/content]  event type gone',
        'finishReason  finish reason changed: stop → tool_calls',
        'toolCalls  tool calls changed: none → get_weather(object)',
      ],
      undefined,
    ],
    [
      'nousage',
      1,
      ['event[chat.completion.chunk/usage]  event type gone', 'usage.input  usage missing (was 12 tokens)', 'usage.output  usage missing (was 3 tokens)'],
      ['event[message_delta].usage  removed field (was {output_tokens: number})'],
    ],
  ]
  for (const [variant, code, chatLines, messagesLines] of cases) {
    test(`OpenAI chat stream, ${variant}: exit ${code}`, async () => {
      const s = await providerWith(variant)
      const r = await drift(['chat'], { FLUX_UPSTREAM: upstreamTo(s) })
      expect(r.code, r.output).toBe(code)
      expect(s.hits).toBe(1)
      expect(r.stdout).toContain(code ? '✗ chat  1 request · shape changed' : '✓ chat  1 request · shape unchanged')
      const found = r.stdout
        .split('\n')
        .filter((l) => l.startsWith('    • model#1 '))
        .map((l) => l.slice('    • model#1 '.length))
      expect(found.map((l, i) => (chatLines[i] && l.startsWith(chatLines[i]) ? chatLines[i] : l))).toEqual(chatLines)
    })
    if (messagesLines)
      test(`Anthropic messages stream, ${variant}: exit ${code}`, async () => {
        const s = await providerWith(variant)
        const r = await drift(['messages'], { FLUX_UPSTREAM: upstreamTo(s) })
        expect(r.code, r.output).toBe(code)
        for (const line of messagesLines) expect(r.stdout).toContain(line)
        if (code)
          expect(r.stderr).toContain('Failed to confirm the recorded shape of 1 of 1 fixture: 1 changed shape, each change listed above as a JSON path.')
      })
  }
})

test('never writes a fixture: every file is byte-identical after all the drift runs above', () => {
  const files = ['model.jsonl', 'scenario.yaml', 'trace.snap']
  const fixtures = ['other/weather', 'responses/answer', 'tests/scenarios/chat', 'tests/scenarios/messages']
  expect(Object.keys(before).sort()).toEqual(fixtures.flatMap((f) => files.map((x) => `${f}/${x}`)))
  expect(compared).toBeGreaterThanOrEqual(20)
  expect(snapshot(cwd)).toEqual(before)
})

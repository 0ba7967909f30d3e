/**
 * What a recording writes to disk (SPEC §4): the manifest, stable-sorted
 * JSONL cells, HTTP tool cells for non-provider hosts, and the size cap.
 */
import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { stepCountIs, streamText, tool } from 'ai'
// the library fixtures were written with before issue 28: an independent check that the format stayed the same
import stableStringify from 'fast-json-stable-stringify'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import OpenAI from 'openai'
import { describe, expect, test } from 'vitest'
import YAML from 'yaml'
import { z } from 'zod'
import { scenario, VERSION, type Lab } from 'fluxlab'
import { matchers } from 'fluxlab/matchers'
import { googleBaseURL, loadExchanges, openaiBaseURL, type ProviderServer } from '../support/index.js'
import { listFiles, readJsonl, recordThenReplay, serve, startWeatherServer, tempDir, useEngineSandbox, type TinyServer } from './helpers.js'

useEngineSandbox()
expect.extend(matchers)

/** A streaming OpenAI chat agent that calls a "weather API" (plain HTTP) between its two model calls. */
const weatherAgent = (server: ProviderServer, weather: TinyServer) => async () => {
  const client = new OpenAI({ baseURL: openaiBaseURL(server), apiKey: 'sk-test', maxRetries: 0 })
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is 1231 * 2331?' }]
  const texts: string[] = []
  let forecast = ''
  for (let i = 0; i < 2; i++) {
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true, stream_options: { include_usage: true } })
    let text = ''
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
    texts.push(text)
    if (i === 0) {
      forecast = await (await fetch(`${weather.url}/weather?city=Paris`)).text()
      messages.push({ role: 'user', content: `weather: ${forecast}` })
    }
  }
  return { texts, forecast }
}

/** SPEC §4: secrets, cookies, hop-by-hop headers, `date` and a decoded body's encoding never reach a fixture. */
const DROPPED = ['date', 'set-cookie', 'openai-organization', 'connection', 'transfer-encoding', 'content-length', 'content-encoding']

describe('a recorded fixture', () => {
  test('holds a manifest, stable-sorted model cells, an http tool cell, and no temp files', async () => {
    const server = await serve(['openai-chat/test_tool_use_basic.yaml'])
    const weather = await startWeatherServer()
    const agent = weatherAgent(server, weather)
    const dir = tempDir()
    const s = await scenario('weather', { dir, input: { question: 'What is 1231 * 2331?' } })
    const recorded = await s.run(agent)
    const fx = join(dir, 'weather')

    expect(listFiles(fx)).toEqual(['model.jsonl', 'scenario.yaml', 'tools.jsonl', 'trace.snap'])
    const manifest = YAML.parse(readFileSync(join(fx, 'scenario.yaml'), 'utf8'))
    expect(manifest).toMatchObject({
      formatVersion: 1,
      fluxlabVersion: VERSION,
      name: 'weather',
      input: { question: 'What is 1231 * 2331?' },
      models: ['gpt-4o-mini-2024-07-18'],
      providerHosts: [`127.0.0.1:${server.port}`],
      cassetteMaxBytes: 1024 * 1024,
    })
    expect(manifest.redaction).toMatch(/^v1:[0-9a-f]{8}$/)
    expect(new Date(manifest.recordedAt).toISOString()).toBe(manifest.recordedAt)

    const modelText = readFileSync(join(fx, 'model.jsonl'), 'utf8')
    const lines = modelText.trimEnd().split('\n')
    expect(lines).toHaveLength(2)
    for (const line of lines) expect(line).toBe(stableStringify(JSON.parse(line)))
    const cells = lines.map((l) => JSON.parse(l))
    expect(cells.map((c) => [c.seq, c.step])).toEqual([
      [1, 'model#1'],
      [3, 'model#2'],
    ])
    for (const c of cells) {
      expect(c.key).toMatch(/^sha256:[0-9a-f]{64}$/)
      expect(c.request).toMatchObject({ method: 'POST', path: '/v1/chat/completions', body: { model: 'gpt-4o-mini', stream: true } })
      expect(c.response.status).toBe(200)
      expect(c.response.headers['content-type']).toBe('text/event-stream; charset=utf-8')
      for (const h of DROPPED) expect(c.response.headers).not.toHaveProperty(h)
      // what a client reads is kept as the provider sent it: the request id, the rate limits
      expect(c.response.headers).toMatchObject({
        'x-request-id': expect.stringMatching(/^req_[0-9a-f]{32}$/),
        'x-ratelimit-remaining-requests': expect.stringMatching(/^\d+$/),
      })
      expect(c.response.chunks.length).toBeGreaterThan(1)
      expect(c.response.chunks.every((ch: { t: number; text?: string }) => typeof ch.t === 'number' && typeof ch.text === 'string')).toBe(true)
    }
    expect(cells[0].key).not.toBe(cells[1].key)
    expect(cells[1].request.body.messages[1].content).toBe(`weather: ${recorded.result.forecast}`)
    expect(cells.map((c) => c.usage)).toEqual([
      { input: 54, output: 20, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      { input: 87, output: 26, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
    ])

    const tools = readJsonl(join(fx, 'tools.jsonl'))
    expect(tools).toHaveLength(1)
    expect(tools[0]).toMatchObject({
      seq: 2,
      step: 'tool#1',
      kind: 'http',
      name: `GET ${weather.host}/weather`,
      args: { query: { city: 'Paris' } },
      truncated: false,
    })
    expect(tools[0].response.status).toBe(200)
    // the weather API's own request id is a header its client may read: kept as sent (its `date` is not)
    expect(tools[0].response.headers).toEqual({ 'content-type': 'application/json', 'x-request-id': expect.stringMatching(/^w-1-\d+$/) })
    expect(tools[0].response.chunks.map((c: { text: string }) => c.text).join('')).toBe('{"city":"Paris","tempC":18,"sky":"clear"}')
    expect(readFileSync(join(fx, 'trace.snap'), 'utf8')).toContain(`tool#1 GET ${weather.host}/weather`)

    // replay with both the provider and the weather API closed
    await server.close()
    await weather.close()
    const hits = [server.hits, weather.hits]
    const replayed = await (await scenario('weather', { dir })).run(agent)
    expect([server.hits, weather.hits]).toEqual(hits)
    expect(replayed.result).toEqual(recorded.result)
    expect(replayed.result.forecast).toBe('{"city":"Paris","tempC":18,"sky":"clear"}')
    expect(replayed.hermetic).toBe(true)
    expect(replayed.divergences).toEqual([])
    expect(listFiles(fx)).toEqual(['model.jsonl', 'scenario.yaml', 'tools.jsonl', 'trace.snap'])
  })

  test('two recordings of the same OpenAI agent have identical keys', async () => {
    const server = await serve(['openai-chat/test_tool_use_basic.yaml', 'openai-chat/test_tool_use_basic.yaml'])
    const weather = await startWeatherServer()
    const dir = tempDir()
    const agent = weatherAgent(server, weather)
    await (await scenario('one', { dir })).run(agent)
    await (await scenario('two', { dir })).run(agent)
    const keys = (name: string, file: string) => readJsonl(join(dir, name, file)).map((c) => c.key)
    expect(keys('one', 'model.jsonl')).toHaveLength(2)
    expect(keys('two', 'model.jsonl')).toEqual(keys('one', 'model.jsonl'))
    expect(keys('two', 'tools.jsonl')).toEqual(keys('one', 'tools.jsonl'))
  })

  test('two recordings of an AI SDK Gemini agent have identical keys although the SDK mints random call ids', async () => {
    const file = 'gemini/test_google_model_iter_stream.yaml'
    const server = await serve([file, file])
    const dir = tempDir()
    const agent = async (lab: Lab) => {
      const provider = createGoogleGenerativeAI({ baseURL: googleBaseURL(server), apiKey: 'test-key' })
      const tools = lab.tools({
        get_capital: tool({ inputSchema: z.object({ country: z.string() }), execute: async () => 'Paris' }),
        get_temperature: tool({ inputSchema: z.object({ city: z.string() }), execute: async () => '30°C' }),
      })
      return streamText({
        model: provider('gemini-2.0-flash'),
        prompt: 'What is the temperature of the capital of France?',
        tools,
        stopWhen: stepCountIs(3),
        maxRetries: 0,
      }).text
    }
    await (await scenario('one', { dir })).run(agent)
    await (await scenario('two', { dir })).run(agent)
    const cells = (name: string) => readJsonl(join(dir, name, 'model.jsonl'))
    // the SDK really sent different ids in the two runs
    const sentIds = server.requests.map((r) => JSON.stringify(r.json).match(/"id":"([^"]+)"/)?.[1])
    expect(sentIds[1]).toBeDefined()
    expect(sentIds[4]).not.toBe(sentIds[1])
    expect(cells('one').map((c) => c.key)).toHaveLength(3)
    expect(cells('two').map((c) => c.key)).toEqual(cells('one').map((c) => c.key))
  })
})

describe('the cassette size cap', () => {
  test.each([
    ['FLUX_CASSETTE_MAX_BYTES=200', { env: '200' }],
    ['maxBytes: 200', { option: 200 }],
  ])('%s stores a big response cut, and replay refuses it with truncated_cell', async (_, cap: { env?: string; option?: number }) => {
    const [ex] = loadExchanges('openai-chat/openai-text.json')
    const server = await serve([ex])
    if (cap.env) process.env.FLUX_CASSETTE_MAX_BYTES = cap.env
    const agent = async () => {
      const client = new OpenAI({ baseURL: openaiBaseURL(server), apiKey: 'sk-test', maxRetries: 0 })
      try {
        return (await client.chat.completions.create({ model: 'gpt-4.1-nano', messages: [{ role: 'user', content: 'Invent a holiday.' }] })).choices[0].message
          .content
      } catch (e) {
        return `error ${(e as { status?: number }).status}: ${(e as Error).message}`
      }
    }
    const rr = await recordThenReplay('capped', server, agent, cap.option ? { maxBytes: cap.option } : {})
    expect(rr.recorded.result?.startsWith('**Holiday Name:** Galaxy Day')).toBe(true)
    const [cell] = readJsonl(join(rr.fixture, 'model.jsonl'))
    expect(cell.truncated).toBe(true)
    expect(cell.originalBytes).toBe(Buffer.byteLength(ex.body))
    expect(
      Buffer.concat(cell.response.chunks.map((c: { text?: string; b64?: string }) => (c.b64 ? Buffer.from(c.b64, 'base64') : Buffer.from(c.text!)))).length,
    ).toBe(200)
    expect(YAML.parse(readFileSync(join(rr.fixture, 'scenario.yaml'), 'utf8')).cassetteMaxBytes).toBe(200)

    expect(rr.replayHits).toBe(0)
    expect(rr.replayed.result).toMatch(/^error 400: .*\[fluxlab\].*FLUX_CASSETTE_MAX_BYTES=\d+/)
    expect(rr.replayed.hermetic).toBe(false)
    expect(rr.replayed.divergences).toHaveLength(1)
    const [d] = rr.replayed.divergences
    expect(d).toMatchObject({ code: 'truncated_cell', severity: 'failure', step: 'model#1' })
    expect(d.message).toContain(`${Buffer.byteLength(ex.body)} bytes`)
    expect(d.message).toMatch(/re-record with a larger cap/i)
    expect(d.message).toContain('FLUX_CASSETTE_MAX_BYTES')
  })
  test('an in-process tool output over the cap is not stored, and its replay is refused with truncated_cell', async () => {
    const dir = tempDir()
    const big = 'x'.repeat(5_000)
    let runs = 0
    const agent = async (lab: Lab) => {
      const [read] = lab.tools([
        async function readFile(_path: string) {
          runs++
          return big
        },
      ])
      try {
        return (await read('/tmp/big.txt')).length
      } catch (e) {
        return `error: ${(e as Error).message.split('\n')[0]}`
      }
    }
    const rec = await (await scenario('big-tool', { dir, maxBytes: 1_000 })).run(agent)
    expect(rec.result).toBe(5_000)
    const [cell] = readJsonl(join(dir, 'big-tool/tools.jsonl'))
    expect(cell).toMatchObject({ kind: 'fn', name: 'readFile', truncated: true, originalBytes: 5_002 })
    expect(cell.output).toBeUndefined()
    expect(readFileSync(join(dir, 'big-tool/tools.jsonl'), 'utf8')).not.toContain('xxxxxxxxxx')

    const out = await (await scenario('big-tool', { dir, maxBytes: 1_000 })).run(agent)
    expect(runs).toBe(1)
    expect(out.result).toMatch(/^error: .*FLUX_DIVERGED/)
    const [d] = out.divergences
    expect(d).toMatchObject({ code: 'truncated_cell', severity: 'failure', step: 'tool#1' })
    expect(d.message).toContain('FLUX_CASSETTE_MAX_BYTES=10004')
    expect(out).not.toReplayFaithfully()
  })
})

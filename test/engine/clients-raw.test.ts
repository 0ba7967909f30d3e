/**
 * Plain `fetch` and `node:http` clients: the raw bytes and the chunk boundaries
 * the client receives in replay are the ones it received while recording.
 */
import type { Lab } from 'fluxlab'
import { describe, expect, test } from 'vitest'
import { loadExchanges } from '../support/index.js'
import { boundaries, fetchChunks, httpChunks, readJsonl, recordThenReplay, serve, useEngineSandbox, type Received } from './helpers.js'

useEngineSandbox()

const utf8 = new TextDecoder('utf-8', { fatal: true })
const isWholeUtf8 = (b: Uint8Array) => {
  try {
    utf8.decode(b)
    return true
  } catch {
    return false
  }
}

/** Same bytes, same boundaries, same status and content type. */
function expectSameBytes(replayed: Received[], recorded: Received[]): void {
  expect(replayed.map((r) => r.chunks)).toEqual(recorded.map((r) => r.chunks))
  expect(replayed.map(boundaries)).toEqual(recorded.map(boundaries))
  expect(replayed.map((r) => [r.status, r.headers['content-type']])).toEqual(recorded.map((r) => [r.status, r.headers['content-type']]))
}

describe('plain fetch', () => {
  test('reads both SSE bodies of a tool-call exchange byte-for-byte, with the same chunk boundaries', async () => {
    const file = 'openai-chat/test_tool_use_basic.yaml'
    const exchanges = loadExchanges(file)
    const server = await serve([file])
    const agent = async (lab: Lab) => {
      const multiply = lab.tool('multiply', async ({ a, b }: { a: number; b: number }) => a * b)
      const out: Received[] = []
      for (const ex of exchanges) {
        out.push(
          await fetchChunks(`${server.url}${ex.path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
            body: JSON.stringify(ex.requestBody),
          }),
        )
        if (out.length === 1) await multiply({ a: 1231, b: 2331 })
      }
      return out
    }
    const rr = await recordThenReplay('fetch-sse', server, agent)
    expect(rr.replayHits).toBe(0)
    expect(rr.replayed.hermetic).toBe(true)
    expect(rr.replayed.divergences).toEqual([])
    expectSameBytes(rr.replayed.result, rr.recorded.result)
    expect(rr.replayed.result.map((r) => r.text)).toEqual(exchanges.map((e) => e.body))
    expect(rr.replayed.result.every((r) => r.chunks.length > 5)).toBe(true)
    expect(rr.replayed.modelCalls.map((c) => [c.model, c.usage.input, c.usage.output, c.toolCalls])).toEqual([
      ['gpt-4o-mini-2024-07-18', 54, 20, [{ id: 'call_1EYWDzueHEp8OsB8jJSEp7WB', name: 'multiply', args: { a: 1231, b: 2331 } }]],
      ['gpt-4o-mini-2024-07-18', 87, 26, []],
    ])
  })

  test('replays a body served in 3-byte writes with split UTF-8 characters stored as b64 chunks', async () => {
    const file = 'anthropic/test_tools.yaml'
    const exchanges = loadExchanges(file)
    const server = await serve([file], { chunking: 3 })
    const agent = async (lab: Lab) => {
      const pelicanName = lab.tool('pelican_name_generator', async (_input: object) => 'Charles')
      const out: Received[] = []
      for (const ex of exchanges) {
        out.push(await fetchChunks(`${server.url}${ex.path}`, { method: 'POST', body: JSON.stringify(ex.requestBody) }))
        if (out.length === 1) await Promise.all([pelicanName({}), pelicanName({})])
      }
      return out
    }
    const rr = await recordThenReplay('fetch-split-utf8', server, agent)
    expect(rr.replayed.divergences).toEqual([])
    expectSameBytes(rr.replayed.result, rr.recorded.result)
    expect(rr.replayed.result.map((r) => r.text)).toEqual(exchanges.map((e) => e.body))
    expect(rr.replayed.result[1].text).toContain('feathered friend! 🦅')
    // the client really received the emoji cut in two, in both runs
    expect(rr.recorded.result[1].chunks.some((c) => !isWholeUtf8(c))).toBe(true)
    expect(rr.replayed.result[1].chunks.some((c) => !isWholeUtf8(c))).toBe(true)
    const cells = readJsonl(`${rr.fixture}/model.jsonl`)
    const stored = cells[1].response.chunks as Array<{ t: number; text?: string; b64?: string }>
    const b64 = stored.filter((c) => c.b64 !== undefined)
    expect(b64.length).toBeGreaterThan(0)
    expect(b64.every((c) => c.text === undefined && !isWholeUtf8(Buffer.from(c.b64!, 'base64')))).toBe(true)
    expect(stored.map((c) => (c.b64 !== undefined ? Buffer.from(c.b64, 'base64') : Buffer.from(c.text!)).length)).toEqual(boundaries(rr.recorded.result[1]))
    expect(rr.replayed.modelCalls[1]).toMatchObject({ text: expect.stringContaining('🦅'), usage: { input: 678, output: 82 } })
    expect(rr.replayed.modelCalls[0].toolCalls.map((t) => [t.id, t.name])).toEqual([
      ['toolu_01LtHJmixrs9NcWQkK8hu8hj', 'pelican_name_generator'],
      ['toolu_01N8a4jWyf116qKTMqKKmjyt', 'pelican_name_generator'],
    ])
  })

  test('replays recorded gaps between chunks with timing "recorded"', async () => {
    const file = 'anthropic/anthropic-text.chunks.txt'
    const [ex] = loadExchanges(file)
    const server = await serve([file], { delayMs: 30 })
    const agent = async () => {
      const t0 = performance.now()
      const { text } = await fetchChunks(`${server.url}${ex.path}`, { method: 'POST', body: '{"stream":true}' })
      return { text, ms: performance.now() - t0 }
    }
    const rr = await recordThenReplay('fetch-timing', server, agent, { timing: 'recorded' })
    const [cell] = readJsonl(`${rr.fixture}/model.jsonl`)
    const chunks = cell.response.chunks as Array<{ t: number }>
    expect(chunks.length).toBeGreaterThanOrEqual(10)
    const recordedSpan = chunks[chunks.length - 1].t
    expect(recordedSpan).toBeGreaterThanOrEqual(9 * 30 * 0.8)
    expect(rr.replayed.result.text).toBe(ex.body)
    expect(rr.replayed.divergences).toEqual([])
    expect(rr.replayed.result.ms).toBeGreaterThanOrEqual(recordedSpan * 0.9)
  })
})

describe('node:http request() (ESM named import)', () => {
  test('receives the three Gemini alt=sse bodies byte-for-byte, with the same data events', async () => {
    const file = 'gemini/test_google_model_iter_stream.yaml'
    const exchanges = loadExchanges(file)
    const server = await serve([file], { chunking: 'bytes' })
    const agent = async (lab: Lab) => {
      const tools = lab.tools({ get_capital: async () => 'Paris', get_temperature: async () => '30°C' })
      const out: Received[] = []
      for (const ex of exchanges) {
        out.push(
          await httpChunks(`${server.url}${ex.path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-goog-api-key': 'test-key' },
            body: JSON.stringify(ex.requestBody),
          }),
        )
        if (out.length === 1) await tools.get_capital()
        if (out.length === 2) await tools.get_temperature()
      }
      return out
    }
    const rr = await recordThenReplay('node-http-sse', server, agent)
    expect(rr.replayHits).toBe(0)
    expect(rr.replayed.hermetic).toBe(true)
    expect(rr.replayed.divergences).toEqual([])
    expectSameBytes(rr.replayed.result, rr.recorded.result)
    expect(rr.replayed.result.map((r) => r.text)).toEqual(exchanges.map((e) => e.body))
    expect(rr.replayed.result.every((r) => r.chunks.length > 1)).toBe(true)
    expect(rr.replayed.modelCalls.map((c) => [c.family, c.usage.input, c.usage.output, c.toolCalls.map((t) => [t.name, t.args])])).toEqual([
      ['gemini', 52, 5, [['get_capital', { country: 'France' }]]],
      ['gemini', 64, 5, [['get_temperature', { city: 'Paris' }]]],
      ['gemini', 79, 12, []],
    ])
  })
})

describe('gzip', () => {
  test('stores a gzip response decoded and replays it readable to fetch and node:http', async () => {
    const file = 'openai-chat/test_tool_use_basic.yaml'
    const exchanges = loadExchanges(file)
    const server = await serve([file], { gzip: true })
    const agent = async (lab: Lab) => {
      const body = (i: number) => JSON.stringify(exchanges[i].requestBody)
      const viaFetch = await fetchChunks(`${server.url}/v1/chat/completions`, { method: 'POST', body: body(0) })
      await lab.tool('multiply', async () => 2869461)()
      const viaHttp = await httpChunks(`${server.url}/v1/chat/completions`, { method: 'POST', body: body(1) })
      return [viaFetch, viaHttp]
    }
    const rr = await recordThenReplay('gzip', server, agent)
    expect(rr.replayed.divergences).toEqual([])
    expect(rr.replayed.hermetic).toBe(true)
    for (const run of [rr.recorded, rr.replayed]) {
      expect(run.result.map((r) => r.text)).toEqual(exchanges.map((e) => e.body))
      expect(run.result.map((r) => r.headers['content-encoding'])).toEqual([undefined, undefined])
    }
    expect(rr.replayed.result[0].chunks).toEqual(rr.recorded.result[0].chunks)
    expect(rr.replayed.result[1].text).toBe(rr.recorded.result[1].text)
    const file1 = `${rr.fixture}/model.jsonl`
    const cells = readJsonl(file1)
    for (const [i, cell] of cells.entries()) {
      expect(cell.response.headers['content-encoding']).toBeUndefined()
      expect(cell.response.chunks.every((c: { text?: string }) => typeof c.text === 'string')).toBe(true)
      expect(cell.response.chunks.map((c: { text: string }) => c.text).join('')).toBe(exchanges[i].body)
    }
    expect(rr.replayed.modelCalls[1].text).toBe('The result of \\( 1231 \\times 2331 \\) is \\( 2,869,461 \\).')
  })
})

/** Wire-level behaviour of the local provider server: plain fetch, node:http, gzip, queueing, closing. */
import { request } from 'node:http'
import { gunzipSync } from 'node:zlib'
import { afterEach, describe, expect, test } from 'vitest'
import { BYTES_CHUNK, loadExchanges, parseSse, splitBody, startProviderServer, type ProviderServer, type ProviderServerOptions } from './index.js'

let server: ProviderServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})
async function start(opts: ProviderServerOptions): Promise<ProviderServer> {
  server = await startProviderServer(opts)
  return server
}

/** Read a fetch body chunk by chunk, as the client receives it. */
async function readChunks(res: Response): Promise<Uint8Array[]> {
  const reads: Uint8Array[] = []
  const reader = res.body!.getReader()
  for (let r = await reader.read(); !r.done; r = await reader.read()) reads.push(r.value)
  return reads
}

/** node:http POST returning status, headers and the raw (undecoded) body bytes. */
function httpPost(url: string, body: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; raw: Buffer }>((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, raw: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

describe('provider server wire behaviour', () => {
  test('fetch receives each SSE event of anthropic-text.chunks.txt as a separate chunk, byte-exact', async () => {
    const [ex] = loadExchanges('anthropic/anthropic-text.chunks.txt')
    const s = await start({ script: [ex], delayMs: 5 })
    const res = await fetch(`${s.url}${ex.path}`, { method: 'POST', body: '{"stream":true}' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    expect(res.headers.get('request-id')).toMatch(/^req_[0-9a-f]{24}$/)
    const reads = await readChunks(res)
    const events = parseSse(ex.body)
    expect(reads.map((r) => Buffer.from(r).toString('utf8'))).toEqual(splitBody(ex.body).map((b) => b.toString('utf8')))
    expect(reads).toHaveLength(events.length)
    expect(events).toHaveLength(12) // 12 lines in the chunk file
    expect([events[0].event, events.at(-1)?.event]).toEqual(['message_start', 'message_stop'])
    expect(s.requests[0]).toMatchObject({ method: 'POST', path: '/v1/messages', body: '{"stream":true}', json: { stream: true } })
  })

  test('byte chunking splits the UTF-8 Buffer, not the string', () => {
    const pieces = splitBody('data: °C\n\n', 'bytes') // '°' is bytes 6-7, the first 7-byte slice ends inside it
    expect(pieces.every((p) => p.length <= BYTES_CHUNK)).toBe(true)
    expect(Buffer.concat(pieces).toString('utf8')).toBe('data: °C\n\n')
    expect(pieces.some((p) => p.toString('utf8').includes('\uFFFD'))).toBe(true)
    expect(splitBody('data: a\r\n\r\ndata: b\r\n\r\n').map(String)).toEqual(['data: a\r\n\r\n', 'data: b\r\n\r\n'])
  })

  test('node:http gets gzip-encoded streams flushed per chunk that gunzip to the recorded body', async () => {
    const [ex] = loadExchanges('gemini/test_google_streaming_tool_call_thought_signature.yaml')
    const s = await start({ script: [ex], gzip: true, chunking: 64 })
    const res = await httpPost(`${s.url}${ex.path}`, JSON.stringify(ex.requestBody))
    expect(res.status).toBe(200)
    expect(res.headers['content-encoding']).toBe('gzip')
    expect(res.headers['content-type']).toBe('text/event-stream')
    expect(gunzipSync(res.raw).toString('utf8')).toBe(ex.body)
    expect(ex.body).toContain('"name": "get_country"')
  })

  test('fetch transparently decodes a gzip JSON body and sees realistic volatile headers', async () => {
    const [ex] = loadExchanges('openai-responses/test_responses_interleaved_reasoning_between_tool_calls.yaml')
    const s = await start({ script: [ex, ex], gzip: true })
    const first = await fetch(`${s.url}${ex.path}`, { method: 'POST', body: '{}' })
    expect(await first.text()).toBe(ex.body)
    expect(first.headers.get('openai-processing-ms')).toMatch(/^\d+$/)
    expect(first.headers.get('x-request-id')).toBe(ex.headers['x-request-id'])
    expect(first.headers.get('date')).toBeTruthy()
    const [plain] = loadExchanges('openai-chat/openai-text.json')
    s.queue(plain, plain)
    await fetch(`${s.url}/v1/x`, { method: 'POST' }).then((r) => r.text())
    const [a, b] = await Promise.all([0, 1].map(() => fetch(`${s.url}/v1/chat/completions`, { method: 'POST' })))
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'))
    expect(JSON.parse(await a.text())).toEqual(JSON.parse(plain.body))
    await b.text()
  })

  test('recorded error statuses are served with their JSON error body', async () => {
    const [ex] = loadExchanges('errors/test_openai_responses_model_http_error.yaml')
    const s = await start({ script: [ex] })
    const res = await fetch(`${s.url}/v1/responses`, { method: 'POST', body: '{}' })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ error: { code: 'decimal_below_min_value', type: 'invalid_request_error' } })
  })

  test('serves queued exchanges FIFO and answers 500 naming the path once the queue is empty', async () => {
    const [one, two] = loadExchanges('openai-chat/test_openai_tool_output.yaml')
    const s = await start({})
    s.queue(one, two)
    const bodies = [] as string[]
    for (let i = 0; i < 3; i++) bodies.push(await (await fetch(`${s.url}/v1/chat/completions?n=${i}`, { method: 'POST' })).text())
    expect(bodies.slice(0, 2)).toEqual([one.body, two.body])
    expect(JSON.parse(bodies[2])).toEqual({
      error: { type: 'provider_server_error', message: 'provider-server: no recorded exchange queued for POST /v1/chat/completions?n=2 (request #3)' },
    })
    expect(s.hits).toBe(3)
  })

  test('a script function routes each request by path, falling back to the queue', async () => {
    const exchanges = loadExchanges('multi-provider/test_multiple_agent_tool_calls.yaml')
    const byPath = new Map<string, typeof exchanges>()
    for (const ex of exchanges) byPath.set(ex.path, [...(byPath.get(ex.path) ?? []), ex])
    const s = await start({ script: (req) => byPath.get(req.path)?.shift() })
    const [extra] = loadExchanges('gemini/google-text.json')
    s.queue(extra)
    const post = (p: string) => fetch(`${s.url}${p}`, { method: 'POST', body: '{}' }).then((r) => r.json() as Promise<Record<string, unknown>>)
    expect(await post('/v1/chat/completions')).toMatchObject({ choices: [{ finish_reason: 'tool_calls' }] })
    expect(await post('/v1beta/models/gemini-2.0-flash-exp:generateContent')).toHaveProperty('candidates')
    expect(await post('/v1/unknown')).toMatchObject({ responseId: 'Un6LacrVMcjUxs0PmJfWoQc' })
  })

  test('close() ends promptly while a slow stream is still being written', async () => {
    const [ex] = loadExchanges('openai-chat/test_tool_use_basic.yaml')
    const s = await startProviderServer({ script: [ex], delayMs: 1000 })
    const res = await fetch(`${s.url}/v1/chat/completions`, { method: 'POST' })
    const reader = res.body!.getReader()
    expect(Buffer.from((await reader.read()).value!).toString('utf8')).toBe(splitBody(ex.body)[0].toString('utf8'))
    const t0 = Date.now()
    await s.close()
    expect(Date.now() - t0).toBeLessThan(500)
    await expect(reader.read()).rejects.toThrow()
  })
})

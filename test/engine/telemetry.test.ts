/**
 * OpenTelemetry exports are never on a tape (measured on a real suite: an OTLP exporter's per-run bodies failed every
 * replay). Recording leaves them out of the fixture, a replay sends them where they went (no divergence), and under
 * FLUX_OFFLINE they get a collector's network error, said once.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, expect, test, vi } from 'vitest'
import { scenario } from 'fluxlab'
import { listFiles, recordThenReplay, serve, tempDir, track, useEngineSandbox } from './helpers.js'

useEngineSandbox()
afterEach(() => vi.restoreAllMocks())

/** An OTLP/HTTP collector that counts the exports it received. */
async function collector(): Promise<{ url: string; hits: () => number }> {
  let hits = 0
  const server = createServer((req, res) => {
    hits++
    req.resume()
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  track({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits }
}

const chat = {
  method: 'POST',
  path: '/v1/chat/completions',
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    id: 'c1',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
  }),
}

test('an OTLP export with a per-run body is left off the tape: recorded never, replayed without a divergence', async () => {
  const otel = await collector()
  const provider = await serve([chat])
  const agent = async () => {
    const r = await fetch(`${provider.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    })
    await fetch(`${otel.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ spanId: Math.random().toString(16), at: Date.now() }),
    })
    return (await r.json()) as { choices: unknown[] }
  }
  const rr = await recordThenReplay('otel', provider, agent)
  expect(listFiles(rr.fixture)).not.toContain('tools.jsonl')
  expect(rr.replayed.divergences).toEqual([])
  expect(rr.replayed.hermetic).toBe(true)
  expect(otel.hits()).toBe(2)
})

test('under FLUX_OFFLINE an OTLP export stays on the machine: a network error, and one warning naming the collector', async () => {
  const otel = await collector()
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
  const provider = await serve([chat])
  const dir = tempDir()
  await (await scenario('otel-offline', { dir })).run(() =>
    fetch(`${provider.url}/v1/chat/completions`, {
      method: 'POST',
      body: '{"model":"gpt-4o-mini","messages":[]}',
      headers: { 'content-type': 'application/json' },
    }),
  )
  process.env.FLUX_OFFLINE = '1'
  const out = await (await scenario('otel-offline', { dir })).run(async () => {
    await fetch(`${provider.url}/v1/chat/completions`, {
      method: 'POST',
      body: '{"model":"gpt-4o-mini","messages":[]}',
      headers: { 'content-type': 'application/json' },
    })
    const sent = await Promise.all(
      [1, 2].map(() =>
        fetch(`${otel.url}/v1/metrics`, { method: 'POST', body: '{}' }).then(
          () => 'sent',
          () => 'network error',
        ),
      ),
    )
    return sent
  })
  expect(out.result).toEqual(['network error', 'network error'])
  expect(out.divergences).toEqual([])
  expect(otel.hits()).toBe(0)
  expect(warn.mock.calls.map((c) => String(c[0])).filter((m) => m.includes('OpenTelemetry'))).toHaveLength(1)
})

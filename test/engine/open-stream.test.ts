/**
 * SPEC §3 / issue 12: a stream still open when the run ends (an SSE stream a client keeps between
 * calls, like the MCP streamable-HTTP client's GET) is stored as open, and replay keeps it open
 * after its chunks. Recording does not wait for it to end.
 */
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { scenario } from 'fluxlab'
import { expect, test } from 'vitest'
import { tempDir, useEngineSandbox } from './helpers.js'

useEngineSandbox()

/** Reads the first two events of the stream and leaves it open, as a client that listens for more. */
const agent = (url: string) => async () => {
  const res = await fetch(url, { headers: { accept: 'text/event-stream' } })
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  while (!text.includes('data: b')) text += decoder.decode((await reader.read()).value)
  return text
}

test('a stream open at the end of the run is recorded as open and replayed open, with no wait for it to end', async () => {
  const dir = tempDir()
  const held: ServerResponse[] = []
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write('data: a\n\n')
    setTimeout(() => res.write('data: b\n\n'), 20)
    held.push(res)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`

  const t0 = Date.now()
  const rec = await (await scenario('open-stream', { dir })).run(agent(url))
  expect(Date.now() - t0).toBeLessThan(5_000)
  expect(rec.result).toBe('data: a\n\ndata: b\n\n')
  const cell = JSON.parse(readFileSync(join(dir, 'open-stream/tools.jsonl'), 'utf8').trim())
  expect(cell.response).toMatchObject({ status: 200, open: true })
  expect(cell.response.chunks.map((c: { text: string }) => c.text)).toEqual(['data: a\n\n', 'data: b\n\n'])
  for (const r of held) r.destroy()
  server.closeAllConnections()
  await new Promise<void>((r) => server.close(() => r()))

  const out = await (await scenario('open-stream', { dir })).run(agent(url))
  expect(out.result).toBe(rec.result)
  expect(out.hermetic).toBe(true)
  expect(out.divergences).toEqual([])
})

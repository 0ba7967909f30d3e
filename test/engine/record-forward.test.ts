/**
 * Issue 14: recording never holds the first chunk. The caller's copy of a live body is handed over by the one
 * reader fluxlab puts on the upstream, as each chunk arrives: no tee (whose second branch and its reader stood in
 * front of every chunk), and nothing encoded before the hand-over. The copy is still a byte stream, as the fetch
 * body it stands for, and what the client does with the bytes it read never reaches the fixture.
 */
import { createServer } from 'node:http'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { scenario } from 'fluxlab'
import { afterEach, expect, test, vi } from 'vitest'
import { tempDir, useEngineSandbox } from './helpers.js'

useEngineSandbox()
afterEach(() => vi.restoreAllMocks())

const sse = (content: string) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`

/** The writes of the server below, each its own chunk on the wire: an emoji cut in two across the 2nd and 3rd. */
const WRITES = (() => {
  const body = Buffer.from(`${sse('The eagle ')}${sse('🦅 flies.')}data: [DONE]\n\n`)
  const cut = body.indexOf(Buffer.from('🦅')) + 2
  return [body.subarray(0, 40), body.subarray(40, cut), body.subarray(cut)]
})()

async function chunkServer() {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', async () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      for (const w of WRITES) {
        res.write(w)
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return { port, close: () => new Promise((resolve) => server.close(resolve)) }
}

/** The client: fetch, then a BYOB reader that reuses one buffer and overwrites each piece once it has copied it. */
async function byobRead(port: number): Promise<Buffer> {
  const res = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
    body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  })
  const reader = res.body!.getReader({ mode: 'byob' })
  const got: Buffer[] = []
  let view = new Uint8Array(4096)
  for (;;) {
    const { done, value } = await reader.read(view)
    if (done || !value) break
    got.push(Buffer.from(value))
    value.fill(0x2a) // what the client overwrites is its own copy
    view = new Uint8Array(value.buffer)
  }
  return Buffer.concat(got)
}

test('a recording tees no stream the same call live does not, and hands the client a byte stream: a BYOB reader scribbling over what it read gets every byte, the fixture the exact chunks', {
  timeout: 10_000,
}, async () => {
  const server = await chunkServer()
  const tee = vi.spyOn(ReadableStream.prototype, 'tee')
  // undici tees a request body it sends (it clones the request to follow redirects): that much is the call's own
  expect((await byobRead(server.port)).equals(Buffer.concat(WRITES))).toBe(true)
  const live = tee.mock.calls.length
  tee.mockClear()
  const dir = tempDir()
  const s = await scenario('forward', { dir, hosts: { [`127.0.0.1:${server.port}`]: 'openai-chat' } })
  expect(s.mode).toBe('record')
  let got: Buffer | undefined
  await s.run(async () => {
    got = await byobRead(server.port)
  })
  await server.close()
  expect(tee.mock.calls.length).toBe(live)
  expect(got?.equals(Buffer.concat(WRITES))).toBe(true)
  const [cell] = readFileSync(join(dir, 'forward/model.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
  const stored = (cell.response.chunks as Array<{ text?: string; b64?: string }>).map((c) =>
    c.b64 !== undefined ? Buffer.from(c.b64, 'base64') : Buffer.from(c.text!),
  )
  expect(stored.map((b) => b.toString('hex'))).toEqual(WRITES.map((w) => w.toString('hex')))
  expect(cell.text).toBe('The eagle 🦅 flies.')
})

/**
 * Issue 14: recording never holds the first chunk. The caller streams its branch of the body as it arrives, and
 * fluxlab's own live send goes out directly, not back through the patched `fetch` (where `bypass()` and the
 * interceptor cloned it three times and passed the response through once more).
 */
import { createServer } from 'node:http'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import OpenAI from 'openai'
import { scenario } from 'fluxlab'
import { expect, test } from 'vitest'
import { tempDir, useEngineSandbox } from './helpers.js'

useEngineSandbox()

const event = (content: string | undefined, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: content === undefined ? {} : { content }, finish_reason: finish }] })}\n\n`

/** An SSE server that sends its first event, then the rest only once `release()` is called (by the client, on its first chunk). */
async function heldServer() {
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(event('The'))
      void released.then(() => {
        res.write(event(' rest.'))
        res.write(event(undefined, 'stop'))
        res.end('data: [DONE]\n\n')
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return { port, release, close: () => new Promise((resolve) => server.close(resolve)) }
}

test('the caller gets the first chunk before the provider sends the rest, and the live send reaches the fetch interceptor no second time', {
  timeout: 10_000,
}, async () => {
  const server = await heldServer()
  const dir = tempDir()
  const s = await scenario('held', { dir, hosts: { [`127.0.0.1:${server.port}`]: 'openai-chat' } })
  expect(s.mode).toBe('record')
  const seen: string[] = []
  let text = ''
  await s.run(async () => {
    // after fluxlab's listener is attached: put one before it that only counts what the fetch interceptor is asked
    const fetchInterceptor = (
      globalThis as Record<
        symbol,
        { emitter: { prependListener(e: string, l: (ev: { request: Request }) => void): void; removeListener(e: string, l: unknown): void } }
      >
    )[Symbol.for('fetch-interceptor')]
    const count = ({ request }: { request: Request }) => void seen.push(`${request.method} ${new URL(request.url).pathname}`)
    fetchInterceptor.emitter.prependListener('request', count)
    try {
      const client = new OpenAI({ apiKey: 'sk-test', baseURL: `http://127.0.0.1:${server.port}/v1`, maxRetries: 0 })
      const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] })
      for await (const chunk of stream) {
        server.release() // the rest comes only now: a first chunk held until the body ends would never arrive
        text += chunk.choices[0]?.delta?.content ?? ''
      }
    } finally {
      fetchInterceptor.emitter.removeListener('request', count)
    }
  })
  await server.close()
  expect(text).toBe('The rest.')
  expect(seen).toEqual(['POST /v1/chat/completions'])
  const cell = JSON.parse(readFileSync(join(dir, 'held/model.jsonl'), 'utf8').trim())
  expect(cell.text).toBe('The rest.')
  expect(cell.response.chunks.length).toBeGreaterThanOrEqual(2)
})

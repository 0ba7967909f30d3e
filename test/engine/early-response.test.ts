/**
 * Issue 15 (the client-got-16 cell's ECONNRESET): a `node:http` client that writes its body, waits for the write
 * callback and one more turn, and only then ends the request (got 16's `_writeBodyInChunks`) must not get the
 * response before it has ended. got 16 treats a request that already has a response at that point as stale and
 * destroys it, which aborts a response still streaming ("The server aborted pending request", ECONNRESET).
 * @mswjs/interceptors 0.41 holds a mocked request's write callbacks until the response is decided and then
 * releases them in the same tick as it writes the response head, so fluxlab's recorded (live, still streaming)
 * and replayed answers both arrived before the client's turn.
 */
import { request, type ClientRequest, type IncomingMessage } from 'node:http'
import { expect, test } from 'vitest'
import { recordThenReplay, serve, useEngineSandbox } from './helpers.js'

useEngineSandbox()

interface Outcome {
  /** Whether the response had arrived when the client, one turn after its write callback, went to end the request. */
  early: boolean
  body: string
}

/** POST as got 16 does: write, wait for the callback and a `setImmediate`, then end, or destroy if answered already. */
function postLikeGot16(url: string, body: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    let early = false
    const req = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = ''
        res.on('data', (c: Buffer) => (text += c))
        res.on('end', () => resolve({ early, body: text }))
        res.on('aborted', () => reject(new Error(`the response was aborted (early answer: ${early})`)))
      },
    )
    req.on('error', reject)
    req.write(body, () =>
      setImmediate(() => {
        early = (req as ClientRequest & { res?: IncomingMessage | null }).res != null
        if (early) req.destroy()
        else req.end()
      }),
    )
  })
}

test('a node:http response streams to a client that ends its request one turn after the write callback (got 16), recorded and replayed', async () => {
  const server = await serve(['openai-chat/openai-text.chunks.txt'], { chunking: 'events', delayMs: 1 })
  const body = JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'Tell me a joke' }] })
  const { recorded, replayed, replayHits } = await recordThenReplay('got16', server, () => postLikeGot16(`${server.url}/v1/chat/completions`, body))
  expect(recorded.result.early).toBe(false)
  expect(recorded.result.body).toContain('data: [DONE]')
  expect(replayed.result).toEqual(recorded.result)
  expect(replayHits).toBe(0)
})

// Section 2 of the bench: time to first chunk while recording, against the same call live.
// A local SSE server on 127.0.0.1 (never a public address) sends its first chunk at once and the
// rest 30 ms later; the OpenAI SDK streams a chat completion from it. One sample times the SDK
// call from `create()` to the first chunk its stream yields: live (no fluxlab) and inside a
// recording `s.run()` (fluxlab captures the same stream beside the caller).
import { createServer } from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { scenario } from 'fluxlab'

const REST_AFTER_MS = 30

const event = (content, finish = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: content === undefined ? {} : { content }, finish_reason: finish }] })}\n\n`

function sseServer() {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      res.write(event('The'))
      setTimeout(() => {
        res.write(event(' capital is London.'))
        res.write(event(undefined, 'stop'))
        res.end('data: [DONE]\n\n')
      }, REST_AFTER_MS)
    })
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)))
}

/** ms from `create()` to the first chunk, and the stream read to the end (so the recording is whole). */
async function firstChunk(baseURL) {
  const client = new OpenAI({ apiKey: 'bench-placeholder', baseURL, maxRetries: 0 })
  const t0 = performance.now()
  const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'Capital of the UK?' }] })
  let first
  let text = ''
  for await (const chunk of stream) {
    first ??= performance.now() - t0
    text += chunk.choices[0]?.delta?.content ?? ''
  }
  if (text !== 'The capital is London.') throw new Error(`the stream said ${JSON.stringify(text)}`)
  return first
}

/**
 * `rounds` interleaved rounds of `block` samples of each variant (order alternating). Returns the
 * samples (ms) and the per-round difference of medians.
 * @param {{ rounds: number, block: number, median: (xs: number[]) => number }} o
 */
export async function recordBench({ rounds, block, median }) {
  const server = await sseServer()
  const { port } = server.address()
  const baseURL = `http://127.0.0.1:${port}/v1`
  const hosts = { [`127.0.0.1:${port}`]: 'openai-chat' }
  const dir = mkdtempSync(join(tmpdir(), 'fluxlab-bench-record-'))
  const offline = process.env.FLUX_OFFLINE
  delete process.env.FLUX_OFFLINE
  let n = 0
  const record = async () => {
    const s = await scenario(`ttfc-${n++}`, { dir, hosts })
    if (s.mode !== 'record') throw new Error(`expected a recording, got ${s.mode}`)
    let first
    await s.run(async () => {
      first = await firstChunk(baseURL)
    })
    return first
  }
  const live = []
  const recorded = []
  const perRound = []
  try {
    for (let i = 0; i < 3; i++) {
      await firstChunk(baseURL)
      await record()
    }
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 ? ['record', 'live'] : ['live', 'record']
      const at = { live: live.length, record: recorded.length }
      for (const v of order)
        for (let i = 0; i < block; i++) (v === 'live' ? live : recorded).push(v === 'live' ? await firstChunk(baseURL) : await record())
      perRound.push(median(recorded.slice(at.record)) - median(live.slice(at.live)))
    }
  } finally {
    if (offline === undefined) delete process.env.FLUX_OFFLINE
    else process.env.FLUX_OFFLINE = offline
    server.close()
    rmSync(dir, { recursive: true, force: true })
  }
  return { live, recorded, perRound }
}

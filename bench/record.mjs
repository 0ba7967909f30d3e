// Section 2 of the bench: time to first chunk while recording, against the same call live.
// A local SSE server on 127.0.0.1 (never a public address) sends its first chunk at once and the
// rest 30 ms later; the OpenAI SDK streams a chat completion from it. One sample times the SDK
// call from `create()` to the first chunk its stream yields: live (no fluxlab) and inside a
// recording `s.run()` (fluxlab captures the same stream beside the caller). Optionally the floor:
// msw's interception alone (`@mswjs/interceptors`, the layer fluxlab sits on) with a listener that
// only forwards the request with the pre-interception `fetch`, which is what a recording does at least.
//
// `node bench/record.mjs` (after build + link-self) runs this section alone with the floor and prints
// the quartiles of the paired differences; BENCH_RECORD_N (default 200) and BENCH_ROUNDS (default 10).
import { createServer } from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { FetchInterceptor } from '@mswjs/interceptors/fetch'
import OpenAI from 'openai'
import { scenario } from 'fluxlab'

/** `fetch` as it is before anything patches it: the floor forwards with it, as fluxlab's recording does. */
const pristineFetch = globalThis.fetch

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

/**
 * ms from `create()` to the first chunk, and the stream read to the end (so the recording is whole). The CPU
 * time of the same span (µs, the whole process: every thread, and the local server's share too) goes to `cpu`.
 */
async function firstChunk(baseURL, cpu = []) {
  const client = new OpenAI({ apiKey: 'bench-placeholder', baseURL, maxRetries: 0 })
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'Capital of the UK?' }] })
  let first
  let text = ''
  for await (const chunk of stream) {
    if (first === undefined) {
      first = performance.now() - t0
      const c = process.cpuUsage(c0)
      cpu.push(c.user + c.system)
    }
    text += chunk.choices[0]?.delta?.content ?? ''
  }
  if (text !== 'The capital is London.') throw new Error(`the stream said ${JSON.stringify(text)}`)
  return first
}

/**
 * The floor: msw's fetch interception with one listener that forwards the request untouched and answers
 * with what came back (applied outside the timed span, disposed after it).
 */
async function floorChunk(baseURL, cpu) {
  const interceptor = new FetchInterceptor()
  interceptor.on('request', async ({ request, controller }) => controller.respondWith(await pristineFetch(request)))
  interceptor.apply()
  try {
    return await firstChunk(baseURL, cpu)
  } finally {
    interceptor.dispose()
  }
}

/**
 * `rounds` interleaved rounds of `block` samples of each variant (order rotating). Returns the
 * samples (ms), the per-round difference of medians, and the paired differences (the i-th sample of a
 * variant minus the i-th live sample of the same round).
 * @param {{ rounds: number, block: number, median: (xs: number[]) => number, floor?: boolean }} o
 */
export async function recordBench({ rounds, block, median, floor = false }) {
  const server = await sseServer()
  const { port } = server.address()
  const baseURL = `http://127.0.0.1:${port}/v1`
  const hosts = { [`127.0.0.1:${port}`]: 'openai-chat' }
  const dir = mkdtempSync(join(tmpdir(), 'fluxlab-bench-record-'))
  const offline = process.env.FLUX_OFFLINE
  delete process.env.FLUX_OFFLINE
  let n = 0
  const cpu = { live: [], record: [], floor: [] }
  const record = async () => {
    const s = await scenario(`ttfc-${n++}`, { dir, hosts })
    if (s.mode !== 'record') throw new Error(`expected a recording, got ${s.mode}`)
    let first
    await s.run(async () => {
      first = await firstChunk(baseURL, cpu.record)
    })
    return first
  }
  const samples = { live: [], record: [], floor: [] }
  const take = { live: () => firstChunk(baseURL, cpu.live), record, floor: () => floorChunk(baseURL, cpu.floor) }
  const variants = floor ? ['live', 'record', 'floor'] : ['live', 'record']
  const perRound = []
  const paired = { record: [], floor: [] }
  try {
    for (let i = 0; i < 3; i++) for (const v of variants) await take[v]()
    for (let r = 0; r < rounds; r++) {
      const order = variants.map((_, i) => variants[(i + r) % variants.length])
      const at = Object.fromEntries(variants.map((v) => [v, samples[v].length]))
      for (const v of order) for (let i = 0; i < block; i++) samples[v].push(await take[v]())
      const live = samples.live.slice(at.live)
      perRound.push(median(samples.record.slice(at.record)) - median(live))
      for (const v of variants.slice(1)) samples[v].slice(at[v]).forEach((x, i) => paired[v].push(x - live[i]))
    }
  } finally {
    if (offline === undefined) delete process.env.FLUX_OFFLINE
    else process.env.FLUX_OFFLINE = offline
    server.close()
    rmSync(dir, { recursive: true, force: true })
  }
  const warm = 3 // the warm-up calls of each variant come first
  for (const v of variants) cpu[v].splice(0, warm)
  return { live: samples.live, recorded: samples.record, floor: samples.floor, perRound, paired, cpu }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const int = (name, dflt) => {
    const v = Number(process.env[name] ?? dflt)
    return Number.isInteger(v) && v > 0 ? v : dflt
  }
  const sorted = (xs) => [...xs].sort((a, b) => a - b)
  const pct = (xs, p) => sorted(xs)[Math.min(xs.length - 1, Math.max(0, Math.ceil((p / 100) * xs.length) - 1))]
  const median = (xs) => {
    const s = sorted(xs)
    const m = s.length >> 1
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
  }
  const n = int('BENCH_RECORD_N', 200)
  const rounds = Math.min(int('BENCH_ROUNDS', 10), n)
  const r = await recordBench({ rounds, block: Math.ceil(n / rounds), median, floor: true })
  const row = (label, xs) => `   ${label.padEnd(44)} ${[10, 25, 50, 75, 95].map((p) => pct(xs, p).toFixed(2).padStart(7)).join(' ')}`
  console.log(`time to first chunk, ms: ${r.live.length} calls per variant, ${rounds} interleaved rounds`)
  console.log(`   ${''.padEnd(44)} ${['p10', 'p25', 'median', 'p75', 'p95'].map((h) => h.padStart(7)).join(' ')}`)
  console.log(row('live, no fluxlab (baseline)', r.live))
  console.log(row('recording (scenario().run())', r.recorded))
  console.log(row('floor: msw interception, forward only', r.floor))
  console.log(row('recording − live, paired', r.paired.record))
  console.log(row('floor − live, paired', r.paired.floor))
  console.log(row('recording − floor, paired', r.paired.record.map((x, i) => x - r.paired.floor[i])))
  console.log(`CPU time of the same span, µs (the whole process, the local server included)`)
  console.log(row('live', r.cpu.live))
  console.log(row('recording', r.cpu.record))
  console.log(row('floor', r.cpu.floor))
  console.log(`   recording − live, per-round difference of medians: ${Math.min(...r.perRound).toFixed(2)} … ${Math.max(...r.perRound).toFixed(2)} ms`)
}

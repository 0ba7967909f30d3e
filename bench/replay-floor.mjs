// A quick look at issue 40's performance number (not part of `npm run bench`): a fresh fluxlab `scenario()` + `run()`
// against the floor (`globalThis.fetch` answered from memory, no interception), interleaved in one process, as
// bench/run.mjs section 1 measures them. `--ic` adds the interceptors fluxlab uses (fetch + ClientRequest) answering from
// memory with no matching (`--ic-fetch`: the fetch interceptor alone): what msw's interception costs by itself.
// `node bench/replay-floor.mjs [n=300] [rounds=10]`; `--prof <file>` instead profiles only fluxlab's runs after the warm-up
// (node:inspector), for a profile of the replay path. CPU time (`process.cpuUsage`) is printed beside the wall time: on a
// machine other processes load, it moves less. Run after `npm run build && node scripts/link-self.mjs`.
process.env.CI = ''
process.env.FLUX_OFFLINE = '1'
delete process.env.FLUX_GOLDEN

import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { scenario } from 'fluxlab'
import { capitalAgent } from './agent.mjs'
import { readExample, streamed } from './gen-fixture.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const SCENARIOS = join(root, 'examples/scenarios')
const example = readExample(join(SCENARIOS, 'capital-agent'))
const modelResponses = [...example.model].sort((a, b) => a.seq - b.seq).map((c) => c.response)
const toolResponse = example.tools[0].response
const args = process.argv.slice(2).filter((a, i, all) => a !== '--prof' && all[i - 1] !== '--prof')
const N = Number(args[0] ?? 300)
const ROUNDS = Number(args[1] ?? 10)
const profAt = process.argv.indexOf('--prof')
const profFile = profAt > 0 ? process.argv[profAt + 1] : undefined

/** fluxlab's interception lingers a turn of the event loop after a run: the floor starts once it is gone. */
const settle = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)))
const applied = () => [Symbol.for('fetch-interceptor'), Symbol.for('client-request-interceptor')].some((s) => globalThis[s]?.readyState === 'APPLIED')

async function floor() {
  const counter = { n: 0 }
  const t0 = performance.now()
  const real = globalThis.fetch
  globalThis.fetch = async (input) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    if (url === 'https://api.openai.com/v1/chat/completions') return streamed(modelResponses[counter.n++])
    if (url.startsWith('http://127.0.0.1:4010/capital')) return streamed(toolResponse)
    throw new Error(`floor: no answer for ${url}`)
  }
  try {
    await capitalAgent()
  } finally {
    globalThis.fetch = real
  }
  return performance.now() - t0
}

/**
 * `--ic`: the interceptors fluxlab uses (`@mswjs/interceptors` fetch + ClientRequest, applied once per block as fluxlab's
 * linger keeps them), with one listener that answers from memory as the floor does: what any msw-based replay pays.
 */
let ic
async function icRun() {
  const counter = { n: 0 }
  const t0 = performance.now()
  ic.answer = (url) => (url === 'https://api.openai.com/v1/chat/completions' ? streamed(modelResponses[counter.n++]) : streamed(toolResponse))
  await capitalAgent()
  return performance.now() - t0
}
async function icBlock(k, out) {
  const { FetchInterceptor } = await import('@mswjs/interceptors/fetch')
  const { ClientRequestInterceptor } = await import('@mswjs/interceptors/ClientRequest')
  const all = process.argv.includes('--ic-fetch') ? [new FetchInterceptor()] : [new ClientRequestInterceptor(), new FetchInterceptor()]
  ic = {}
  for (const i of all) {
    i.apply()
    i.on('request', ({ request, controller }) => controller.respondWith(ic.answer(request.url)))
  }
  try {
    for (let i = 0; i < k; i++) out.push(await icRun())
  } finally {
    for (const i of all) i.dispose()
  }
}

async function flux() {
  const t0 = performance.now()
  const s = await scenario('capital-agent', { dir: SCENARIOS })
  const out = await s.run(() => capitalAgent())
  const t = performance.now() - t0
  if (!out.hermetic || out.divergences.length) throw new Error(`not hermetic: ${JSON.stringify(out.divergences)}`)
  return t
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[s.length >> 1] : (s[(s.length >> 1) - 1] + s[s.length >> 1]) / 2
}
const block = Math.ceil(N / ROUNDS)
const withIc = process.argv.some((a) => a.startsWith('--ic'))
for (let i = 0; i < block; i++) await flux(), await floor()
if (withIc) await settle(), await icBlock(block, [])
if (profFile) {
  const { Session } = await import('node:inspector/promises')
  const { writeFileSync } = await import('node:fs')
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.setSamplingInterval', { interval: 50 })
  await session.post('Profiler.start')
  if (withIc) await settle(), await icBlock(N, [])
  else for (let i = 0; i < N; i++) await flux()
  const { profile } = await session.post('Profiler.stop')
  writeFileSync(profFile, JSON.stringify(profile))
} else {
  const names = withIc ? ['flux', 'floor', 'ic'] : ['flux', 'floor']
  const all = { flux: [], floor: [], ic: [] }
  const cpu = { flux: 0, floor: 0, ic: 0 }
  const ratios = []
  for (let r = 0; r < ROUNDS; r++) {
    const got = { flux: [], floor: [], ic: [] }
    for (const v of r % 2 ? names.toReversed() : names) {
      await settle()
      if (v === 'floor' && applied()) throw new Error('an interceptor is still applied: the floor would not be the floor')
      const c0 = process.cpuUsage()
      if (v === 'ic') await icBlock(block, got.ic)
      else for (let i = 0; i < block; i++) got[v].push(await (v === 'flux' ? flux() : floor()))
      const c = process.cpuUsage(c0)
      cpu[v] += c.user + c.system
    }
    ratios.push(median(got.flux) / median(got.floor))
    for (const v of names) all[v].push(...got[v])
  }
  const f = median(all.flux)
  const b = median(all.floor)
  const per = (v) => cpu[v] / 1000 / all[v].length
  console.log(
    `floor ${b.toFixed(3)} ms  flux ${f.toFixed(3)} ms  = ${(f / b).toFixed(2)}× floor (per round ${ratios.map((x) => x.toFixed(2)).join(' ')}); ` +
      `CPU per run ${per('floor').toFixed(3)} / ${per('flux').toFixed(3)} ms = ${(per('flux') / per('floor')).toFixed(2)}×`,
  )
  if (withIc)
    console.log(
      `interceptors answering from memory: ${median(all.ic).toFixed(3)} ms = ${(median(all.ic) / b).toFixed(2)}× floor; ` +
        `CPU ${per('ic').toFixed(3)} ms = ${(per('ic') / per('floor')).toFixed(2)}×`,
    )
}

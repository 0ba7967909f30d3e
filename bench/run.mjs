// fluxlab benchmark (not a test): prints ratios against plain baselines.
// `npm run bench` builds the package first; this file imports the built
// `fluxlab` (dist/index.js) the way a user's project does. See bench/README.md.
//
// Knobs (environment): BENCH_N (runs per variant, default 200), BENCH_ROUNDS
// (default 10), BENCH_CELLS (fixture size, default 10000), BENCH_LOAD_REPS
// (timed fixture loads, default 3).

// Replay only, never live, never a rewrite of the committed fixture: no CI
// update state, offline, and no FLUX_GOLDEN (`snapshots` would rewrite trace.snap).
process.env.CI = ''
process.env.FLUX_OFFLINE = '1'
delete process.env.FLUX_GOLDEN

import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { http } from 'msw'
import { setupServer } from 'msw/node'
import { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest'
import { FetchInterceptor } from '@mswjs/interceptors/fetch'
import { readFixture, scenario } from 'fluxlab'
import { capitalAgent } from './agent.mjs'
import { pollyNock } from './polly-nock.mjs'
import { recordToolTape, toolAgent } from './tool-tape.mjs'
import { generateFixture, readExample, streamed } from './gen-fixture.mjs'
import { prng } from './mutate.mjs'
import { recordBench } from './record.mjs'
import { removeInstall, setupBench, suiteBench } from './suite.mjs'
import { BROWSER_ROWS, playwrightBench } from './playwright.mjs'

/**
 * The globals as Node made them, before any interceptor patched them (imports patch nothing). The ClientRequest
 * interceptor replaces `Headers`, `Request` and `Response` with proxies that note raw header names, and once the msw rows
 * have sat on fluxlab's interceptors those stay applied for the rest of the process: the floor would run with them.
 */
const PRISTINE = { Headers: globalThis.Headers, Request: globalThis.Request, Response: globalThis.Response }

const root = fileURLToPath(new URL('..', import.meta.url))
const SCENARIOS = join(root, 'examples/scenarios')
const EXAMPLE = join(SCENARIOS, 'capital-agent')

const int = (name, dflt) => {
  const v = Number(process.env[name] ?? dflt)
  return Number.isInteger(v) && v > 0 ? v : dflt
}
const N = int('BENCH_N', 200)
const ROUNDS = Math.min(int('BENCH_ROUNDS', 10), N)
const BLOCK = Math.ceil(N / ROUNDS)
const CELLS = int('BENCH_CELLS', 10000)
const LOAD_REPS = int('BENCH_LOAD_REPS', 7)
const RECORD_N = int('BENCH_RECORD_N', 60)
const SETUP_FILES = int('BENCH_SETUP_FILES', 20)
const SETUP_IMPORTS = int('BENCH_SETUP_IMPORTS', 7)
const SUITE_ROUNDS = int('BENCH_SUITE_ROUNDS', 3)
/** `BENCH_SUITE_SHAPES=50x10,500x1`: the generated suites, files × tests per file (the default keeps the bench short). */
const SUITE_SHAPES = (process.env.BENCH_SUITE_SHAPES ?? '50x10,100x1').split(',').map((s) => s.split('x').map(Number))
/** `BENCH_ONLY=replay,record,load,setup,suite,browser`: run only those sections (default all). */
const ONLY = new Set((process.env.BENCH_ONLY ?? 'replay,record,load,setup,suite,browser').split(','))
const BROWSER_ROUNDS = int('BENCH_BROWSER_ROUNDS', 5)

// ---------------------------------------------------------------- stats

const sorted = (xs) => [...xs].sort((a, b) => a - b)
/** Nearest-rank percentile. */
const pct = (xs, p) => {
  const s = sorted(xs)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]
}
const median = (xs) => {
  const s = sorted(xs)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
const ms = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2))
const ratio = (x) => `${x.toFixed(2)}×`
const pad = (s, n) => String(s).padStart(n)
const padEnd = (s, n) => String(s).padEnd(n)

// ---------------------------------------------------------------- 1. replay vs plain msw

const EXPECTED = { answer: 'The capital of the UK is London.', steps: 2 }

/**
 * The baseline: plain msw with static handlers serving the recorded bytes of the
 * same fixture, enqueued in a ReadableStream chunk by chunk as fluxlab replays them
 * (one enqueue per recorded chunk, no pacing). Model cells are served in recorded
 * order by a per-run counter, the cheapest static routing a hand-written test uses.
 */
const example = readExample(EXAMPLE)
const modelResponses = [...example.model].sort((a, b) => a.seq - b.seq).map((c) => c.response)
const toolResponse = example.tools[0].response

function mswHandlers(counter) {
  return [
    http.post('https://api.openai.com/v1/chat/completions', () => streamed(modelResponses[counter.n++])),
    http.get('http://127.0.0.1:4010/capital', () => streamed(toolResponse)),
  ]
}
const LISTEN = { onUnhandledRequest: 'error' }

function checkResult(result, who) {
  if (result?.answer !== EXPECTED.answer || result?.steps !== EXPECTED.steps)
    throw new Error(`${who}: the agent answered ${JSON.stringify(result)}, expected ${JSON.stringify(EXPECTED)}`)
}

/** fluxlab: open the scenario (reads + validates + scans the fixture) and run the agent against it. */
async function fluxlabRun() {
  const t0 = performance.now()
  const s = await scenario('capital-agent', { dir: SCENARIOS })
  const t1 = performance.now()
  const out = await s.run(() => capitalAgent())
  const t2 = performance.now()
  if (!out.hermetic || out.divergences.length) throw new Error(`fluxlab run not hermetic: ${JSON.stringify(out.divergences)}`)
  return { total: t2 - t0, run: t2 - t1, out }
}

/**
 * msw with the same per-run lifecycle as `Scenario.run` (which sets up, listens and closes an msw server per run),
 * around `agent`; the tool-on-tape rows' baseline passes the agent that calls its tool as a plain function.
 */
async function mswPerRun(agent = capitalAgent, label = 'msw') {
  const counter = { n: 0 }
  const t0 = performance.now()
  const server = setupServer(...mswHandlers(counter))
  server.listen(LISTEN)
  let result
  try {
    result = await agent()
  } finally {
    server.close()
  }
  const t1 = performance.now()
  checkResult(result, label)
  return t1 - t0
}

const mswToolPerRun = () => mswPerRun(toolAgent, 'msw (tool in-process)')

/**
 * The floor (issue 40): no interception at all. `globalThis.fetch` is swapped, for the run, for a function that answers
 * from memory with the same bytes, chunk by chunk, as the msw handlers do: what is left is the SDK's and the agent's own
 * cost. The client is built inside the run (`new OpenAI()` reads `fetch` then), so it takes the swapped one.
 */
async function floorRun() {
  const counter = { n: 0 }
  const t0 = performance.now()
  const real = globalThis.fetch
  // @note issue 40: without this the floor ran under the interceptors' Headers/Request/Response proxies (see PRISTINE).
  const patched = { Headers: globalThis.Headers, Request: globalThis.Request, Response: globalThis.Response }
  Object.assign(globalThis, PRISTINE)
  globalThis.fetch = async (input) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    if (url === 'https://api.openai.com/v1/chat/completions') return streamed(modelResponses[counter.n++])
    if (url.startsWith('http://127.0.0.1:4010/capital')) return streamed(toolResponse)
    throw new Error(`floor: no answer for ${url}`)
  }
  let result
  try {
    result = await capitalAgent()
  } finally {
    globalThis.fetch = real
    Object.assign(globalThis, patched)
  }
  const t1 = performance.now()
  checkResult(result, 'floor')
  return t1 - t0
}

/**
 * What any replay built on msw's interception pays (issue 40): the fetch and ClientRequest interceptors fluxlab applies,
 * applied for the block (fluxlab keeps them across back-to-back runs), with one `request` listener that answers from
 * memory as the floor does: no matching, no fixture. The part of fluxlab's ratio to the floor that is not fluxlab's.
 */
async function interceptorsBlock(k, keep) {
  const interceptors = [new ClientRequestInterceptor(), new FetchInterceptor()]
  const counter = { n: 0 }
  const answer = ({ request, controller }) => {
    const url = request.url
    if (url === 'https://api.openai.com/v1/chat/completions') controller.respondWith(streamed(modelResponses[counter.n++]))
    else if (url.startsWith('http://127.0.0.1:4010/capital')) controller.respondWith(streamed(toolResponse))
  }
  for (const i of interceptors) {
    i.apply()
    i.on('request', answer)
  }
  try {
    for (let i = 0; i < k; i++) {
      counter.n = 0
      const t0 = performance.now()
      const result = await capitalAgent()
      const t1 = performance.now()
      checkResult(result, 'interceptors')
      if (keep) variants.interceptors.total.push(t1 - t0)
    }
  } finally {
    for (const i of interceptors) i.dispose()
  }
}

/** One fluxlab run against an opened scenario: only `s.run(agent)` is timed. */
async function fluxlabRunOn(s, agent) {
  const t0 = performance.now()
  const out = await s.run(agent)
  const t1 = performance.now()
  if (!out.hermetic || out.divergences.length) throw new Error(`fluxlab run not hermetic: ${JSON.stringify(out.divergences)}`)
  checkResult(out.result, 'fluxlab')
  return t1 - t0
}

const variants = {
  flux: { total: [], run: [] },
  fluxReused: { total: [] },
  fluxTool: { total: [] },
  mswRun: { total: [] },
  mswLive: { total: [] },
  mswToolRun: { total: [] },
  mswToolLive: { total: [] },
  polly: { total: [] },
  nock: { total: [] },
  floor: { total: [] },
  interceptors: { total: [] },
}
/** Polly.js and nock.back replays (bench/polly-nock.mjs), set up in replayBench. */
let others
/** The tool-on-tape fixture (bench/tool-tape.mjs), and the one scenario the reused-scenario row runs again and again. */
let toolTape
let reused

async function block(name, k, keep) {
  if (name === 'flux') {
    for (let i = 0; i < k; i++) {
      const r = await fluxlabRun()
      if (keep) {
        variants.flux.total.push(r.total)
        variants.flux.run.push(r.run)
      }
    }
  } else if (name === 'fluxReused') {
    for (let i = 0; i < k; i++) {
      const t = await fluxlabRunOn(reused, () => capitalAgent())
      if (keep) variants.fluxReused.total.push(t)
    }
  } else if (name === 'fluxTool') {
    for (let i = 0; i < k; i++) {
      const t0 = performance.now()
      const s = await scenario(toolTape.name, { dir: toolTape.dir })
      const open = performance.now() - t0
      const t = await fluxlabRunOn(s, (lab) => toolAgent(lab))
      if (keep) variants.fluxTool.total.push(open + t)
    }
  } else if (name === 'mswToolRun') {
    for (let i = 0; i < k; i++) {
      const t = await mswToolPerRun()
      if (keep) variants.mswToolRun.total.push(t)
    }
  } else if (name === 'polly' || name === 'nock') {
    for (let i = 0; i < k; i++) {
      const [t, result] = await (name === 'polly' ? others.polly() : others.nockBack())
      checkResult(result, name)
      if (keep) variants[name].total.push(t)
    }
  } else if (name === 'interceptors') {
    await interceptorsBlock(k, keep)
  } else if (name === 'floor') {
    for (let i = 0; i < k; i++) {
      const t = await floorRun()
      if (keep) variants.floor.total.push(t)
    }
  } else if (name === 'mswRun') {
    for (let i = 0; i < k; i++) {
      const t = await mswPerRun()
      if (keep) variants.mswRun.total.push(t)
    }
  } else {
    // One server for the whole block (a test file's beforeAll/afterAll); only the agent run is timed.
    // mswLive: the agent with its HTTP tool; mswToolLive: with the tool as a plain function.
    const agent = name === 'mswToolLive' ? () => toolAgent() : () => capitalAgent()
    const counter = { n: 0 }
    const server = setupServer(...mswHandlers(counter))
    server.listen(LISTEN)
    try {
      for (let i = 0; i < k; i++) {
        counter.n = 0
        const t0 = performance.now()
        const result = await agent()
        const t1 = performance.now()
        checkResult(result, `msw (listening, ${name})`)
        if (keep) variants[name].total.push(t1 - t0)
      }
    } finally {
      server.close()
    }
  }
}

/** The same `BENCH_SEED`, the same block orders (mulberry32, shared with the fixture fuzz). */
const SEED = int('BENCH_SEED', 1)
const rng = prng(SEED)
/** `xs` in a random order (Fisher-Yates). */
function shuffled(xs, random) {
  const out = [...xs]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j], out[i]]
  }
  return out
}

/** The rows whose baseline is msw per run with the tool in-process (no HTTP tool call). */
const TOOL_ROWS = new Set(['fluxTool', 'mswToolRun', 'mswToolLive'])

async function replayBench() {
  // Verify once, before timing, that fluxlab serves every request from the tape.
  const first = await fluxlabRun()
  if (first.out.hermetic !== true || first.out.divergences.length !== 0) throw new Error('fluxlab replay is not hermetic')
  checkResult(first.out.result, 'fluxlab')
  await mswPerRun()
  await mswToolPerRun()
  await floorRun()
  toolTape = await recordToolTape(modelResponses, toolResponse)
  // One scenario for every run of the reused-scenario row, opened once (a test file's beforeAll), before timing.
  reused = await scenario('capital-agent', { dir: SCENARIOS })
  others = await pollyNock(modelResponses, toolResponse)
  checkResult(others.recorded.polly, 'Polly.js recording')
  checkResult(others.recorded.nock, 'nock.back recording')
  await toolTape.aged()

  const order = ['flux', 'fluxReused', 'fluxTool', 'mswRun', 'mswLive', 'mswToolRun', 'mswToolLive', 'polly', 'nock', 'floor', 'interceptors']
  // Warm-up round (JIT, module caches, msw internals), discarded.
  for (const v of order) await block(v, BLOCK, false)
  const perRound = []
  for (let r = 0; r < ROUNDS; r++) {
    // A new order each round, drawn at random (seeded): no variant always runs first, or always right after the same
    // one. A rotation kept each variant's neighbour fixed (the msw listening rows always right after their per-run twin,
    // with the same agent's code hot), which moved the ratios by as much as the noise.
    const rot = shuffled(order, rng)
    const before = Object.fromEntries(order.map((v) => [v, variants[v].total.length]))
    for (const v of rot) await block(v, BLOCK, true)
    // Each row's ratio to its own baseline: msw per run, or (the tool-on-tape rows) msw per run with the tool in-process.
    const base = median(variants.mswRun.total.slice(before.mswRun))
    const toolBase = median(variants.mswToolRun.total.slice(before.mswToolRun))
    const live = median(variants.mswLive.total.slice(before.mswLive))
    const toolLive = median(variants.mswToolLive.total.slice(before.mswToolLive))
    const med = (v) => median(variants[v].total.slice(before[v]))
    perRound.push({
      ...Object.fromEntries(order.map((v) => [v, med(v) / (TOOL_ROWS.has(v) ? toolBase : base)])),
      fluxLive: med('flux') / live,
      fluxReusedLive: med('fluxReused') / live,
      fluxToolLive: med('fluxTool') / toolLive,
      fluxFloor: med('flux') / med('floor'),
      mswFloor: med('mswRun') / med('floor'),
      interceptorsFloor: med('interceptors') / med('floor'),
      fluxInterceptors: med('flux') / med('interceptors'),
    })
  }
  others.cleanup()
  toolTape.cleanup()
  return perRound
}

// ---------------------------------------------------------------- 2. fixture load

/** The baseline: read the same files and JSON.parse each non-empty line, nothing else. */
function plainParse(dir) {
  let n = 0
  for (const f of ['model.jsonl', 'tools.jsonl']) {
    const text = readFileSync(join(dir, f), 'utf8')
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue
      JSON.parse(line)
      n++
    }
  }
  return n
}

/**
 * readFixture keeps what it read while no file changed (issue 14), so a cold load needs a fixture it never
 * read: one copy of the generated fixture per rep. The copies are left to age past the cache's "racy" window
 * (a file changed in the last 2.5 s is also hashed), like a fixture checked out long before the test run.
 */
function loadBench(dir, info) {
  const cells = info.modelCells + info.toolCells
  // three copies per rep (one read cold, one read cold and every cell used, one read with its content checked
  // before) and a spare for the warm-up.
  const copies = Array.from({ length: 3 * LOAD_REPS + 1 }, (_, i) => {
    const to = `${dir}-copy${i}`
    cpSync(dir, to, { recursive: true })
    return to
  })
  const memos = mkdtempSync(join(tmpdir(), 'fluxlab-bench-memo-'))
  try {
    return timedLoads(dir, copies, cells, memos)
  } finally {
    for (const c of copies) rmSync(c, { recursive: true, force: true })
    rmSync(memos, { recursive: true, force: true })
  }
}

/**
 * Variants: `cold`, a content no fluxlab checked before (FLUX_CACHE_DIR is a new empty directory: every check
 * runs); `memo`, the first read in this process of a content a read checked before (a later vitest worker, a
 * later run: only parsed, see src/cassette/verified.ts); `cached`, the same directory read again in this process;
 * `coldUsed`, `cold` and then every model cell handed out (each is checked against its chunks and frozen at its
 * first use, src/cassette/handout.ts: what a replay that serves every recorded call pays on top of the read).
 */
function timedLoads(dir, copies, cells, memos) {
  const aged = Date.now() + 2600
  if (plainParse(dir) !== cells) throw new Error('baseline parsed a different number of cells')
  while (Date.now() < aged) plainParse(dir) // warm-up of the baseline meanwhile
  const saved = process.env.FLUX_CACHE_DIR
  const memoDir = join(memos, 'kept')
  // Check once: readFixture accepts the generated fixture (validation and secret scan pass). Also its warm-up,
  // and what leaves the content checked in memoDir for the `memo` reads.
  process.env.FLUX_CACHE_DIR = memoDir
  const fx = readFixture(copies[3 * LOAD_REPS])
  if (fx.model.length + fx.tools.length !== cells) throw new Error(`readFixture returned ${fx.model.length + fx.tools.length} cells, wrote ${cells}`)
  if (!existsSync(memoDir)) throw new Error(`readFixture remembered no checked content in ${memoDir}`)
  const wall = { parse: [], cold: [], coldUsed: [], memo: [], cached: [] }
  // CPU time (user + system of this process) of the same samples: on a shared 2-core box, wall time also counts
  // the time another process held the core, which is what made the per-rep wall ratios spread 2×–6×.
  const cpu = { parse: [], cold: [], coldUsed: [], memo: [], cached: [] }
  const cpuMs = (u) => (u.user + u.system) / 1000
  try {
    for (let r = 0; r < LOAD_REPS; r++) {
      // Rotate which goes first.
      const steps = [['parse', 'cold', 'cached', 'memo', 'coldUsed'], ['cold', 'coldUsed', 'cached', 'memo', 'parse'], ['memo', 'parse', 'coldUsed', 'cold', 'cached']][r % 3]
      for (const s of steps) {
        process.env.FLUX_CACHE_DIR = s === 'cold' || s === 'coldUsed' ? join(memos, `${s}-${r}`) : memoDir
        const c0 = process.cpuUsage()
        const t0 = performance.now()
        if (s === 'parse') plainParse(dir)
        else if (s === 'coldUsed') for (const cell of readFixture(copies[2 * LOAD_REPS + r]).model) void cell.text
        else readFixture(copies[s === 'memo' ? LOAD_REPS + r : r])
        wall[s].push(performance.now() - t0)
        cpu[s].push(cpuMs(process.cpuUsage(c0)))
      }
    }
  } finally {
    if (saved === undefined) delete process.env.FLUX_CACHE_DIR
    else process.env.FLUX_CACHE_DIR = saved
  }
  return { wall, cpu, cells }
}

// ---------------------------------------------------------------- main

const started = performance.now()
const cpu = cpus()
console.log(`fluxlab bench · node ${process.version} · ${process.platform}-${process.arch} · ${cpu.length}× ${cpu[0]?.model?.trim() ?? 'cpu'}`)
console.log('Ratios compare across machines; absolute ms are this machine only.\n')

const perRound = ONLY.has('replay') ? await replayBench() : undefined
const replayDone = performance.now()
if (perRound) {
  const base = variants.mswRun.total
  const toolBase = variants.mswToolRun.total
  const rows = [
    ['msw, setupServer+listen+close per run (baseline)', base, base],
    ['msw, one server listening across runs', variants.mswLive.total, base],
    ['fluxlab scenario() + run()', variants.flux.total, base],
    ['fluxlab run() only (scenario opened)', variants.flux.run, base],
    ['fluxlab one scenario() reused, run() per run', variants.fluxReused.total, base],
    ['Polly.js replay, new Polly()+stop() per run *', variants.polly.total, base],
    ['nock.back replay, back()+nockDone() per run *', variants.nock.total, base],
    ['floor: fetch answered from memory, no interception', variants.floor.total, base],
    ['interceptors only, answering from memory ***', variants.interceptors.total, base],
    ['tool in-process: msw per run (its baseline) **', toolBase, toolBase],
    ['tool in-process: msw listening across runs', variants.mswToolLive.total, toolBase],
    ['tool on tape: fluxlab scenario() + run() **', variants.fluxTool.total, toolBase],
  ]
  console.log(`1. Replay: capital-agent (2 streamed chat completions + 1 HTTP tool, OpenAI SDK), per agent run`)
  console.log(`   ${N} runs per variant, warm-up discarded, ${ROUNDS} interleaved rounds of ${BLOCK}, each round in a random order (BENCH_SEED=${SEED})`)
  console.log(`   ${padEnd('variant', 50)} ${pad('median', 8)} ${pad('p95', 8)} ${pad('× base med', 11)} ${pad('× base p95', 11)}`)
  for (const [label, xs, b] of rows)
    console.log(`   ${padEnd(label, 50)} ${pad(ms(median(xs)), 8)} ${pad(ms(pct(xs, 95)), 8)} ${pad(ratio(median(xs) / median(b)), 11)} ${pad(ratio(pct(xs, 95) / pct(b, 95)), 11)}`)
  const live = median(variants.mswLive.total)
  const toolLive = median(variants.mswToolLive.total)
  const roundSpread = (v) => `${ratio(Math.min(...perRound.map((p) => p[v])))} … ${ratio(Math.max(...perRound.map((p) => p[v])))}`
  console.log(`   per-round median ratio to msw per run: fluxlab scenario()+run() ${roundSpread('flux')}, reused scenario ${roundSpread('fluxReused')}, msw listening ${roundSpread('mswLive')}, Polly.js ${roundSpread('polly')}, nock.back ${roundSpread('nock')}; tool on tape ${roundSpread('fluxTool')} (to its baseline)`)
  console.log('   * Polly.js (fetch adapter, fs persister) and nock.back (lockdown) replay cassettes they recorded themselves from a local')
  console.log('     server serving the fixture\'s bytes. Both store each response body whole: they lose the recorded chunk boundaries')
  console.log('     (a replayed stream arrives as one piece), which fluxlab and the msw baseline keep.')
  console.log('   ** the same agent with its tool as an in-process function (2 model calls, no HTTP tool call): the fluxlab row puts it on the')
  console.log("     tape with lab.tool('get_capital', fn) and replays a fixture recorded before timing; the msw rows call the function itself.")
  console.log('   *** the @mswjs/interceptors fetch and ClientRequest interceptors fluxlab applies, one listener answering from memory as the')
  console.log("     floor does (no matching, no fixture): what a replay through msw's interception pays before any work of its own.")
  console.log(`   / msw listening (median; per round): fluxlab scenario()+run() ${ratio(median(variants.flux.total) / live)} (${roundSpread('fluxLive')}), reused scenario ${ratio(median(variants.fluxReused.total) / live)} (${roundSpread('fluxReusedLive')}), tool on tape ${ratio(median(variants.fluxTool.total) / toolLive)} (${roundSpread('fluxToolLive')}, to msw listening with the tool in-process)`)
  const floor = median(variants.floor.total)
  console.log(
    `   / floor (no interception; median; per round): fluxlab scenario()+run() ${ratio(median(variants.flux.total) / floor)} (${roundSpread('fluxFloor')}), ` +
      `msw per run ${ratio(median(base) / floor)} (${roundSpread('mswFloor')}), interceptors only ${ratio(median(variants.interceptors.total) / floor)} (${roundSpread('interceptorsFloor')})`,
  )
  console.log(
    `   / interceptors only (median; per round): fluxlab scenario()+run() ${ratio(median(variants.flux.total) / median(variants.interceptors.total))} (${roundSpread('fluxInterceptors')})`,
  )
  console.log(`   opening the scenario is ${((100 * (median(variants.flux.total) - median(variants.flux.run))) / median(variants.flux.total)).toFixed(0)}% of a fluxlab run`)
  console.log('   (ms columns: milliseconds per run on this machine)\n')
}

if (ONLY.has('record')) {
  const rounds = Math.min(ROUNDS, RECORD_N)
  const { live, recorded, perRound } = await recordBench({ rounds, block: Math.ceil(RECORD_N / rounds), median })
  console.log(`2. Recording: time to first chunk (OpenAI SDK stream from a local SSE server: first chunk at once, the rest after 30 ms)`)
  console.log(`   ${live.length} calls per variant, ${rounds} interleaved rounds`)
  console.log(`   ${padEnd('variant', 50)} ${pad('p10', 8)} ${pad('p25', 8)} ${pad('median', 8)} ${pad('p95', 8)} ${pad('+ms p25', 8)} ${pad('+ms med', 8)}`)
  for (const [label, xs] of [['live, no fluxlab (baseline)', live], ['recording (scenario().run())', recorded]])
    console.log(`   ${padEnd(label, 50)} ${pad(ms(pct(xs, 10)), 8)} ${pad(ms(pct(xs, 25)), 8)} ${pad(ms(median(xs)), 8)} ${pad(ms(pct(xs, 95)), 8)} ${pad((pct(xs, 25) - pct(live, 25)).toFixed(2), 8)} ${pad((median(xs) - median(live)).toFixed(2), 8)}`)
  console.log(`   recording − live, per-round difference of medians: ${Math.min(...perRound).toFixed(2)} … ${Math.max(...perRound).toFixed(2)} ms\n`)
}
const recordDone = performance.now()

const dir = mkdtempSync(join(tmpdir(), 'fluxlab-bench-'))
if (ONLY.has('load')) try {
  const info = generateFixture(dir, EXAMPLE, CELLS)
  const { wall, cpu, cells } = loadBench(dir, info)
  const mb = info.bytes / 1e6
  const rows = [
    ['JSON.parse per line (baseline)', 'parse'],
    ['readFixture() first read, content never checked', 'cold'],
    ['  the same, then every model cell used', 'coldUsed'],
    ['readFixture() first read, content checked before', 'memo'],
    ['readFixture() again, unchanged (kept per process)', 'cached'],
  ]
  console.log(`3. Fixture load: ${cells.toLocaleString('en-US')} cells (${info.modelCells} model + ${info.toolCells} tool), ${mb.toFixed(1)} MB, median of ${LOAD_REPS}`)
  console.log(`   ${padEnd('reader', 50)} ${pad('wall ms', 8)} ${pad('MB/s', 8)} ${pad('× base', 8)} ${pad('CPU ms', 8)} ${pad('MB/s', 8)} ${pad('× base', 8)} ${pad('per rep × base (CPU)', 20)}`)
  for (const [label, s] of rows) {
    const w = median(wall[s])
    const c = median(cpu[s])
    const pairs = cpu[s].map((x, i) => x / cpu.parse[i])
    console.log(
      `   ${padEnd(label, 50)} ${pad(ms(w), 8)} ${pad((mb / (w / 1000)).toFixed(1), 8)} ${pad(ratio(w / median(wall.parse)), 8)} ${pad(ms(c), 8)} ${pad((mb / (c / 1000)).toFixed(1), 8)} ${pad(ratio(c / median(cpu.parse)), 8)} ${pad(s === 'parse' ? '' : `${ratio(Math.min(...pairs))} … ${ratio(Math.max(...pairs))}`, 20)}`,
    )
  }
  console.log('   "never checked": validation and the secret scan run over every line; "checked before": the same bytes passed them in an')
  console.log('   earlier read (another worker, an earlier run), so they are only parsed. Either way a model cell is checked against its')
  console.log('   chunks, and frozen, at its first use ("every model cell used": a replay that serves all of them) (bench/README.md)')
  // Memory of one load in a fresh process (the value held, after a GC): readFixture against JSON.parse per line.
  const rss = (how) => JSON.parse(execFileSync(process.execPath, ['--expose-gc', join(root, 'bench/fixture-rss.mjs'), dir, how], { encoding: 'utf8' }))
  for (const [label, how] of [['JSON.parse per line, values held', 'parse'], ['readFixture(), fixture held', 'read']]) {
    const r = rss(how)
    console.log(`   RSS ${padEnd(label, 34)} +${((r.after - r.before) / 1e6).toFixed(0)} MB held, peak ${(r.peak / 1e6).toFixed(0)} MB (${((r.peak - r.before) / 1e6 / mb).toFixed(2)}× the fixture above the process's start)`)
  }
  console.log('')
} finally {
  rmSync(dir, { recursive: true, force: true })
}
const loadDone = performance.now()

const spread = (xs, f = ratio) => `${f(Math.min(...xs))} … ${f(Math.max(...xs))}`
try {
  if (ONLY.has('setup')) {
    const { times, cpu, perRound, importMs, files } = await setupBench({ files: SETUP_FILES, rounds: SUITE_ROUNDS, imports: SETUP_IMPORTS, median })
    console.log(`4. Setup-file cost per test file: ${files} test files × 1 trivial test (no model call), whole \`vitest run --maxWorkers=1\` / \`jest --runInBand\`, ${SUITE_ROUNDS} interleaved rounds`)
    console.log(`   ${padEnd('project', 42)} ${pad('wall med', 9)} ${pad('+ms/file', 9)} ${pad('CPU med', 9)} ${pad('CPU min', 9)} ${pad('CPU max', 9)} ${pad('+CPU ms/file', 13)}`)
    const rows = [
      ['plain', [['vitest, no plugin (baseline)', 'plain'], ['vitest, an empty setup file in node_modules', 'empty'], ['vitest, fluxlab()', 'flux'], ["vitest, fluxlab({ scenarios: 'per-test' })", 'perTest']]],
      ['jestPlain', [['jest, no preset (baseline)', 'jestPlain'], ["jest, preset: 'fluxlab'", 'jestFlux'], ["jest, preset + scenarios: 'per-test'", 'jestPerTest']]],
    ]
    for (const [base, list] of rows)
      for (const [label, v] of list)
        console.log(
          `   ${padEnd(label, 42)} ${pad(ms(median(times[v])), 9)} ${pad(((median(times[v]) - median(times[base])) / files).toFixed(1), 9)} ${pad(ms(median(cpu[v])), 9)} ${pad(ms(Math.min(...cpu[v])), 9)} ${pad(ms(Math.max(...cpu[v])), 9)} ${pad(((median(cpu[v]) - median(cpu[base])) / files).toFixed(1), 13)}`,
        )
    console.log(`   vitest fluxlab() − no plugin, CPU ms per test file, per round: ${spread(perRound, (x) => x.toFixed(1))}`)
    console.log(`   the setup module alone, in a fresh node (the runner stubbed), CPU ms, median of ${importMs.vitest.length} processes (spread):`)
    for (const [label, v] of [
      ["fluxlab/vitest's setup, explicit", 'vitest'],
      ["fluxlab/vitest's setup, per-test", 'vitestPerTest'],
      ['fluxlab/jest (dist/jest.cjs), explicit', 'jest'],
      ['fluxlab/jest (dist/jest.cjs), per-test', 'jestPerTest'],
    ])
      console.log(`     ${padEnd(label, 40)} ${pad(ms(median(importMs[v])), 7)}  (${spread(importMs[v], ms)})`)
    console.log('   (each test file runs in a fresh worker or module registry, so it loads the setup file and all it imports again; CPU = user +')
    console.log('   system of the runner and its workers, which a loaded machine moves less than wall time; +ms/file includes the one-time')
    console.log('   plugin or preset load; the setup module is imported beside a stub vitest package, loaded first and untimed)\n')
  }
  if (ONLY.has('suite')) {
    const { results, shard } = await suiteBench({ shapes: SUITE_SHAPES, rounds: SUITE_ROUNDS, median })
    console.log(`5. Scale: whole \`vitest run\` (child process, default workers) of a generated suite, one OpenAI SDK chat completion per test, ${SUITE_ROUNDS} interleaved rounds`)
    console.log(`   ${padEnd('suite', 50)} ${pad('median', 8)} ${pad('min', 8)} ${pad('max', 8)} ${pad('× msw', 8)} ${pad('CPU×msw', 8)}`)
    for (const r of results) {
      const base = median(r.times.msw)
      const baseCpu = median(r.cpu.msw)
      for (const [label, v] of [[`${r.files} files × ${r.tests}, plain msw setup file (baseline)`, 'msw'], [`${r.files} files × ${r.tests}, fluxlab per-test replay`, 'flux']]) {
        const xs = r.times[v]
        console.log(`   ${padEnd(label, 50)} ${pad(ms(median(xs)), 8)} ${pad(ms(Math.min(...xs)), 8)} ${pad(ms(Math.max(...xs)), 8)} ${pad(ratio(median(xs) / base), 8)} ${pad(ratio(median(r.cpu[v]) / baseCpu), 8)}`)
      }
      console.log(`   ${padEnd(`  per-round fluxlab / msw (wall)`, 50)} ${spread(r.perRound)}`)
    }
    const same = (a, b) => a && b && a.scenarios === b.scenarios && a.replayed === b.replayed && a.recorded === b.recorded && a.failed === b.failed && a.hermetic === b.hermetic && a.live === b.live
    console.log(`   sharded (${shard.files} files × ${shard.tests}): --shard=1/2 and 2/2 --reporter=blob, then --merge-reports`)
    console.log(`     unsharded: ${shard.whole?.line}`)
    shard.shards.forEach((s, i) => console.log(`     shard ${i + 1}/2:  ${s?.line}`))
    console.log(`     merged:    ${shard.merged?.line}   (${shard.mergedTests})`)
    console.log(`     the merged summary ${same(shard.whole, shard.merged) ? 'is whole: its counts equal the unsharded run' : 'is NOT whole: its counts differ from the unsharded run'}\n`)
  }
  if (ONLY.has('browser')) {
    const b = await playwrightBench({ rounds: BROWSER_ROUNDS, median })
    console.log(`6. A browser suite: examples/chat-app's Playwright suite (5 tests, 2 workers, headless Chromium), whole \`playwright test\` runs, ${BROWSER_ROUNDS} interleaved rounds`)
    console.log(`   ${padEnd('suite', 44)} ${pad('median', 8)} ${pad('min', 8)} ${pad('max', 8)} ${pad('× msw', 8)} ${pad('CPU×msw', 8)}`)
    for (const [label, v] of BROWSER_ROWS) {
      const xs = b.times[v]
      console.log(`   ${padEnd(label, 44)} ${pad(ms(median(xs)), 8)} ${pad(ms(Math.min(...xs)), 8)} ${pad(ms(Math.max(...xs)), 8)} ${pad(ratio(median(xs) / median(b.times.msw)), 8)} ${pad(ratio(median(b.cpu[v]) / median(b.cpu.msw)), 8)}`)
    }
    console.log(`   ${padEnd('  per-round fluxlab / msw (wall)', 44)} ${spread(b.perRound)}`)
    console.log(`   ${padEnd('  per-round fluxlab / msw-ready (wall)', 44)} ${spread(b.perRoundReady)}   median ${ratio(b.ratioReady)}, CPU ${ratio(b.cpuRatioReady)}\n`)
  }
} finally {
  removeInstall()
}
const sec = (a, b) => ((b - a) / 1000).toFixed(1)
console.log(`\nbench took ${sec(started, performance.now())} s (replay ${sec(started, replayDone)} s, recording ${sec(replayDone, recordDone)} s, fixture generation + load ${sec(recordDone, loadDone)} s, setup + suite ${sec(loadDone, performance.now())} s)`)

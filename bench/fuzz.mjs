// Fixture fuzz bench (issue 13): seeded mutations of the committed capital-agent fixture.
//   node bench/fuzz.mjs [--n 100000] [--replay 400] [--seed 13]
// Phase 1 loads every mutant with readFixture() and counts exceptions that are not a FluxError, per class.
// Phase 2 replays loadable mutants through a real OpenAI-SDK agent (offline, from the tape) and counts
//   - crashes: an exception that is not a FluxError thrown from fluxlab's own code,
//   - silent wrong answers: no failure-level divergence, yet the bytes served differ from what the mutant's
//     cells say (strictly decoded), or the outcome's text/usage differ from what the agent was served.
// Imports the built package (`npm run build && node scripts/link-self.mjs` first). Writes only under os.tmpdir().
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import OpenAI from 'openai'
import { isFluxError, readFixture, scenario } from 'fluxlab'
import { CLASSES, mutateFixture, prng } from './mutate.mjs'

const { values } = parseArgs({ options: { n: { type: 'string', default: '100000' }, replay: { type: 'string', default: '400' }, seed: { type: 'string', default: '13' } } })
const N = Number(values.n)
const REPLAY = Number(values.replay)
const SEED = Number(values.seed)

const SOURCE = new URL('../examples/scenarios/capital-agent/', import.meta.url)
const files = Object.fromEntries(readdirSync(SOURCE).map((f) => [f, readFileSync(new URL(f, SOURCE), 'utf8')]))
const root = mkdtempSync(join(tmpdir(), 'fluxlab-fuzz-'))
const NAME = 'capital-agent'
const dir = join(root, NAME)

process.env.FLUX_OFFLINE = '1'
process.env.CI = '1'
console.warn = () => {}
console.error = () => {}

function writeMutant(m) {
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  for (const [f, text] of Object.entries(m)) writeFileSync(join(dir, f), text)
}

/** Exceptions thrown by fluxlab's own code (the first stack frame is in its dist/ or src/). */
const ours = (e) => /\n\s+at [^\n]*\/(dist|src)\/[^\n]*\n?/.test(String(e?.stack ?? '').split('\n').slice(0, 2).join('\n') + '\n')

// ---- phase 1: load ------------------------------------------------------------------------------------
const rand = prng(SEED)
const perClass = Object.fromEntries(CLASSES.map((c) => [c, { n: 0, crashes: 0, rejected: 0, loaded: 0 }]))
const crashKinds = new Map()
const loadable = []
const t0 = performance.now()
for (let i = 0; i < N; i++) {
  const { files: m, cls } = mutateFixture(files, rand)
  const row = perClass[cls]
  row.n++
  writeMutant(m)
  try {
    readFixture(dir, { rerun: false })
    row.loaded++
    if (loadable.length < REPLAY * 4) loadable.push({ m, cls })
  } catch (e) {
    if (isFluxError(e)) row.rejected++
    else {
      row.crashes++
      const kind = `${e?.name}: ${String(e?.message).slice(0, 70)}`
      crashKinds.set(kind, (crashKinds.get(kind) ?? 0) + 1)
    }
  }
}
const loadSeconds = (performance.now() - t0) / 1000
console.log(`phase 1: ${N} mutations loaded with readFixture() in ${loadSeconds.toFixed(1)} s (seed ${SEED})`)
console.log('class      mutants  crashes  rejected  loaded')
for (const c of CLASSES) {
  const r = perClass[c]
  console.log(`${c.padEnd(10)} ${String(r.n).padStart(7)}  ${String(r.crashes).padStart(7)}  ${String(r.rejected).padStart(8)}  ${String(r.loaded).padStart(6)}`)
}
const totalCrashes = CLASSES.reduce((s, c) => s + perClass[c].crashes, 0)
console.log(`crashes: ${totalCrashes}`)
for (const [k, n] of [...crashKinds].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(`  ${n} × ${k}`)

// ---- phase 2: replay ----------------------------------------------------------------------------------
const strict = new TextDecoder('utf-8', { fatal: true })
/** The bytes a stored chunk stands for, or undefined when it stands for none (what a reader must reject). */
function chunkBytes(c) {
  if (!c || typeof c !== 'object' || typeof c.t !== 'number') return undefined
  if (typeof c.text === 'string' && c.b64 === undefined) return c.text.isWellFormed() ? Buffer.from(c.text, 'utf8') : undefined
  if (typeof c.b64 === 'string' && c.text === undefined) {
    const b = Buffer.from(c.b64, 'base64')
    return b.toString('base64') === c.b64 ? b : undefined
  }
  return undefined
}
function cellBodies(jsonl) {
  const out = []
  for (const line of String(jsonl ?? '').split('\n')) {
    if (!line.trim()) continue
    try {
      const cell = JSON.parse(line)
      const parts = (cell?.response?.chunks ?? []).map(chunkBytes)
      out.push(parts.every(Boolean) ? Buffer.concat(parts).toString('latin1') : '\u0000invalid')
    } catch {
      out.push('\u0000invalid')
    }
  }
  return out
}
function usageOf(sse) {
  let input = 0
  let output = 0
  for (const line of sse.split('\n')) {
    if (!line.startsWith('data: {')) continue
    try {
      const u = JSON.parse(line.slice(6)).usage
      if (u) (input += u.prompt_tokens ?? 0), (output += u.completion_tokens ?? 0)
    } catch {}
  }
  return { input, output }
}

const tools = [{ type: 'function', function: { name: 'get_capital', description: '', parameters: { type: 'object', properties: { country: { type: 'string' } }, required: ['country'], additionalProperties: false }, strict: true } }]
/** bench/agent.mjs's capital agent, with every body it is served kept (model and tool channel). */
async function agent(served) {
  const keep = (channel) => async (url, init) => {
    const res = await globalThis.fetch(url, init)
    try {
      served.push({ channel, body: Buffer.from(await res.clone().arrayBuffer()).toString('latin1') })
    } catch {
      served.push({ channel, body: '\u0000errored' })
    }
    return res
  }
  const client = new OpenAI({ apiKey: 'bench-placeholder', baseURL: 'https://api.openai.com/v1', maxRetries: 0, fetch: keep('model') })
  const messages = [{ role: 'user', content: 'What is the capital of the UK? Use the tool, then answer.' }]
  for (let step = 1; step <= 5; step++) {
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools, tool_choice: 'auto', stream: true, stream_options: { include_usage: true } })
    let text = ''
    const calls = []
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta
      if (delta?.content) text += delta.content
      for (const tc of delta?.tool_calls ?? []) {
        calls[tc.index] ??= { id: '', name: '', args: '' }
        if (tc.id) calls[tc.index].id = tc.id
        if (tc.function?.name) calls[tc.index].name = tc.function.name
        if (tc.function?.arguments) calls[tc.index].args += tc.function.arguments
      }
    }
    if (calls.length === 0) return text
    messages.push({ role: 'assistant', content: text || null, tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } })) })
    for (const call of calls) {
      const { country } = JSON.parse(call.args)
      const res = await keep('tool')(`http://127.0.0.1:4010/capital?country=${encodeURIComponent(country)}`)
      messages.push({ role: 'tool', tool_call_id: call.id, content: (await res.json()).capital })
    }
  }
  throw new Error('the agent did not finish in 5 steps')
}

const replayRows = { replayed: 0, crashes: 0, silent: 0, rejected: 0, faithful: 0, agentFailed: 0 }
const replayCrashes = new Map()
const silentKinds = new Map()
const t1 = performance.now()
const step = Math.max(1, Math.floor(loadable.length / REPLAY))
for (let i = 0; i < loadable.length && replayRows.replayed < REPLAY; i += step) {
  const { m } = loadable[i]
  replayRows.replayed++
  writeMutant(m)
  const served = []
  let out
  let answer
  try {
    const s = await scenario(NAME, { dir: root })
    out = await s.run(async () => (answer = await agent(served)))
  } catch (e) {
    if (isFluxError(e)) replayRows.rejected++
    else if (ours(e)) {
      replayRows.crashes++
      const kind = `${e?.name}: ${String(e?.message).slice(0, 70)}`
      replayCrashes.set(kind, (replayCrashes.get(kind) ?? 0) + 1)
    } else replayRows.agentFailed++
    continue
  }
  if (out.divergences.some((d) => d.severity === 'failure')) {
    replayRows.rejected++
    continue
  }
  const expected = { model: cellBodies(m['model.jsonl']), tool: cellBodies(m['tools.jsonl']) }
  const wrong = []
  for (const s of served) {
    const at = expected[s.channel].indexOf(s.body)
    if (at < 0) wrong.push(`${s.channel} body not in the fixture`)
    else expected[s.channel].splice(at, 1)
  }
  if (out.text !== answer) wrong.push('outcome text differs from the answer served')
  const u = served.filter((s) => s.channel === 'model').reduce((a, s) => {
    const x = usageOf(s.body)
    return { input: a.input + x.input, output: a.output + x.output }
  }, { input: 0, output: 0 })
  if (out.usage.input !== u.input || out.usage.output !== u.output) wrong.push('outcome usage differs from the usage served')
  if (wrong.length) {
    replayRows.silent++
    for (const w of wrong) silentKinds.set(w, (silentKinds.get(w) ?? 0) + 1)
  } else replayRows.faithful++
}
console.log(`\nphase 2: ${replayRows.replayed} loadable mutants replayed through the OpenAI SDK agent in ${((performance.now() - t1) / 1000).toFixed(1)} s`)
console.log(`  crashes (not a FluxError, thrown by fluxlab): ${replayRows.crashes}`)
for (const [k, n] of replayCrashes) console.log(`    ${n} × ${k}`)
console.log(`  silent wrong answers (no failure, served or reported something the fixture does not say): ${replayRows.silent}`)
for (const [k, n] of silentKinds) console.log(`    ${n} × ${k}`)
console.log(`  rejected (FluxError or failure divergence): ${replayRows.rejected}`)
console.log(`  agent failed on the served bytes: ${replayRows.agentFailed}`)
console.log(`  served faithfully: ${replayRows.faithful}`)
rmSync(root, { recursive: true, force: true })

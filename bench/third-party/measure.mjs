/**
 * Record a suite nobody wrote for fluxlab against the emulator, replay it offline, and compare
 * every test's result between the two runs.
 *
 *   node bench/third-party/measure.mjs <project dir> <test file>…
 *
 * The project must already be adopted (fluxlab installed, its config lines added). Recording:
 * real-looking provider keys, the vendor hosts mapped to the emulator with FLUX_UPSTREAM, and any
 * fixtures from an earlier run removed. Replay: the keys unset, the emulator down, CI=1. Prints the
 * counts of both runs, how many tests had the same result, and each test whose result changed.
 */
import { spawn } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { startEmulator } from './emulator.mjs'

const [dir, ...files] = process.argv.slice(2)
if (!dir || files.length === 0) {
  console.error('usage: node bench/third-party/measure.mjs <project dir> <test file>…')
  process.exit(2)
}

// Shaped like real keys, valid for nothing.
const KEYS = {
  OPENAI_API_KEY: 'sk-proj-Q7fK2mX9vLp4Rt8WzN3bYc6HjD1sA5eG0uTi',
  ANTHROPIC_API_KEY: 'sk-ant-api03-Hk4Lm9Np2Qr7St1Uv6Wx3Yz8Ab5Cd0Ef-Gh2IjKlMnOpQrStUvWxYzAbCdEfAA',
  GOOGLE_API_KEY: 'AIzaSyD4fK9mX2vLp7Rt1WzN6bYc3HjQ8sA0eG5u',
  GEMINI_API_KEY: 'AIzaSyD4fK9mX2vLp7Rt1WzN6bYc3HjQ8sA0eG5u',
}
const HOSTS = ['api.openai.com', 'api.anthropic.com', 'generativelanguage.googleapis.com']

// Not spawnSync: the emulator answers from this process's event loop.
async function vitest(out, env) {
  const started = Date.now()
  const child = spawn('npx', ['vitest', 'run', ...files, '--reporter=default', '--reporter=json', `--outputFile.json=${out}`], { cwd: dir, env })
  let output = ''
  child.stdout.on('data', (d) => (output += d))
  child.stderr.on('data', (d) => (output += d))
  await new Promise((resolve) => child.on('close', resolve))
  const summary = output.split('\n').find((l) => l.includes('fluxlab') && l.includes('scenarios:'))
  return { results: results(out), summary: summary?.replace(/\x1b\[[0-9;]*m/g, '').trim(), seconds: (Date.now() - started) / 1000 }
}

function results(file) {
  const m = new Map()
  for (const f of JSON.parse(readFileSync(file, 'utf8')).testResults) {
    for (const a of f.assertionResults) m.set(`${f.name.slice(dir.length + 1)} > ${a.fullName}`, { status: a.status, message: (a.failureMessages ?? []).join('\n').replace(/\x1b\[[0-9;]*m/g, '') })
  }
  return m
}

const counts = (m) => Object.fromEntries(['passed', 'failed', 'skipped', 'pending'].map((s) => [s, [...m.values()].filter((v) => v.status === s).length]).filter(([, n]) => n > 0))
const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !(k in KEYS) && k !== 'CI' && !k.startsWith('FLUX_')))

rmSync(join(dir, 'tests/scenarios'), { recursive: true, force: true })
const emulator = await startEmulator(Number(process.env.EMULATOR_PORT ?? 0))
const upstream = HOSTS.map((h) => `${h}=${emulator.url}`).join(',')
// Variables naming a local server's URL (a suite's LM Studio or Ollama host): set to the emulator in both runs,
// like a project's own config, so replay sees the same URL with nothing listening there.
const urls = Object.fromEntries((process.env.MEASURE_URL_VARS ?? '').split(',').filter(Boolean).map((v) => [v, emulator.url]))
const record = await vitest('/tmp/flux-measure-record.json', { ...base, ...urls, ...KEYS, FLUX_UPSTREAM: upstream })
const requests = emulator.requests()
await emulator.close()
const replay = await vitest('/tmp/flux-measure-replay.json', { ...base, ...urls, CI: '1' })

let same = 0
const changed = []
for (const [name, r] of record.results) {
  const p = replay.results.get(name)
  if (p?.status === r.status) same++
  else changed.push({ name, record: r.status, replay: p?.status ?? 'missing', why: (p?.message || r.message).split('\n')[0].slice(0, 240) })
}
console.log(`record: ${JSON.stringify(counts(record.results))} in ${record.seconds}s, ${requests} emulator requests\n  ${record.summary}`)
console.log(`replay: ${JSON.stringify(counts(replay.results))} in ${replay.seconds}s\n  ${replay.summary}`)
console.log(`same result: ${same} of ${record.results.size}`)
for (const c of changed) console.log(`  changed: ${c.name}: ${c.record} -> ${c.replay}\n    ${c.why}`)
process.exit(changed.length === 0 ? 0 : 1)

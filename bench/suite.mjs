// Sections `setup` and `suite` of the bench: whole `vitest run`s of generated projects (bench/suite-project.mjs),
// each in a child process, timed from spawn to exit. See bench/README.md.
import { execFileSync } from 'node:child_process'
import { readdirSync, rmSync, statSync, utimesSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { modelServer, removeInstall, runJest, runVitest, stubVitestInstall, writeJestProject, writeProject } from './suite-project.mjs'

const here = fileURLToPath(new URL('.', import.meta.url))
const KEY = 'sk-benchrecord00000000000000000000000000'

/** Rotate `order` by `r` (no variant always runs first, or right after another's GC-heavy work). */
const rotate = (order, r) => order.map((_, i) => order[(i + r) % order.length])

async function mustRun(dir, args, env, who, run = runVitest) {
  const r = await run(dir, args, env)
  if (r.code !== 0) throw new Error(`${who}: ${run === runJest ? 'jest' : 'vitest run'} exited ${r.code}\n${r.output.slice(-3000)}`)
  return r
}

/** The fluxlab summary line of a run's output, as counts. */
export function summaryOf(output) {
  const line = output.split('\n').find((l) => /fluxlab\s+\d+ scenarios:/.test(l))
  if (!line) return undefined
  const n = (re) => Number(line.match(re)?.[1])
  return {
    line: line.trim(),
    scenarios: n(/(\d+) scenarios:/),
    replayed: n(/(\d+) replayed/),
    recorded: n(/(\d+) recorded/),
    failed: n(/(\d+) failed/),
    hermetic: line.match(/hermetic (\d+\/\d+)/)?.[1],
    live: n(/live model calls (\d+)/),
  }
}
const testsLine = (output) => output.split('\n').find((l) => /^\s*Tests\s+\d+/.test(l))?.trim()

/** Set every file under `dir` back an hour: fixtures checked out long before the run, as committed ones are. */
function age(dir) {
  const old = new Date(Date.now() - 3600_000)
  for (const name of readdirSync(dir)) {
    const full = join(dir, name)
    if (statSync(full).isDirectory()) age(full)
    utimesSync(full, old, old)
  }
}

/**
 * Setup-file cost: projects of `files` test files with one trivial test each (no model call), run with
 * `--maxWorkers=1` so the per-file cost adds up serially: without fluxlab, with `fluxlab()`, and with
 * `fluxlab({ scenarios: 'per-test' })`; and the same three for jest (`--runInBand`; no preset, `preset: 'fluxlab'`,
 * and the preset with whole-suite mode). Per test file = (fluxlab − plain) / files. Plus the import of each
 * setup module in a fresh node (the runner stubbed), in both modes, median of `imports` processes.
 */
export async function setupBench({ files, rounds, imports, median }) {
  const dirs = {
    plain: writeProject({ kind: 'plain', files, tests: 1, port: 9, model: false }),
    empty: writeProject({ kind: 'empty', files, tests: 1, port: 9, model: false }),
    flux: writeProject({ kind: 'flux', files, tests: 1, port: 9, model: false, scenarios: 'explicit' }),
    perTest: writeProject({ kind: 'flux', files, tests: 1, port: 9, model: false }),
    jestPlain: writeJestProject({ files, flux: false }),
    jestFlux: writeJestProject({ files, flux: true }),
    jestPerTest: writeJestProject({ files, flux: true, scenarios: 'per-test' }),
  }
  // vitest with one worker; jest in band (one process, each test file still in its own module registry).
  const how = (v) => (v.startsWith('jest') ? { args: ['--runInBand'], run: runJest } : { args: ['--maxWorkers=1'], run: runVitest })
  const times = Object.fromEntries(Object.keys(dirs).map((v) => [v, []]))
  const cpu = Object.fromEntries(Object.keys(dirs).map((v) => [v, []]))
  const perRound = []
  try {
    for (const v of Object.keys(dirs)) await mustRun(dirs[v], how(v).args, {}, `setup ${v} (warm-up)`, how(v).run)
    for (let r = 0; r < rounds; r++) {
      const got = {}
      for (const v of rotate(Object.keys(dirs), r)) {
        const res = await mustRun(dirs[v], how(v).args, {}, `setup ${v}`, how(v).run)
        got[v] = res.cpu
        times[v].push(res.ms)
        cpu[v].push(res.cpu)
      }
      perRound.push((got.flux - got.plain) / files)
    }
    const importMs = { vitest: [], vitestPerTest: [], jest: [], jestPerTest: [] }
    const dist = join(dirs.flux, 'node_modules/fluxlab/dist')
    const stub = stubVitestInstall()
    const sample = (argv, env = {}) => Number(execFileSync(process.execPath, argv, { encoding: 'utf8', env: { ...process.env, FLUX_SCENARIOS: '', ...env } }).trim() || NaN)
    for (let i = 0; i < imports; i++) {
      const vitestArgs = [join(here, 'setup-import.mjs'), join(stub.dist, 'vitest-setup.js'), stub.vitest]
      importMs.vitest.push(sample(vitestArgs))
      importMs.vitestPerTest.push(sample(vitestArgs, { FLUX_SCENARIOS: 'per-test' }))
      importMs.jest.push(sample([join(here, 'jest-setup-import.cjs'), join(dist, 'jest.cjs')]))
      importMs.jestPerTest.push(sample([join(here, 'jest-setup-import.cjs'), join(dist, 'jest.cjs')], { FLUX_SCENARIOS: 'per-test' }))
    }
    return { times, cpu, perRound, importMs, files }
  } finally {
    for (const d of Object.values(dirs)) rmSync(d, { recursive: true, force: true })
  }
}

/**
 * Scale: each shape ([files, tests per file]) as a fluxlab project (`scenarios: 'per-test'`, replaying fixtures it
 * recorded once from a local server, then aged like committed ones) and as a plain-msw project (setupServer in a
 * setup file answering the same bytes). `rounds` interleaved rounds of one whole `vitest run` of each.
 * Then a sharded run of the first shape: `--shard=1/2` and `2/2` with `--reporter=blob`, then `--merge-reports`,
 * and the fluxlab summaries compared with the unsharded run's.
 */
export async function suiteBench({ shapes, rounds, median }) {
  const server = await modelServer()
  const port = server.address().port
  const made = []
  const results = []
  try {
    const projects = []
    for (const [files, tests] of shapes) {
      const flux = writeProject({ kind: 'flux', files, tests, port, model: true })
      const msw = writeProject({ kind: 'msw', files, tests, port, model: true })
      made.push(flux, msw)
      const rec = await mustRun(flux, [], { OPENAI_API_KEY: KEY, FLUX_OFFLINE: '' }, `record ${files}×${tests}`)
      const s = summaryOf(rec.output)
      if (s?.recorded !== files * tests) throw new Error(`record ${files}×${tests}: expected ${files * tests} recorded, got ${s?.line}`)
      age(join(flux, 'tests/scenarios'))
      projects.push({ files, tests, flux, msw })
    }
    server.close()
    const replayEnv = { FLUX_OFFLINE: '1', OPENAI_API_KEY: '' }
    const mswEnv = { OPENAI_API_KEY: 'sk-msw-placeholder' }
    for (const p of projects) {
      const times = { flux: [], msw: [] }
      const cpu = { flux: [], msw: [] }
      const perRound = []
      let summary
      // Warm-up of the msw project (disk cache), discarded; the recording run was the fluxlab project's.
      await mustRun(p.msw, [], mswEnv, 'suite msw (warm-up)')
      for (let r = 0; r < rounds; r++) {
        const got = {}
        for (const v of rotate(['flux', 'msw'], r)) {
          const res = await mustRun(p[v], [], v === 'flux' ? replayEnv : mswEnv, `suite ${v} ${p.files}×${p.tests}`)
          got[v] = res.ms
          times[v].push(res.ms)
          cpu[v].push(res.cpu)
          if (v === 'flux') {
            summary = summaryOf(res.output)
            if (summary?.replayed !== p.files * p.tests || summary.hermetic !== `${p.files * p.tests}/${p.files * p.tests}`)
              throw new Error(`suite flux ${p.files}×${p.tests}: not every test replayed hermetically: ${summary?.line}`)
          }
        }
        perRound.push(got.flux / got.msw)
      }
      results.push({ ...p, times, cpu, perRound, summary })
    }
    const p = projects[0]
    const whole = results[0].summary
    const shards = []
    for (const s of ['1/2', '2/2']) shards.push(summaryOf((await mustRun(p.flux, [`--shard=${s}`, '--reporter=blob'], replayEnv, `shard ${s}`)).output))
    const merged = await mustRun(p.flux, ['--merge-reports'], replayEnv, 'merge-reports')
    rmSync(join(p.flux, '.vitest-reports'), { recursive: true, force: true })
    const shard = { whole, shards, merged: summaryOf(merged.output), mergedTests: testsLine(merged.output), files: p.files, tests: p.tests }
    return { results, shard }
  } finally {
    server.close()
    for (const d of made) rmSync(d, { recursive: true, force: true })
  }
}

export { removeInstall }

/**
 * Does adopting fluxlab keep a suite's verdict? Runs a suite nobody wrote for fluxlab three ways and
 * compares every test's status (issue 24).
 *
 *   node bench/third-party/verdict.mjs <project dir> [--runner vitest|jest|playwright] [--config <file>]
 *        [--keys OPENAI_API_KEY,ANTHROPIC_API_KEY] [--hosts api.openai.com,api.anthropic.com] [--timeout <seconds>]
 *        [--json out.json] [--env K=V,…] [--node-options '<flags>'] [--replay-keys A,B] [-- <runner args>…]
 *
 * fluxlab must be installed in the project. The project's own config file is left alone; the harness
 * writes next to it a config that is the project's plus fluxlab's adoption lines and nothing else:
 *   vitest: mergeConfig(<project config>, { plugins: [fluxlab({ scenarios: 'per-test' })] })
 *   jest:   withFluxlab(require(<project config>), { scenarios: 'per-test' })
 *   playwright: docs/playwright.md's two edits: every `webServer` entry through `withFluxlab`, fluxlab's summary
 *       reporter, and the specs' `@playwright/test` import line swapped for `fluxlab/playwright` in a scratch copy of
 *       the test folder (see playwrightCopy below). Every run of a Playwright suite (A included) goes through a config
 *       the harness writes, with the Chromium of fluxlab's devDependency `@sparticuz/chromium` (no browser can be
 *       downloaded here) and the JSON reporter.
 *
 * Runs (every one with net-guard.cjs preloaded: no connection leaves 127.0.0.0/8, each refusal counted):
 *   A   the project's own config (no fluxlab), the 2 keys set, the vendor hosts rewritten onto the emulator
 *       beneath the SDKs (net-guard's VERDICT_REDIRECT: fluxlab's FLUX_UPSTREAM needs fluxlab).
 *   B   the adopted config, recording: the same keys, FLUX_UPSTREAM sending the hosts to the emulator,
 *       the fixture dir emptied first.
 *   C   the adopted config, replay: every key variable unset, CI=1, the emulator stopped.
 *   Co  as C with FLUX_OFFLINE=1.
 *   C'  as Co with the emulator up again and the vendor hosts rewritten onto it beneath fluxlab: its hit
 *       counter is the number of requests fluxlab let out to a vendor.
 * Prints per run the runner's counts, fluxlab's summary line and what it says, fixtures written, and
 * for A-vs-B and A-vs-each-C the tests whose status changed, with the first line of their error.
 */
import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startEmulator } from './emulator.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const argv = process.argv.slice(2)
const dashes = argv.indexOf('--')
const own = dashes === -1 ? argv : argv.slice(0, dashes)
const extra = dashes === -1 ? [] : argv.slice(dashes + 1)
const flag = (name, fallback) => { const i = own.indexOf(`--${name}`); return i === -1 ? fallback : own[i + 1] }
const dir = own[0] && !own[0].startsWith('--') ? resolve(own[0]) : undefined
if (!dir) {
  console.error('usage: node bench/third-party/verdict.mjs <project dir> [--runner vitest|jest|playwright] [--config file] [--keys A,B] [--hosts h1,h2] [--timeout s] [--json out] [--env K=V,…] [--node-options flags] [-- runner args]')
  process.exit(2)
}
const runner = flag('runner', existsSync(join(dir, 'node_modules/.bin/vitest')) ? 'vitest' : 'jest')
if (!['vitest', 'jest', 'playwright'].includes(runner)) { console.error(`--runner ${runner}: one of vitest, jest, playwright`); process.exit(2) }
const configFile = flag('config', readdirSync(dir).find((f) => new RegExp(`^${runner}\\.config\\.(c|m)?(t|j)s$`).test(f)))
if (!configFile) { console.error(`no ${runner} config in ${dir}: pass --config`); process.exit(2) }
const keyNames = flag('keys', 'OPENAI_API_KEY,ANTHROPIC_API_KEY').split(',')
const hosts = flag('hosts', 'api.openai.com,api.anthropic.com,generativelanguage.googleapis.com').split(',')
const scenarioDir = join(dir, flag('dir', 'tests/scenarios'))
const tmp = flag('tmp', '/tmp/flux-verdict')
// jest + `preset: 'ts-jest'`: withFluxlab puts a babel-jest transform ahead of the preset's ts-jest one (see README); this
// flag adds one more config line naming the ts-jest transform, the workaround measured beside the documented adoption.
const tsJestLine = own.includes('--ts-jest-transform')
// --timeout <seconds>: a run still going after that long is killed (its whole process group) and reported as hung.
const timeoutSeconds = Number(flag('timeout', 0))
// --env K=V,…: plain settings a suite needs in every run (e.g. an opt-in switch), never a key (keys are unset in C).
const extraEnv = Object.fromEntries((flag('env', '') ?? '').split(',').filter(Boolean).map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]))
// --node-options '<flags>': added after the guard's --require in every run (e.g. jest's --experimental-vm-modules).
const nodeOptions = flag('node-options', '')

// Shaped like real keys, valid for nothing; built here so no key-shaped literal sits in the repo.
const body = (n) => 'Q7fK2mX9vLp4Rt8WzN3bYc6HjD1sA5eG0uTi'.repeat(4).slice(0, n)
const hex = (n) => '3f9a1c7e5b2d8046'.repeat(5).slice(0, n)
const SHAPES = {
  OPENAI_API_KEY: `sk-${'proj'}-${body(36)}`,
  ANTHROPIC_API_KEY: `sk-${'ant'}-api03-${body(80)}AA`,
  GEMINI_API_KEY: `AI${'za'}Sy${body(33)}`,
  GOOGLE_API_KEY: `AI${'za'}Sy${body(33)}`,
  OPENROUTER_API_KEY: `sk-${'or'}-v1-${hex(64)}`,
}
const KEYS = Object.fromEntries(keyNames.map((k) => [k, SHAPES[k] ?? `sk-${body(40)}`]))
// --replay-keys A,B: not the measure, a look past it. These keys keep the fake value in the C runs too, for a suite
// that checks a key where fluxlab does not reach (jest's globalSetup runs in the parent process, before any test file).
const replayKeys = Object.fromEntries(flag('replay-keys', '').split(',').filter(Boolean).map((k) => [k, SHAPES[k] ?? `sk-${body(40)}`]))
// Every variable that looks like a credential is unset in every run; A and B set back exactly the 2 keys.
const credential = (k) => /(_API_KEY|_TOKEN|_SECRET|_ACCESS_KEY|_KEY_ID|_CREDENTIALS|^HF_TOKEN|APPLICATION_CREDENTIALS)$/.test(k) || /^(AWS|AZURE|GOOGLE|VERTEX|ANTHROPIC|OPENAI|GEMINI)_/.test(k)
const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !credential(k) && k !== 'CI' && !k.startsWith('FLUX_') && k !== 'NODE_OPTIONS' && !k.startsWith('VERDICT_')))
base.NO_COLOR = '1'
base.NODE_OPTIONS = `--require ${join(here, 'net-guard.cjs')}${nodeOptions ? ` ${nodeOptions}` : ''}`
Object.assign(base, extraEnv)

// ─── the adopted config ─────────────────────────────────────────────────────
// A jest config that node loads as ESM (.mjs, or .js in a "type": "module" package) cannot be require()d: the
// adopted config is then an .mjs file importing it (fluxlab/jest-config is CommonJS: its default import).
const esmJest = runner === 'jest' && (/\.mjs$/.test(configFile) || (/\.js$/.test(configFile) && (() => { try { return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).type === 'module' } catch { return false } })()))
// A TypeScript jest config (jest loads it through ts-node): the adopted config is TypeScript too, importing it.
const tsJest = runner === 'jest' && /\.[cm]?ts$/.test(configFile)
const adopted = runner === 'vitest' ? `vitest.fluxlab.config.mts` : runner === 'playwright' ? 'playwright.fluxlab.config.ts' : tsJest ? 'jest.fluxlab.config.ts' : esmJest ? `jest.fluxlab.config.mjs` : `jest.fluxlab.config.cjs`
if (runner !== 'playwright') writeFileSync(join(dir, adopted), runner === 'vitest'
  ? // @note a callback config (`defineConfig((env) => …)`, e.g. one that picks its tests by `--mode`) is called with vitest's env
    // first; the config is imported with its extension, so a `.mts` one resolves too.
    `// written by fluxlab bench/third-party/verdict.mjs: the project's config plus fluxlab's adoption line\nimport { defineConfig, mergeConfig } from 'vitest/config'\nimport project from './${configFile}'\nimport { fluxlab } from 'fluxlab/vitest'\nexport default defineConfig(async (env) => mergeConfig(typeof project === 'function' ? await project(env) : await project, { plugins: [fluxlab({ scenarios: 'per-test' })] }))\n`
  : tsJest
    ? `// written by fluxlab bench/third-party/verdict.mjs: the project's config plus fluxlab's adoption line (docs/configuration.md)\nimport project from './${configFile.replace(/\.[cm]?ts$/, '')}'\nimport { withFluxlab } from 'fluxlab/jest-config'\nexport default withFluxlab(project, { scenarios: 'per-test' })\n`
  : esmJest
    ? `// written by fluxlab bench/third-party/verdict.mjs: the project's config plus fluxlab's adoption line\nimport project from './${configFile}'\nimport jestConfig from 'fluxlab/jest-config'\nexport default jestConfig.withFluxlab(project, { scenarios: 'per-test' })\n`
    : `// written by fluxlab bench/third-party/verdict.mjs: the project's config plus fluxlab's adoption line\nconst { withFluxlab } = require('fluxlab/jest-config')\n${tsJestLine
    ? `const project = require('./${configFile}')\n// --ts-jest-transform: the preset's ts-jest transform named in the config, so withFluxlab keeps it\nmodule.exports = withFluxlab({ ...project, transform: { '^.+\\\\.tsx?$': 'ts-jest', ...project.transform } }, { scenarios: 'per-test' })\n`
    : `module.exports = withFluxlab(require('./${configFile}'), { scenarios: 'per-test' })\n`}`)

// ─── Playwright ─────────────────────────────────────────────────────────────
// No browser can be downloaded here: every run launches the Chromium that fluxlab's devDependency `@sparticuz/chromium`
// ships inside its npm package, unpacked once into a temp dir (as test/cli/html-viewer.test.ts does), through a config
// the harness writes beside the project's (`use.launchOptions`, top level and per project). The browser gets no
// NODE_OPTIONS, so net-guard cannot see it: a host-resolver rule keeps it on loopback instead (refusals not counted).
const pwPlain = 'playwright.verdict.config.ts'
let pwCopy
let pwTestDir
let pwBrowserDir
if (runner === 'playwright') {
  const fluxRoot = resolve(here, '../..')
  const { default: pack } = await import(createRequire(join(fluxRoot, 'package.json')).resolve('@sparticuz/chromium'))
  const unpackTo = (pwBrowserDir = mkdtempSync(join(tmpdir(), 'verdict-chromium-')))
  const saved = process.env.TMPDIR
  process.env.TMPDIR = unpackTo
  base.VERDICT_CHROMIUM = await pack.executablePath()
  if (saved === undefined) delete process.env.TMPDIR
  else process.env.TMPDIR = saved
  // @note without --single-process, as examples/chat-app/tests/fixtures.ts: with it the browser dies when the first context closes.
  base.VERDICT_CHROMIUM_ARGS = JSON.stringify([...pack.args.filter((a) => a !== '--single-process'), '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1'])
  const config = (adoptedLines) => [
    `// written by fluxlab bench/third-party/verdict.mjs: the project's config, ${adoptedLines ? "plus fluxlab's documented adoption (docs/playwright.md), " : ''}with this machine's browser and the JSON reporter`,
    `import project from './${configFile.replace(/\.(c|m)?(t|j)s$/, '')}'`,
    ...(adoptedLines ? [`import { withFluxlab } from 'fluxlab/playwright'`] : []),
    `const launchOptions = { executablePath: process.env.VERDICT_CHROMIUM, args: JSON.parse(process.env.VERDICT_CHROMIUM_ARGS ?? '[]'), headless: true }`,
    `const browser = (use: any = {}) => ({ ...use, launchOptions: { ...use.launchOptions, ...launchOptions } })`,
    `const reporter: any = [['list'], ['json', { outputFile: process.env.VERDICT_PW_JSON }]${adoptedLines ? ", ['fluxlab/playwright-reporter']" : ''}]`,
    ...(adoptedLines ? [
      `const server = (s: any) => withFluxlab(s)`,
      `const webServer: any = project.webServer === undefined ? undefined : Array.isArray(project.webServer) ? project.webServer.map(server) : server(project.webServer)`,
    ] : []),
    `export default {`,
    `  ...project,`,
    `  reporter,`,
    `  use: browser(project.use),`,
    `  ...(project.projects ? { projects: project.projects.map((p: any) => ({ ...p, use: browser(p.use)${adoptedLines ? ', ...(p.testDir ? { testDir: p.testDir } : {})' : ''} })) } : {}),`,
    ...(adoptedLines ? [`  ...(webServer ? { webServer } : {}),`, `  testDir: ${JSON.stringify('__TESTDIR__')},`] : []),
    `}`,
    '',
  ].join('\n')
  writeFileSync(join(dir, pwPlain), config(false))
  // The project's test folder, as Playwright resolves it from the project's own config (`--list`).
  const listed = join(`${tmp}-${basename(dir)}-list.json`)
  await new Promise((r) => spawn('npx', ['playwright', 'test', '-c', pwPlain, '--list'], { cwd: dir, env: { ...base, VERDICT_PW_JSON: listed }, stdio: 'ignore' }).on('close', r))
  if (!existsSync(listed)) { console.error(`playwright --list with ${pwPlain} wrote no report: does the project's config load?`); process.exit(2) }
  const dirs = [...new Set(JSON.parse(readFileSync(listed, 'utf8')).config.projects.map((p) => p.testDir))]
  if (dirs.length !== 1 || resolve(dirs[0]) === dir) { console.error(`the harness copies one test folder below the config's (found ${dirs.join(', ')})`); process.exit(2) }
  pwTestDir = dirs[0]
  pwCopy = playwrightCopy(pwTestDir)
  writeFileSync(join(dir, adopted), config(true).replace('__TESTDIR__', `./${relative(dir, pwCopy)}`))
}

/**
 * docs/playwright.md's spec edit, the one line: a copy of the test folder beside it (same depth, so the specs' relative
 * imports still resolve), where in every .ts/.js file an import from '@playwright/test' whose names fluxlab/playwright
 * exports (`test`, `expect`, types) comes from 'fluxlab/playwright'. Any other import of it is kept and listed: the
 * project then needs more than the documented edit. The project's own files are never edited.
 */
function playwrightCopy(testDir) {
  const copy = `${testDir}-fluxlab`
  rmSync(copy, { recursive: true, force: true })
  cpSync(testDir, copy, { recursive: true, filter: (src) => !src.split(sep).includes('node_modules') && !src.startsWith(join(testDir, 'scenarios')) })
  const ours = new Set(['test', 'expect'])
  const swapped = []
  const kept = []
  const walk = (d) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e)
      if (statSync(p).isDirectory()) { walk(p); continue }
      if (!/\.(c|m)?(t|j)sx?$/.test(e)) continue
      const text = readFileSync(p, 'utf8')
      const next = text.replace(/^import\s+(type\s+)?\{([^}]*)\}\s+from\s+(['"])@playwright\/test\3;?[ \t]*$/gm, (line, allType, names) => {
        const plain = names.split(',').map((n) => n.trim()).filter(Boolean).filter((n) => !allType && !n.startsWith('type '))
        if (plain.every((n) => ours.has(n.split(/\s+as\s+/)[0]))) { swapped.push(relative(dir, p)); return line.replace(/@playwright\/test/, 'fluxlab/playwright') }
        kept.push(`${relative(dir, p)}: ${line.trim()}`)
        return line
      })
      if (next !== text) writeFileSync(p, next)
    }
  }
  walk(copy)
  console.log(`adopted specs: ${relative(dir, copy)}/ (a copy of ${relative(dir, testDir)}/), import line swapped in ${swapped.length} file(s)${kept.length ? `; kept (not fluxlab/playwright's names): ${kept.join('; ')}` : ''}`)
  return copy
}

// ─── one run ────────────────────────────────────────────────────────────────
async function run(label, config, env) {
  const out = join(`${tmp}-${basename(dir)}-${label}.json`)
  const netLog = join(`${tmp}-${basename(dir)}-${label}.net`)
  rmSync(out, { force: true })
  rmSync(netLog, { force: true })
  const args = runner === 'vitest'
    ? ['vitest', 'run', '--config', config, '--reporter=default', '--reporter=json', `--outputFile.json=${out}`, ...extra]
    : runner === 'playwright'
      ? ['playwright', 'test', '-c', config, ...extra]
      : ['jest', '--config', config, '--json', `--outputFile=${out}`, ...extra]
  const started = Date.now()
  const child = spawn('npx', args, { cwd: dir, env: { ...base, ...env, VERDICT_NET_LOG: netLog, VERDICT_PW_JSON: out }, detached: true })
  let output = ''
  child.stdout.on('data', (d) => (output += d))
  child.stderr.on('data', (d) => (output += d))
  let hung = false
  const timer = timeoutSeconds > 0 ? setTimeout(() => { hung = true; try { process.kill(-child.pid, 'SIGKILL') } catch {} }, timeoutSeconds * 1000) : undefined
  const code = await new Promise((r) => child.on('close', r))
  clearTimeout(timer)
  output = output.replace(/\x1b\[[0-9;]*m/g, '')
  writeFileSync(`${tmp}-${basename(dir)}-${label}.log`, output)
  const summary = output.split('\n').find((l) => /^\s*fluxlab\s+(\d+ scenarios?:|no scenarios ran)/.test(l))?.trim()
  const leaks = existsSync(netLog) ? readFileSync(netLog, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []
  if (hung) throw new Error(`${label}: HUNG, killed after ${timeoutSeconds}s; see ${tmp}-${basename(dir)}-${label}.log`)
  // A run that wrote no report (a globalSetup that threw, a config that did not load) ran no test: every test of A
  // is then `missing` in it, and the measure goes on with the other runs.
  if (!existsSync(out)) {
    const why = output.split('\n').find((l) => /Error|error/.test(l))?.trim().slice(0, 300) ?? ''
    console.log(`${label}: the runner wrote no JSON report (exit ${code}): ${why}\n   see ${tmp}-${basename(dir)}-${label}.log`)
    return { label, code, results: new Map(), summary, parsed: parseSummary(summary), leaks, seconds: (Date.now() - started) / 1000, noReport: why }
  }
  return { label, code, results: runner === 'playwright' ? playwrightResults(out) : results(out), summary, parsed: parseSummary(summary), leaks, seconds: (Date.now() - started) / 1000 }
}

const normal = (s) => (s === 'pending' || s === 'todo' || s === 'disabled' ? 'skipped' : s)
function results(file) {
  const m = new Map()
  for (const f of JSON.parse(readFileSync(file, 'utf8')).testResults) {
    const rel = relative(dir, f.name)
    if (f.assertionResults.length === 0 && f.status === 'failed') m.set(`${rel} > (file failed to load)`, { status: 'failed', message: f.message ?? '' })
    for (const a of f.assertionResults) {
      let name = `${rel} > ${a.fullName}`
      for (let i = 2; m.has(name); i++) name = `${rel} > ${a.fullName} #${i}`
      m.set(name, { status: normal(a.status), message: (a.failureMessages ?? []).join('\n') })
    }
  }
  return m
}
/**
 * Playwright's JSON report, one entry per test run as Playwright counts them: `<file> > <describe titles> > <title>`
 * (with `[project]` first when the config has several), the scratch copy's files named as the project's. A test's
 * outcome: `expected` is passed (skipped when its last result was skipped), `flaky` passed (it passed on a retry),
 * `unexpected` failed. Load errors of the run (a spec that does not compile) are one failed entry each.
 */
function playwrightResults(file) {
  const report = JSON.parse(readFileSync(file, 'utf8'))
  const m = new Map()
  const projects = new Set()
  const walkNames = (s) => { for (const sp of s.specs ?? []) for (const t of sp.tests) projects.add(t.projectName); for (const c of s.suites ?? []) walkNames(c) }
  for (const s of report.suites ?? []) walkNames(s)
  const rootDir = report.config.rootDir
  const own = (f) => { const abs = resolve(rootDir, f); return relative(dir, pwCopy && abs.startsWith(pwCopy + sep) ? join(pwTestDir, relative(pwCopy, abs)) : abs) }
  const walk = (s, titles) => {
    for (const sp of s.specs ?? []) {
      for (const t of sp.tests) {
        const last = t.results.at(-1)
        const status = t.status === 'unexpected' ? 'failed' : t.status === 'skipped' || last?.status === 'skipped' ? 'skipped' : 'passed'
        const full = [...titles, sp.title].join(' > ')
        let name = `${own(sp.file)} > ${projects.size > 1 ? `[${t.projectName}] ` : ''}${full}`
        for (let i = 2; m.has(name); i++) name = `${own(sp.file)} > ${projects.size > 1 ? `[${t.projectName}] ` : ''}${full} #${i}`
        m.set(name, { status, message: (last?.errors ?? []).map((e) => e.message ?? '').join('\n') || (last?.error?.message ?? '') })
      }
    }
    for (const c of s.suites ?? []) walk(c, [...titles, c.title]) // the top-level suites are the files; below them, describes
  }
  for (const s of report.suites ?? []) walk(s, [])
  for (const [i, e] of (report.errors ?? []).entries()) m.set(`(run error ${i + 1}) > (file failed to load)`, { status: 'failed', message: e.message ?? '' })
  return m
}
function parseSummary(line) {
  if (!line) return undefined
  const n = (re) => Number(line.match(re)?.[1] ?? NaN)
  return {
    scenarios: n(/(\d+) scenarios?:/), replayed: n(/(\d+) replayed/), recorded: n(/(\d+) recorded/),
    passed: n(/tests (\d+) passed/), failed: n(/(\d+) failed/), skipped: n(/(\d+) skipped/),
    live: n(/live model calls (\d+)/), fluxOwn: line.match(/failed \(([^)]*)\)/)?.[1],
  }
}
const counts = (m) => { const c = { passed: 0, failed: 0, skipped: 0 }; for (const v of m.values()) c[v.status] = (c[v.status] ?? 0) + 1; return c }
function fixtures() {
  if (!existsSync(scenarioDir)) return 0
  let n = 0
  const walk = (d) => { for (const e of readdirSync(d)) { const p = join(d, e); if (e === 'scenario.yaml') n++; else if (statSync(p).isDirectory()) walk(p) } }
  walk(scenarioDir)
  return n
}
function compare(a, b) {
  let same = 0
  const changed = []
  for (const [name, r] of a.results) {
    const p = b.results.get(name)
    if (p?.status === r.status) same++
    else changed.push({ name, from: r.status, to: p?.status ?? 'missing', why: firstLine(p?.message || r.message) })
  }
  for (const name of b.results.keys()) if (!a.results.has(name)) changed.push({ name, from: 'missing', to: b.results.get(name).status, why: firstLine(b.results.get(name).message) })
  return { same, of: a.results.size, changed }
}
const firstLine = (s) => (s ?? '').split('\n').map((l) => l.trim()).find((l) => l.length > 0)?.slice(0, 300) ?? ''

// ─── the measure ────────────────────────────────────────────────────────────
const emulator = await startEmulator(Number(process.env.EMULATOR_PORT ?? 0))
const map = hosts.map((h) => `${h}=${emulator.url}`).join(',')
const report = { project: dir, runner, config: configFile, keys: keyNames, hosts, runs: {}, compare: {} }

const A = await run('A', runner === 'playwright' ? pwPlain : configFile, { ...KEYS, VERDICT_REDIRECT: map })
const hitsA = emulator.requests()
rmSync(scenarioDir, { recursive: true, force: true })
const B = await run('B', adopted, { ...KEYS, FLUX_UPSTREAM: map })
const hitsB = emulator.requests() - hitsA
const written = fixtures()
await emulator.close()
const C = await run('C', adopted, { ...replayKeys, CI: '1' })
const Co = await run('Co', adopted, { ...replayKeys, CI: '1', FLUX_OFFLINE: '1' })
const up = await startEmulator(Number(process.env.EMULATOR_PORT ?? 0))
const Cp = await run("C'", adopted, { ...replayKeys, CI: '1', FLUX_OFFLINE: '1', VERDICT_REDIRECT: hosts.map((h) => `${h}=${up.url}`).join(',') })
const hitsCp = up.requests()
await up.close()
const writtenAfter = fixtures()

if (pwBrowserDir) rmSync(pwBrowserDir, { recursive: true, force: true })

const hits = { A: hitsA, B: hitsB, C: 0, Co: 0, "C'": hitsCp }
for (const r of [A, B, C, Co, Cp]) {
  const c = counts(r.results)
  report.runs[r.label] = { counts: c, exit: r.code, seconds: r.seconds, summary: r.summary, parsed: r.parsed, emulatorHits: hits[r.label], refusedOffMachine: r.leaks.length, refusedHosts: [...new Set(r.leaks.map((l) => l.host))] }
  console.log(`${r.label.padEnd(2)} ${JSON.stringify(c)} exit ${r.code} in ${r.seconds}s · emulator hits ${hits[r.label]} · connections refused off-machine ${r.leaks.length}${r.leaks.length ? ` (${[...new Set(r.leaks.map((l) => l.host))].join(', ')})` : ''}`)
  if (r.summary) {
    const p = r.parsed
    // the runner counts tests: a file that failed to load is one entry of the status comparison, not a test (jest's
    // numFailedTests, vitest's failed tests leave it out, and so does the fluxlab summary that repeats them)
    const t = counts(new Map([...r.results].filter(([k]) => !k.endsWith(' > (file failed to load)'))))
    const agree = p.passed === t.passed && p.failed === t.failed && p.skipped === t.skipped
    const said = Number.isNaN(p.passed) ? 'has no test counts' : `counts ${agree ? 'match' : 'DIFFER from'} the runner's${agree ? '' : ` (summary ${p.passed}/${p.failed}/${p.skipped} vs runner ${t.passed}/${t.failed}/${t.skipped})`}`
    console.log(`   ${r.summary}\n   summary ${said}`)
    report.runs[r.label].summaryMatchesRunner = agree
  }
}
console.log(`fixtures written by B: ${written} (B's summary says recorded ${B.parsed?.recorded}); after the C runs: ${writtenAfter}`)
report.fixturesWritten = written
report.fixturesAfterReplay = writtenAfter
for (const [label, other] of [['A-vs-B', B], ['A-vs-C', C], ['A-vs-Co', Co], ["A-vs-C'", Cp]]) {
  const cmp = compare(A, other)
  report.compare[label] = cmp
  console.log(`${label}: same status ${cmp.same}/${cmp.of}`)
  const broken = new Set(cmp.changed.filter((c) => c.name.endsWith('> (file failed to load)')).map((c) => c.name.split(' > ')[0]))
  for (const f of broken) {
    const lost = cmp.changed.filter((c) => c.name.startsWith(`${f} > `) && c.to === 'missing').length
    console.log(`  ${f}: the file failed to load (${lost} of its tests not run)\n    ${firstLine(other.results.get(`${f} > (file failed to load)`)?.message.split('\n').filter((l) => /Error|error/.test(l)).join('\n'))}`)
  }
  for (const c of cmp.changed) if (!broken.has(c.name.split(' > ')[0])) console.log(`  ${c.name}: ${c.from} -> ${c.to}\n    ${c.why}`)
}
// Tests that ran live in A (not skipped): how many kept their status in C.
const ranLive = [...A.results].filter(([, r]) => r.status !== 'skipped')
const fidelity = ranLive.filter(([n, r]) => C.results.get(n)?.status === r.status).length
report.ranLive = ranLive.length
report.ranLiveSameInC = fidelity
console.log(`ran live in A: ${ranLive.length}; same status in C: ${fidelity}/${ranLive.length}`)
const json = flag('json')
if (json) writeFileSync(json, JSON.stringify(report, null, 2))
process.exit(Object.values(report.compare).every((c) => c.changed.length === 0) ? 0 : 1)

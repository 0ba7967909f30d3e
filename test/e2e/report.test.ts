/**
 * Issue 41 item 2, end to end: a consumer project records four scenarios with vitest, commits its fixtures (real git in a
 * temp dir), then re-records one of them with a changed prompt. `fluxlab report --since HEAD --markdown` names that
 * fixture and the changed text, and no other; `--fail-on` gates on it; `fluxlab report --html` names every scenario
 * with the last run's result, and opens in headless Chromium with no console error and no network request; so does the
 * `--since --html` review, both versions side by side.
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { launchChromium, type Browser } from './support/chromium.js'
import { startCapitalServer, type CapitalServer } from './support/capital-server.js'
import { expectExit } from './support/modes.js'
import { assertBuilt, createProject, linkSelf, REPO, runCommandLine, runJest, runVitest, type Project } from './support/project.js'

const TIMEOUT = 150_000
const CLI = `node ${JSON.stringify(join(REPO, 'dist/cli.js'))}`
const OLD_PROMPT = 'What is the capital of the UK? Use the tool, then answer.'
const NEW_PROMPT = 'What is the capital of the UK? Always call the tool first, then answer in one sentence.'
const SCENARIOS = ['capital', 'capital-france', 'capital-japan', 'capital-uk']
const FILES = ['capital.test.ts', 'concurrent.test.ts']

let server: CapitalServer
let p: Project
let browser: Browser | undefined

function git(...args: string[]): string {
  const who = ['-c', 'user.name=fluxlab e2e', '-c', 'user.email=e2e@example.com', '-c', 'commit.gpgsign=false']
  const r = spawnSync('git', [...who, ...args], { cwd: p.dir, encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`)
  return r.stdout
}

beforeAll(async () => {
  assertBuilt()
  linkSelf()
  server = await startCapitalServer()
  p = createProject('vitest-agent')
  expectExit(await runVitest(p, FILES, { PROVIDER_URL: server.url }), 0)
  expect(p.fixtureDirs().sort()).toEqual(SCENARIOS)
  git('init', '-q', '-b', 'main')
  git('add', 'tests/scenarios')
  git('commit', '-q', '-m', 'record the fixtures')
  // the change under review: a new prompt, re-recorded
  p.edit('capital.test.ts', OLD_PROMPT, NEW_PROMPT)
  expectExit(await runVitest(p, ['capital.test.ts'], { PROVIDER_URL: server.url, FLUX_GOLDEN: 'update' }), 0)
  // the last run, as CI runs it: every scenario replayed
  expectExit(await runVitest(p, FILES, { PROVIDER_URL: server.url, CI: '1' }), 0)
}, TIMEOUT)

const others: Project[] = []
afterAll(async () => {
  await browser?.close()
  await server?.close()
  if (!process.env.E2E_KEEP) for (const x of [p, ...others]) x?.remove()
})

describe('the last run the jest reporter writes', () => {
  test(
    'is what the report shows: a recording, then a replay',
    async () => {
      const j = createProject('jest-agent')
      others.push(j)
      expectExit(await runJest(j, ['capital.test.cjs'], { PROVIDER_URL: server.url }), 0)
      const recorded = JSON.parse((await runCommandLine(j, `${CLI} report capital --json -`)).output)
      expect(recorded.lastRun.runner).toBe('jest')
      const rows = recorded.scenarios.map((e: { name: string; last: { mode: string; result: string } }) => [e.name, e.last.mode, e.last.result])
      expect(rows).toEqual([['capital', 'record', 'recorded']])
      expectExit(await runJest(j, ['capital.test.cjs'], { PROVIDER_URL: server.url, CI: '1' }), 0)
      const replayed = JSON.parse((await runCommandLine(j, `${CLI} report capital --json -`)).output)
      expect(replayed.scenarios[0].last).toMatchObject({ mode: 'replay', result: 'replayed', test: { file: 'capital.test.cjs', state: 'passed' } })
    },
    TIMEOUT,
  )
})

describe('fluxlab report --since HEAD', () => {
  test('the Markdown review names the re-recorded fixture and its changed prompt, and no other fixture', async () => {
    const r = await runCommandLine(p, `${CLI} report --since HEAD --markdown review.md --json review.json`)
    expect(r.code, r.output).toBe(0)
    const md = p.read('review.md')
    expect(md).toContain('## fluxlab: what the agent does differently since `HEAD`')
    expect(md).toContain('1 fixture changed, 1 in behaviour')
    expect(md).toMatch(/\| `capital` \| 3 \| /)
    expect(md).toContain('<details><summary><b>capital</b>: model#1 request changed')
    expect(md).toContain(`- **model#1** \`gpt-4o-mini-2024-07-18\` changed\n  - message 1 (user) \`content\`: \`${OLD_PROMPT}\` → \`${NEW_PROMPT}\``)
    expect(md).toContain('- **model#2** `gpt-4o-mini-2024-07-18` changed\n  - message 1 (user) `content`: the same change as at model#1')
    for (const other of SCENARIOS.slice(1)) expect(md).not.toContain(other)
    const doc = JSON.parse(p.read('review.json'))
    expect(doc.schema).toBe('fluxlab.report/v1')
    expect(doc.review.map((f: { name: string }) => f.name)).toEqual(['capital'])
    expect(doc.review[0].changes[0].request[0]).toMatchObject({ path: 'messages[0].content', field: 'content', kind: 'changed' })
  })

  test('--fail-on gates on it: changed exits 1 naming the fixture, steps passes, a bad rule is named with exit 64', async () => {
    const changed = await runCommandLine(p, `${CLI} report --since HEAD --fail-on changed`)
    expect(changed.code, changed.output).toBe(1)
    expect(changed.output).toContain('[fluxlab] Failed to pass --fail-on changed: behaviour changed in capital.')
    expect((await runCommandLine(p, `${CLI} report --since HEAD --fail-on steps,removed`)).code).toBe(0)
    const bad = await runCommandLine(p, `${CLI} report --since HEAD --fail-on cost:20`)
    expect(bad.code).toBe(64)
    expect(bad.output).toContain('--fail-on "cost:20": it does not parse')
  })

  test('nothing is reviewed once the re-record is committed', async () => {
    git('add', 'tests/scenarios')
    git('commit', '-q', '-m', 're-record capital')
    const r = await runCommandLine(p, `${CLI} report --since HEAD --markdown same.md`)
    expect(r.code, r.output).toBe(0)
    expect(p.read('same.md')).toContain('No fixture differs from `HEAD`.')
    const r2 = await runCommandLine(p, `${CLI} report --since HEAD~1 --html review.html`)
    expect(r2.code, r2.output).toBe(0)
    expect(p.read('review.html')).toContain('Both versions side by side')
  })
})

describe('fluxlab report --html in headless Chromium', () => {
  test('names every scenario with its last result, opens a trace, and makes no network request and no console error', async () => {
    const r = await runCommandLine(p, `${CLI} report --html report.html`)
    expect(r.code, r.output).toBe(0)
    expect(r.output).toContain('4 scenarios · 4 replayed')
    browser = await launchChromium()
    const { page, errors, requests } = await browser.open(p.path('report.html'))
    const rows = page.locator('#suite tbody tr')
    expect(await rows.count()).toBe(4)
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.querySelector('td a')?.textContent))).toEqual(SCENARIOS)
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-result')))).toEqual(['replayed', 'replayed', 'replayed', 'replayed'])
    expect(await page.locator('#shown').textContent()).toBe('4 of 4 scenarios')
    await page.locator('#q').fill('japan')
    expect(await page.locator('#shown').textContent()).toBe('1 of 4 scenarios')
    await page.locator('#q').fill('')
    await rows.nth(0).locator('td a').click()
    expect(await page.locator('#trace h2').first().textContent()).toBe('capital')
    expect(await page.locator('#trace .timeline .bar').count()).toBe(3)
    expect(await page.locator('#trace li.step').count()).toBe(3)
    const shots = join(REPO, 'test-results')
    mkdirSync(shots, { recursive: true })
    await page.screenshot({ path: join(shots, 'report-html.png'), fullPage: true })
    expect(statSync(join(shots, 'report-html.png')).size).toBeGreaterThan(10_000)
    if (process.env.FLUX_DOCS_SHOT) copyFileSync(join(shots, 'report-html.png'), join(REPO, 'docs/report-html.png'))
    expect(errors).toEqual([])
    expect(new Set(requests)).toEqual(new Set([`file://${p.path('report.html')}`]))
    await page.close()
    // the review of the re-record, both versions side by side
    const review = await browser.open(p.path('review.html'))
    expect(await review.page.locator('section.fixture > h2').allTextContents()).toEqual(['capital behaviour changed'])
    expect(await review.page.locator('section.fixture .pair > div').count()).toBe(2)
    // both model turns' requests changed: marked on both sides
    expect(await review.page.locator('.pair li.step.diverged .badge').allTextContents()).toEqual(['changed', 'changed', 'changed', 'changed'])
    expect(await review.page.locator('section.fixture ins').first().textContent()).toBe(NEW_PROMPT)
    expect(review.errors).toEqual([])
    expect(browser.refused).toEqual([])
    await review.page.close()
  }, 60_000)
})

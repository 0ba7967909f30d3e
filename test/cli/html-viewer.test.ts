// `fluxlab show --html`: the viewer opened in headless Chromium (Debian's `chromium`, installed by .ci/run)
// through playwright-core: every step rendered, a body expands on click, and no network request at all.
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { assertBuilt, cleanup, copyFixture, editJsonl, fluxlab, read, recordDragons, REPO, retrace, tempDir } from './support.js'

const CHROMIUM = '/usr/bin/chromium'
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']
const SHOTS = join(REPO, 'test-results')

let cwd: string
let html: string
let forkHtml: string
let context: BrowserContext
/** A fresh Chromium user-data-dir, removed afterwards. */
let profile: string
/** Every request the pages made (the file:// documents themselves included), and those the router refused. */
const requests: string[] = []
const routed: string[] = []

async function open(file: string): Promise<Page> {
  const page = await context.newPage()
  page.on('request', (r) => requests.push(r.url()))
  await page.goto(pathToFileURL(file).href)
  return page
}

// @note skipped only off CI without the browser; in CI (.ci/run installs it) a missing chromium fails the launch loudly.
describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)(`fluxlab show --html in headless Chromium (${CHROMIUM})`, () => {
  beforeAll(async () => {
    assertBuilt()
    cwd = tempDir()
    const root = join(cwd, 'tests/scenarios')
    const dragons = await recordDragons(root)
    const fork = copyFixture(dragons, tempDir(), 'alt')
    editJsonl(join(fork, 'tools.jsonl'), 2, (c) => (c.output = false))
    retrace(fork)
    copyFixture(fork, dragons, 'forks/alt')
    html = join(cwd, 'dragons.html')
    forkHtml = join(cwd, 'fork.html')
    const r = await fluxlab(['show', 'dragons', '--html', html], { cwd })
    expect(r.code, r.output).toBe(0)
    expect(r.stderr).toContain('[fluxlab] wrote dragons.html (5 steps, self-contained')
    expect((await fluxlab(['show', 'dragons/forks/alt', '--html', forkHtml], { cwd })).code).toBe(0)
    profile = mkdtempSync(join(tmpdir(), 'flux-chromium-'))
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
      viewport: { width: 1100, height: 900 },
      offline: true,
    })
    // Everything but the two viewer documents is counted and refused.
    const documents = new Set([pathToFileURL(html).href, pathToFileURL(forkHtml).href])
    await context.route('**/*', (route) => {
      const url = route.request().url()
      if (documents.has(url)) return route.continue()
      routed.push(url)
      return route.abort()
    })
  }, 60_000)

  afterAll(async () => {
    await context?.close()
    if (profile) rmSync(profile, { recursive: true, force: true })
    cleanup()
  })

  test('is one file with no external reference', () => {
    const text = read(html)
    expect(text).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none';`)
    expect(text).not.toMatch(/\b(src|href)="(https?:)?\/\//)
    expect(text).not.toMatch(/<link\b/)
  })

  test('renders every step on the timeline and as a card, with usage and cost', async () => {
    const page = await open(html)
    expect(await page.title()).toBe('fluxlab · dragons')
    const steps = page.locator('li.step')
    expect(await steps.count()).toBe(5)
    expect(await steps.evaluateAll((els) => els.map((e) => e.querySelector('.id')?.textContent))).toEqual(['model#1', 'tool#1', 'model#2', 'tool#2', 'model#3'])
    expect(await page.locator('.timeline .bar').count()).toBe(5)
    expect(await page.locator('.timeline .bar.model').count()).toBe(3)
    const first = await steps.nth(0).locator('.facts').textContent()
    expect(first).toMatch(/^in 92 · out 17 · \$0\.0000\d+ · tool_calls · HTTP 200 · \d+ ms · 1 chunk · \d+ B$/)
    expect(await steps.nth(1).textContent()).toContain('lookup_population')
    expect(await page.locator('.final').textContent()).toContain('YES')
    await page.close()
  })

  test('expands a body on click, and all of them with "Expand all bodies"', async () => {
    const page = await open(html)
    const body = page.locator('li.step').nth(0).locator('details.body.response')
    const pre = body.locator('pre')
    expect(await pre.isVisible()).toBe(false)
    await body.locator('summary').click()
    expect(await body.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true)
    expect(await pre.isVisible()).toBe(true)
    expect(await pre.textContent()).toMatch(/"finish_reason": ?"tool_calls"/)
    await page.locator('#expand-all').click()
    expect(await page.locator('details.body').evaluateAll((ds) => ds.every((d) => (d as HTMLDetailsElement).open))).toBe(true)
    mkdirSync(SHOTS, { recursive: true })
    const shot = join(SHOTS, 'cli-html-viewer.png')
    await page.locator('#collapse-all').click()
    await body.locator('summary').click()
    await page.screenshot({ path: shot, fullPage: true })
    expect(statSync(shot).size).toBeGreaterThan(10_000)
    console.log(`[fluxlab test] HTML viewer screenshot: ${shot}`)
    await page.close()
  })

  test('highlights the step where a fork diverges from its parent', async () => {
    const page = await open(forkHtml)
    expect(await page.locator('.fork').textContent()).toContain('diverges from its parent at step 4')
    expect(await page.locator('li.step.diverged').getAttribute('data-step')).toBe('4')
    expect(await page.locator('.timeline .bar.diverged').getAttribute('data-step')).toBe('4')
    await page.screenshot({ path: join(SHOTS, 'cli-html-viewer-fork.png'), fullPage: true })
    await page.close()
  })

  test('made no network request: only the two file:// documents were loaded', () => {
    expect(routed).toEqual([])
    expect(new Set(requests)).toEqual(new Set([pathToFileURL(html).href, pathToFileURL(forkHtml).href]))
  })
})

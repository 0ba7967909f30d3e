// `fluxlab show --html`: the viewer opened in headless Chromium through playwright-core: every step rendered,
// a body expands on click, and no network request at all. The browser is the one the devDependency
// `@sparticuz/chromium` ships inside its registry package (so `npm ci` provides it; no system browser, no apt),
// unpacked into a fresh temp directory and removed afterwards. A browser that cannot be launched fails the file.
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, sep } from 'node:path'
import { pathToFileURL } from 'node:url'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { assertBuilt, cleanup, copyFixture, editJsonl, fluxlab, read, recordDragons, REPO, retrace, tempDir } from './support.js'

const BROWSER = '@sparticuz/chromium'
/** What provides the browser, named in the failure when it cannot be launched. */
const PROVIDES = `run \`npm ci\` (the devDependency ${BROWSER} ships the browser inside its npm package)`
/** As the machine doc's probe starts Chromium: headless, as root, and quiet on a closed network. */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]
const SHOTS = join(REPO, 'test-results')

/**
 * Unpack the browser shipped by {@link BROWSER} into `dir` and return its executable. The package unpacks into
 * `os.tmpdir()` (and reuses a `chromium` it finds there), so TMPDIR points at a fresh directory for the call.
 */
async function unpackBrowser(dir: string): Promise<{ executablePath: string; args: string[] }> {
  const { default: pack } = await import('@sparticuz/chromium')
  const saved = process.env.TMPDIR
  process.env.TMPDIR = dir
  try {
    const executablePath = await pack.executablePath()
    if (!executablePath.startsWith(dir + sep)) throw new Error(`${BROWSER} unpacked to ${executablePath}, not into ${dir}`)
    return { executablePath, args: pack.args }
  } finally {
    if (saved === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = saved
  }
}

let cwd: string
let html: string
let forkHtml: string
let context: BrowserContext | undefined
/** A fresh Chromium user-data-dir, removed afterwards. */
let profile: string | undefined
/** Where the browser is unpacked (about 200 MB), removed afterwards. */
let unpacked: string | undefined
/** Every request the pages made (the file:// documents themselves included), and those the router refused. */
const requests: string[] = []
const routed: string[] = []

async function open(file: string): Promise<Page> {
  const page = await context!.newPage()
  page.on('request', (r) => requests.push(r.url()))
  await page.goto(pathToFileURL(file).href)
  return page
}

describe(`fluxlab show --html in headless Chromium (${BROWSER})`, () => {
  beforeAll(async () => {
    assertBuilt()
    // The browser first: a missing one fails here, loudly, before the recording work.
    try {
      unpacked = mkdtempSync(join(tmpdir(), 'flux-chromium-bin-'))
      const browser = await unpackBrowser(unpacked)
      profile = mkdtempSync(join(tmpdir(), 'flux-chromium-'))
      context = await chromium.launchPersistentContext(profile, {
        executablePath: browser.executablePath,
        headless: true,
        args: [...browser.args, ...ARGS],
        viewport: { width: 1100, height: 900 },
        offline: true,
      })
    } catch (e) {
      throw new Error(`headless Chromium could not be launched: ${e instanceof Error ? e.message : String(e)}\nTo provide it, ${PROVIDES}.`)
    }
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
    for (const dir of [profile, unpacked]) if (dir) rmSync(dir, { recursive: true, force: true })
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

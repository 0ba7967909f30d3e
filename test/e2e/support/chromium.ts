/**
 * Headless Chromium for the e2e tests that open a page fluxlab wrote, as test/cli/html-viewer.test.ts does: the browser
 * the devDependency `@sparticuz/chromium` ships inside its npm package, unpacked into a fresh temp directory, driven by
 * playwright-core, offline, every request other than the page itself refused and counted.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, sep } from 'node:path'
import { pathToFileURL } from 'node:url'
import { chromium, type BrowserContext, type Page } from 'playwright-core'

const BROWSER = '@sparticuz/chromium'
const ARGS = [
  ...['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'],
  ...['--disable-background-networking', '--disable-component-update', '--disable-sync'],
]

export interface Browser {
  /** Open a local file; its console errors, page errors and every request it made are collected. */
  open(file: string): Promise<{ page: Page; errors: string[]; requests: string[] }>
  /** Requests to anything but the documents opened, refused. */
  refused: string[]
  close(): Promise<void>
}

/**
 * Unpack and launch the browser (a missing one is an error that says what provides it).
 * @example
 * const browser = await launchChromium()
 */
export async function launchChromium(): Promise<Browser> {
  const unpacked = mkdtempSync(join(tmpdir(), 'flux-chromium-bin-'))
  const profile = mkdtempSync(join(tmpdir(), 'flux-chromium-'))
  let context: BrowserContext
  try {
    const { default: pack } = await import('@sparticuz/chromium')
    const saved = process.env.TMPDIR
    process.env.TMPDIR = unpacked
    let executablePath: string
    try {
      executablePath = await pack.executablePath()
    } finally {
      if (saved === undefined) delete process.env.TMPDIR
      else process.env.TMPDIR = saved
    }
    if (!executablePath.startsWith(unpacked + sep)) throw new Error(`${BROWSER} unpacked to ${executablePath}, not into ${unpacked}`)
    const args = [...pack.args, ...ARGS]
    context = await chromium.launchPersistentContext(profile, { executablePath, headless: true, args, viewport: { width: 1280, height: 900 }, offline: true })
  } catch (e) {
    rmSync(unpacked, { recursive: true, force: true })
    rmSync(profile, { recursive: true, force: true })
    const why = e instanceof Error ? e.message : String(e)
    throw new Error(`headless Chromium could not be launched: ${why}\nTo provide it, run \`npm ci\` (the devDependency ${BROWSER} ships the browser).`)
  }
  const documents = new Set<string>()
  const refused: string[] = []
  await context.route('**/*', (route) => {
    const url = route.request().url()
    if (documents.has(url)) return route.continue()
    refused.push(url)
    return route.abort()
  })
  return {
    refused,
    async open(file) {
      const url = pathToFileURL(file).href
      documents.add(url)
      const page = await context.newPage()
      const errors: string[] = []
      const requests: string[] = []
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()))
      page.on('pageerror', (e) => errors.push(String(e)))
      page.on('request', (r) => requests.push(r.url()))
      await page.goto(url)
      return { page, errors, requests }
    },
    async close() {
      await context.close()
      for (const dir of [profile, unpacked]) rmSync(dir, { recursive: true, force: true })
    },
  }
}

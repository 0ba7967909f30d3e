/**
 * Bench section 6 (issue 39): the Playwright and jest reporters load in the runner's main process of every run, so what
 * they import is paid by every run, fluxlab's scenario or not. Reading the workers' facts file must not load zod (it
 * was about 50 ms of a Playwright run's CPU), msw or the interceptors. Nor may the `fluxlab` index a spec imports load
 * zod or yaml. Each built CommonJS file is loaded in a fresh node and the packages it loaded are listed.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { cleanup, tempDir } from '../cli/support.js'
import { assertBuilt, REPO } from '../e2e/support/project.js'

const HEAVY = ['zod', 'msw', '@mswjs/interceptors']

beforeAll(() => assertBuilt())
afterAll(() => cleanup())

const packagesOf = (paths: string[]) => [...new Set(paths.flatMap((p) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(p)?.[1] ?? []))]

/** The packages under node_modules that requiring the built CommonJS `files` loaded (its `require.cache`). */
function packagesLoaded(...files: string[]): string[] {
  const script = `${files.map((f) => `require(${JSON.stringify(join(REPO, 'dist', f))})`).join('; ')}; console.log(JSON.stringify(Object.keys(require.cache)))`
  const r = spawnSync(process.execPath, ['-e', script], { cwd: REPO, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } })
  expect(r.status, r.stderr).toBe(0)
  return packagesOf(JSON.parse(r.stdout.trim().split('\n').at(-1)!) as string[])
}

/** The packages under node_modules that importing the built ES modules `files` loaded, as a loader hook saw them. */
function packagesImported(...files: string[]): string[] {
  const dir = tempDir('flux-runner-imports-')
  const list = join(dir, 'loaded.txt')
  writeFileSync(list, '')
  writeFileSync(
    join(dir, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs'\nexport async function load(url, c, next) {\n  appendFileSync(${JSON.stringify(list)}, url + '\\n')\n  return next(url, c)\n}\n`,
  )
  writeFileSync(join(dir, 'entry.mjs'), files.map((f) => `await import(${JSON.stringify(pathToFileURL(join(REPO, 'dist', f)).href)})\n`).join(''))
  const hook = `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)})`
  const r = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(hook)}`, join(dir, 'entry.mjs')], {
    cwd: REPO,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  })
  expect(r.status, r.stderr).toBe(0)
  return packagesOf(readFileSync(list, 'utf8').trim().split('\n'))
}

test.each(['playwright-reporter.cjs', 'jest-reporter.cjs'])('%s loads no zod, msw or interceptors', (file) => {
  const loaded = packagesLoaded(file)
  expect(loaded.length, 'no package was seen loading: the check reads nothing').toBeGreaterThan(0)
  expect(loaded.filter((p) => HEAVY.includes(p))).toEqual([])
})

// Issue 39 (bench section 6): a Playwright spec that imports `fluxlab` (a `Rubric`) loads it in the runner's main process,
// which lists the tests, and in every worker. zod (a bad line's message) and yaml (durable() journals) load on first use.
test('index.cjs (`fluxlab` in a spec Playwright transpiles) loads no zod or yaml', () => {
  const loaded = packagesLoaded('index.cjs')
  expect(loaded.length, 'no package was seen loading: the check reads nothing').toBeGreaterThan(0)
  expect(loaded.filter((p) => ['zod', 'yaml', 'msw'].includes(p))).toEqual([])
})

// Issue 39 (bench section 6): what Playwright's runner process loads of fluxlab, all of it at once: the config's
// `withFluxlab` (fluxlab/playwright), a spec's `test` and `Rubric` (fluxlab/playwright and the index: the runner lists
// the tests by loading the specs) and the reporter. It intercepts nothing and reads no fixture: the interceptors load
// where a run first intercepts, yaml where a fixture's manifest is not the shape fluxlab writes, zod for a bad line.
const RUNNER_HEAVY = ['zod', 'yaml', 'msw', '@mswjs/interceptors']
test("Playwright's runner side (config, spec and reporter entries) loads no interceptors, yaml, zod or msw, as CommonJS", () => {
  const loaded = packagesLoaded('playwright.cjs', 'index.cjs', 'playwright-reporter.cjs')
  expect(loaded, 'the check saw @playwright/test load: it reads what loaded').toContain('@playwright/test')
  expect(loaded.filter((p) => RUNNER_HEAVY.includes(p))).toEqual([])
})

test("Playwright's runner side (config, spec and reporter entries) loads no interceptors, yaml, zod or msw, as ES modules", () => {
  const loaded = packagesImported('playwright.js', 'index.js', 'playwright-reporter.js')
  expect(loaded, 'the check saw @playwright/test load: it reads what loaded').toContain('@playwright/test')
  expect(loaded.filter((p) => RUNNER_HEAVY.includes(p))).toEqual([])
})

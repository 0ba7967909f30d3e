/**
 * Bench section 6 (issue 39): the Playwright and jest reporters load in the runner's main process of every run, so what
 * they import is paid by every run, fluxlab's scenario or not. Reading the workers' facts file must not load zod (it
 * was about 50 ms of a Playwright run's CPU), msw or the interceptors. Nor may the `fluxlab` index a spec imports load
 * zod or yaml. Each built CommonJS file is loaded in a fresh node and the packages it loaded are listed.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { beforeAll, expect, test } from 'vitest'
import { assertBuilt, REPO } from '../e2e/support/project.js'

const HEAVY = ['zod', 'msw', '@mswjs/interceptors']

beforeAll(() => assertBuilt())

/** The packages under node_modules that requiring the built CommonJS `file` loaded (its `require.cache`). */
function packagesLoaded(file: string): string[] {
  const script = `require(${JSON.stringify(join(REPO, 'dist', file))}); console.log(JSON.stringify(Object.keys(require.cache)))`
  const r = spawnSync(process.execPath, ['-e', script], { cwd: REPO, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } })
  expect(r.status, r.stderr).toBe(0)
  const paths = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as string[]
  return [...new Set(paths.flatMap((p) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(p)?.[1] ?? []))]
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

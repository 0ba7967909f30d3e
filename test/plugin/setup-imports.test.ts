/**
 * Issue 14 (setup-file cost per test file): vitest loads fluxlab's setup file afresh in every test file's worker,
 * so what it imports is paid once per test file. In explicit mode (the default) a test file that opens no scenario
 * must not load msw, the interceptors, zod, YAML or jest's diff and matcher utilities; they load when first used.
 * The built setup file is imported in a fresh node with `vitest` answered by a stub (a module hook), and the
 * packages it loaded (ESM, and CommonJS through `require.cache`) are listed.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { assertBuilt, REPO } from '../e2e/support/project.js'

const HEAVY = ['msw', '@mswjs/interceptors', 'zod', 'yaml', 'jest-diff', 'jest-matcher-utils']
const dir = mkdtempSync(join(tmpdir(), 'flux-setup-imports-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const STUB = 'const f = () => {}; export const afterAll = f, afterEach = f, beforeEach = f, aroundEach = f; export const expect = { extend: f }; export const inject = () => undefined'
const HOOKS = `import { appendFileSync } from 'node:fs'
export async function resolve(spec, ctx, next) {
  if (spec === 'vitest') return { url: 'data:text/javascript,' + encodeURIComponent(${JSON.stringify(STUB)}), shortCircuit: true }
  const r = await next(spec, ctx)
  appendFileSync(process.env.FLUX_TEST_URLS, r.url + '\\n')
  return r
}`

beforeAll(() => {
  assertBuilt()
  writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module'\nregister('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}))\n`)
  writeFileSync(
    join(dir, 'load.mjs'),
    [
      `import { appendFileSync } from 'node:fs'`,
      `import { createRequire } from 'node:module'`,
      `await import(${JSON.stringify(join(REPO, 'dist/vitest-setup.js'))})`,
      `appendFileSync(process.env.FLUX_TEST_URLS, Object.keys(createRequire(import.meta.url).cache).join('\\n') + '\\n')`,
      '',
    ].join('\n'),
  )
})

/** The packages under node_modules that loading the setup file loaded. */
function packagesLoaded(env: Record<string, string>): string[] {
  const urls = join(dir, `urls-${Object.keys(env).length}.txt`)
  writeFileSync(urls, '')
  const r = spawnSync(process.execPath, ['--import', join(dir, 'register.mjs'), join(dir, 'load.mjs')], {
    cwd: dir,
    env: { ...process.env, FLUX_SCENARIOS: '', ...env, FLUX_TEST_URLS: urls },
    encoding: 'utf8',
  })
  expect(r.stderr).toBe('')
  expect(r.status).toBe(0)
  const names = new Set<string>()
  for (const line of readFileSync(urls, 'utf8').split('\n')) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(line)
    if (m) names.add(m[1])
  }
  return [...names].sort()
}

test('in explicit mode the setup file loads none of msw, the interceptors, zod, YAML, jest-diff or jest-matcher-utils', () => {
  const loaded = packagesLoaded({})
  expect(loaded.filter((p) => HEAVY.includes(p))).toEqual([])
}, 30_000)

test('in whole-suite mode it loads the interceptors it installs at once (so the check above sees what loads), and nothing else heavy', () => {
  const loaded = packagesLoaded({ FLUX_SCENARIOS: 'per-test' })
  expect(loaded).toContain('@mswjs/interceptors')
  // zod words a bad fixture line's error and yaml reads scenario.yaml: both load at the first fixture read, not per test file.
  expect(loaded.filter((p) => HEAVY.includes(p) && p !== '@mswjs/interceptors')).toEqual([])
}, 30_000)

/**
 * Issue 14 (setup-file cost per test file): vitest loads fluxlab's setup file afresh in every test file's worker,
 * so what it imports is paid once per test file. In explicit mode (the default) a test file that opens no scenario
 * must not load msw, the interceptors, zod, YAML or jest's diff and matcher utilities, nor fluxlab's own matcher,
 * scenario, provider, pricing and fixture code; they load when first used.
 * The built setup file is imported in a fresh node with `vitest` answered by a stub (a module hook), and the
 * packages it loaded (ESM, and CommonJS through `require.cache`) are listed, with the fluxlab sources bundled into
 * the `dist/` files it loaded (each chunk names its sources in `// src/…` lines).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { assertBuilt, REPO } from '../e2e/support/project.js'

const DIST = pathToFileURL(join(REPO, 'dist')).href
const HEAVY = ['msw', '@mswjs/interceptors', 'zod', 'yaml', 'jest-diff', 'jest-matcher-utils']
const dir = mkdtempSync(join(tmpdir(), 'flux-setup-imports-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// The stub's `expect.extend` keeps what it was given on globalThis, so a test can call a registered matcher.
const STUB =
  'const f = () => {}; export const afterAll = f, afterEach = f, beforeAll = f, beforeEach = f, aroundEach = f; export const expect = { extend: (m) => { globalThis.__fluxExtended = m } }; export const inject = () => undefined'
const HOOKS = `import { appendFileSync } from 'node:fs'
export async function resolve(spec, ctx, next) {
  if (spec === 'vitest') return { url: 'data:text/javascript,' + encodeURIComponent(${JSON.stringify(STUB)}), shortCircuit: true }
  const r = await next(spec, ctx)
  appendFileSync(process.env.FLUX_TEST_URLS, r.url + '\\n')
  return r
}`

beforeAll(() => {
  assertBuilt()
  writeFileSync(
    join(dir, 'register.mjs'),
    `import { register } from 'node:module'\nregister('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}))\n`,
  )
  writeFileSync(
    join(dir, 'load.mjs'),
    [
      `import { appendFileSync } from 'node:fs'`,
      `import { createRequire } from 'node:module'`,
      `await import(${JSON.stringify(join(REPO, 'dist/vitest-setup.js'))})`,
      `appendFileSync(process.env.FLUX_TEST_URLS, Object.keys(createRequire(import.meta.url).cache).join('\\n') + '\\n')`,
      // FLUX_TEST_CALL: call one registered matcher, as a test file that never imported fluxlab would, and print what it said.
      `if (process.env.FLUX_TEST_CALL) {`,
      `  try { globalThis.__fluxExtended[process.env.FLUX_TEST_CALL].call({ equals: () => false }, { not: 'an outcome' }, 'x'); console.log('no error') }`,
      `  catch (e) { console.log(e.name + ': ' + e.message) }`,
      `}`,
      '',
    ].join('\n'),
  )
})

/** The packages under node_modules that loading the setup file loaded, the fluxlab sources bundled in what it loaded, and what it printed. */
function setupLoads(env: Record<string, string>): { packages: string[]; sources: string[]; dist: string[]; stdout: string } {
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
  const sources = new Set<string>()
  const dist = new Set<string>()
  for (const line of readFileSync(urls, 'utf8').split('\n')) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(line)
    if (m) names.add(m[1])
    if (!line.startsWith(`${DIST}/`)) continue
    dist.add(line.slice(DIST.length + 1))
    for (const src of readFileSync(fileURLToPath(line), 'utf8').matchAll(/^\/\/ (src\/\S+)$/gm)) sources.add(src[1])
  }
  return { packages: [...names].sort(), sources: [...sources].sort(), dist: [...dist].sort(), stdout: r.stdout }
}
const packagesLoaded = (env: Record<string, string>): string[] => setupLoads(env).packages

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

/**
 * fluxlab code a test file that opens no scenario does not use: matchers, scenarios, providers, pricing, fixtures, judge,
 * reporting. The vendors' data (hosts, key variables and prefixes: src/providers/vendors.ts) is not code: replay placeholders need it.
 */
const LATE =
  /^src\/(matchers\/(?!lazy\.ts)|scenario\/|providers\/(?!vendors\.ts|[a-z-]+\/vendors?\.ts)|pricing\/|cassette\/|judge\/(?!uses\.ts)|reporter\/|interceptor\/|context\/route\.ts)/

test("in explicit mode the setup file loads none of fluxlab's matcher, scenario, provider, pricing or fixture code", () => {
  const { sources } = setupLoads({})
  expect(sources).toContain('src/plugin/vitest-setup.ts')
  expect(sources.filter((s) => LATE.test(s))).toEqual([])
}, 30_000)

// Each module a fresh process loads costs about half a millisecond more than its bytes (resolve, read, compile, link).
test('in explicit mode the setup file is one module: it loads no other file of dist/', () => {
  expect(setupLoads({}).dist).toEqual(['vitest-setup.js'])
}, 30_000)

test('a matcher registered by the setup file loads the matcher code on its first call, where no fluxlab module handed it over', () => {
  // The real toNeverCall runs: it refuses a value that is not an outcome with its own message, not a fluxlab config error.
  const { stdout } = setupLoads({ FLUX_TEST_CALL: 'toNeverCall' })
  expect(stdout).toMatch(/toNeverCall/)
  expect(stdout).toMatch(/Outcome/)
  expect(stdout).not.toMatch(/FLUX_BAD_CONFIG|no error/)
}, 30_000)

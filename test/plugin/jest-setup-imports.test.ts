/**
 * Issue 14 (setup-file cost per test file), for jest: jest loads `fluxlab/jest` (the CommonJS build, `dist/jest.cjs`)
 * afresh in every test file. In explicit mode a test file that opens no scenario must not load the interceptors, nor
 * fluxlab's matcher, scenario, provider, pricing and fixture code; whole-suite mode loads the engine at once, since it
 * intercepts from the first line. The setup is required in a fresh node with jest's globals (expect, the hooks)
 * stood in for, and the files it loaded are read from `require.cache`: packages by name, fluxlab's own sources from
 * the `// src/…` lines of each `dist/` chunk.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { assertBuilt, REPO } from '../e2e/support/project.js'

const dir = mkdtempSync(join(tmpdir(), 'flux-jest-setup-imports-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

beforeAll(() => {
  assertBuilt()
  writeFileSync(
    join(dir, 'load.cjs'),
    [
      `const f = () => {}`,
      `globalThis.expect = { extend: (m) => { globalThis.__fluxExtended = m }, getState: () => ({}) }`,
      `globalThis.beforeEach = f; globalThis.afterEach = f; globalThis.afterAll = f`,
      `if (process.env.FLUX_TEST_MODE) globalThis.fluxlab = { scenarios: process.env.FLUX_TEST_MODE }`,
      `require(${JSON.stringify(join(REPO, 'dist/jest.cjs'))})`,
      `const before = Object.keys(require.cache)`,
      `let said = ''`,
      `if (process.env.FLUX_TEST_CALL) {`,
      `  try { globalThis.__fluxExtended[process.env.FLUX_TEST_CALL].call({ equals: () => false }, { not: 'an outcome' }, 'x'); said = 'no error' }`,
      `  catch (e) { said = e.name + ': ' + e.message }`,
      `}`,
      `process.stdout.write(JSON.stringify({ before, said }))`,
      // Whole-suite mode patched node:http; let go of it so the process ends.
      `globalThis[Symbol.for('fluxlab.jest.teardown')]?.()`,
      '',
    ].join('\n'),
  )
})

const LATE =
  /^src\/(matchers\/(?!lazy\.ts)|scenario\/|providers\/(?!vendors\.ts|[a-z-]+\/vendors?\.ts)|pricing\/|cassette\/|judge\/(?!uses\.ts)|reporter\/|interceptor\/|context\/route\.ts)/

function setupLoads(env: Record<string, string>): { packages: string[]; sources: string[]; said: string } {
  const r = spawnSync(process.execPath, [join(dir, 'load.cjs')], { cwd: dir, env: { ...process.env, FLUX_SCENARIOS: '', ...env }, encoding: 'utf8' })
  expect(r.stderr).toBe('')
  expect(r.status).toBe(0)
  const { before, said } = JSON.parse(r.stdout) as { before: string[]; said: string }
  const packages = new Set<string>()
  const sources = new Set<string>()
  for (const file of before) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)
    if (m) packages.add(m[1])
    else if (file.startsWith(join(REPO, 'dist') + '/')) for (const src of readFileSync(file, 'utf8').matchAll(/^\/\/ (src\/\S+)$/gm)) sources.add(src[1])
  }
  return { packages: [...packages].sort(), sources: [...sources].sort(), said }
}

test("in explicit mode the jest setup loads neither the interceptors nor fluxlab's matcher, scenario, provider, pricing or fixture code", () => {
  const { packages, sources } = setupLoads({})
  expect(sources).toContain('src/jest.ts')
  expect(packages.filter((p) => ['msw', '@mswjs/interceptors', 'zod', 'yaml', 'jest-diff', 'jest-matcher-utils'].includes(p))).toEqual([])
  expect(sources.filter((s) => LATE.test(s))).toEqual([])
}, 30_000)

test('in whole-suite mode it loads the engine and the interceptors at once, as it intercepts from the first line', () => {
  const { packages, sources } = setupLoads({ FLUX_TEST_MODE: 'per-test' })
  expect(packages).toContain('@mswjs/interceptors')
  expect(sources).toContain('src/scenario/per-test.ts')
}, 30_000)

test('a matcher the jest setup registered loads the matcher code on its first call, where no fluxlab module handed it over', () => {
  // The real toNeverCall runs: it refuses a value that is not an outcome with its own message, not a fluxlab config error.
  const { said } = setupLoads({ FLUX_TEST_CALL: 'toNeverCall' })
  expect(said).toMatch(/toNeverCall/)
  expect(said).toMatch(/Outcome/)
  expect(said).not.toMatch(/FLUX_BAD_CONFIG|no error/)
}, 30_000)

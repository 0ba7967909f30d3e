/**
 * Issue 15: the compatibility matrix's representative subset, in `npm test` so it stays fixed. The two
 * vitest lines without `aroundEach` (3.2, and the oldest 4.0) and jest 30 + ts-jest are installed from their own lockfiles with the
 * packed package, record against the local provider, replay with the key unset and CI=1, and type-check; so do jest 30
 * over babel-jest with Babel 8 (llm-interface, in the field corpus, failed every file to load there), and a
 * Playwright cell whose app server forwards each request to a worker process
 * (`node scripts/compat.mjs --cells … --quick`; the whole matrix is `npm run test:compat`).
 * vitest 5 on Node 22 runs in full, with its declaration check (`skipLibCheck: false`): fluxlab's matcher
 * augmentation must merge with vitest 5's `Matchers<R, T>` as it does with 3.2–4.x's `Matchers<T>` (TS2428).
 * fluxlab's own msw forced to msw 3 (npm `overrides`, Node 22) runs in the subset too, and its lockfile is checked to
 * really put msw 3 under fluxlab (with msw 3's @mswjs/interceptors ≥ 0.42 beside fluxlab's own 0.41).
 * An install that fails (no registry, no npm cache) fails this test with the command, never skips it.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { assertBuilt, REPO } from './support/project.js'

/** Each cell with the tests and fixtures its run must have. */
const EXPECTED: Record<string, { tests: number; fixtures: number }> = {
  // Whole-suite UK and France, and the explicit scenario; the concurrent tests are refused on these versions.
  'vitest-3.2': { tests: 9, fixtures: 3 },
  'vitest-4.0.0': { tests: 9, fixtures: 3 },
  // preset: 'fluxlab' over the shared jest suite (ts-jest, module commonjs): UK, France, the explicit scenario.
  'jest-30-ts-jest': { tests: 5, fixtures: 3 },
  // The same suite over babel-jest and Babel 8, with no Babel config of fluxlab's: the preset turns msw's ESM-only
  // dependencies into CommonJS with its own transformer (sucrase), since Babel 8 refuses a Babel 7 plugin.
  'jest-30-babel8': { tests: 5, fixtures: 3 },
  // fluxlab's own msw forced to 3.x with npm overrides (Node 22): the whole shared vitest suite.
  'fluxlab-msw-3': { tests: 9, fixtures: 6 },
  // Playwright in Chromium, 2 workers: an app server whose front forwards each request to a worker process it forks;
  // each test's calls reach its own fixture through the forward (issue 27, decision 0014).
  'playwright-node-http-proxy': { tests: 4, fixtures: 3 },
}
const CELLS = Object.keys(EXPECTED)
const out = mkdtempSync(join(tmpdir(), 'fluxlab-compat-e2e-'))
afterAll(() => rmSync(out, { recursive: true, force: true }))

interface Row {
  cell: string
  install: string
  record: string
  replay: string
  typecheck: string
  libCheck: string
  libCheckErrors?: string[]
  tests: number
  fixtures?: number
  error?: string
}

/** `node scripts/compat.mjs <args> --json …`: its exit code, output and rows. */
async function compat(args: string[], name: string) {
  const json = join(out, `${name}.json`)
  const run = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['scripts/compat.mjs', ...args, '--json', json], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output }))
  })
  return { ...run, command: `node scripts/compat.mjs ${args.join(' ')}`, rows: () => JSON.parse(readFileSync(json, 'utf8')) as Row[] }
}

test(`the compatibility cells ${CELLS.join(', ')} record, replay with the same results, and type-check`, async () => {
  assertBuilt()
  const run = await compat(['--cells', CELLS.join(','), '--quick'], 'subset')
  const command = run.command
  expect(run.code, `\`${command}\` failed:\n${run.output}`).toBe(0)
  const rows = run.rows()
  expect(rows.map((r) => r.cell)).toEqual(CELLS)
  for (const r of rows) {
    expect(
      { cell: r.cell, install: r.install, record: r.record, replay: r.replay, typecheck: r.typecheck },
      `${r.cell}: ${r.error} (rerun: \`${command}\`)`,
    ).toEqual({
      cell: r.cell,
      install: 'pass',
      record: 'pass',
      replay: 'pass',
      typecheck: 'pass',
    })
    expect({ tests: r.tests, fixtures: r.fixtures }, r.cell).toEqual(EXPECTED[r.cell])
  }
}, 300_000)

test("the fluxlab-msw-3 cell's lockfile puts msw 3 under fluxlab, with msw 3's own @mswjs/interceptors ≥ 0.42", () => {
  const lock = JSON.parse(readFileSync(join(REPO, 'compat/cells/fluxlab-msw-3/package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> }
  // fluxlab's dependencies resolve from its own node_modules first, then the project's.
  const resolved = (name: string) => lock.packages[`node_modules/fluxlab/node_modules/${name}`] ?? lock.packages[`node_modules/${name}`]
  const interceptors = (at: string) => lock.packages[`${at}/node_modules/@mswjs/interceptors`] ?? lock.packages['node_modules/@mswjs/interceptors']
  const msw = lock.packages['node_modules/fluxlab/node_modules/msw'] ? 'node_modules/fluxlab/node_modules/msw' : 'node_modules/msw'
  const [major, minor] = (interceptors(msw)?.version ?? '0.0').split('.').map(Number)
  expect({ msw: resolved('msw')?.version.split('.')[0], mswInterceptorsFrom042: major > 0 || minor >= 42 }).toEqual({ msw: '3', mswInterceptorsFrom042: true })
  const own = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
  expect(resolved('@mswjs/interceptors')?.version).toBe(own.dependencies['@mswjs/interceptors'])
})

test("fluxlab's @mswjs/interceptors forced to msw 3's 0.45 line (npm overrides, Node 22) is refused with FLUX_BAD_CONFIG naming the override", async () => {
  assertBuilt()
  const run = await compat(['--cells', 'fluxlab-interceptors-0.45'], 'interceptors-0.45')
  expect(run.code, `\`${run.command}\` failed:\n${run.output}`).toBe(0)
  const [row] = run.rows() as Array<Row & { note?: string }>
  expect({ install: row.install, record: row.record, error: row.error }, `rerun: \`${run.command}\``).toEqual({
    install: 'pass',
    record: 'pass',
    error: undefined,
  })
  expect(row.note).toContain('FLUX_BAD_CONFIG: Failed to start intercepting requests')
  expect(row.note).toContain('"overrides": { "fluxlab": { "msw": "3.0.5" } }')
}, 300_000)

test("vitest 5 (Node 22): fluxlab's matcher types pass a full declaration check (skipLibCheck false, no TS2428)", async () => {
  assertBuilt()
  const run = await compat(['--cells', 'vitest-5'], 'vitest-5')
  expect(run.code, `\`${run.command}\` failed:\n${run.output}`).toBe(0)
  const [row] = run.rows()
  expect(
    { record: row.record, replay: row.replay, typecheck: row.typecheck, libCheck: row.libCheck, errors: row.libCheckErrors },
    `rerun: \`${run.command}\``,
  ).toEqual({
    record: 'pass',
    replay: 'pass',
    typecheck: 'pass',
    libCheck: 'pass',
    errors: undefined,
  })
}, 300_000)

test("the README's works-with table and the vitest and jest peer ranges are the tested cells", async () => {
  const run = await compat(['--check-readme'], 'readme')
  expect(run.code, `\`${run.command}\` failed:\n${run.output}`).toBe(0)
})

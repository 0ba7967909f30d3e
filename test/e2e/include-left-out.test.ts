/**
 * Whole-suite mode with `include` (docs/configuration.md, "Your own msw or nock mocks"): a test file the globs leave
 * out is not fluxlab's at all. Found on sweagent (bench/third-party): its setup fakes the providers with msw, and a
 * model call in a left-out file went to the file's own "(outside tests)" scenario instead, live while recording (a
 * network error here) and `FLUX_DIVERGED` on the next run. A covered file's model call made in a beforeAll is on its
 * file scenario, and the command its messages give carries the config the suite ran with. The same under jest.
 */
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startCapitalServer, type CapitalServer } from './support/capital-server.js'
import { assertBuilt, createProject, linkSelf, REPO, runJest, runVitest, type Project, type RunResult } from './support/project.js'

const KEY = 'sk-e2e-recording-key-not-real'
const TIMEOUT_MS = 60_000

let server: CapitalServer
let project: Project
let record: RunResult
const run = (json: string, env: Record<string, string>) =>
  runVitest(project, ['--config', 'vitest.include.config.ts', '--reporter=default', '--reporter=json', `--outputFile.json=${json}`], env, TIMEOUT_MS)
const ALL_PASSED = {
  'test/covered/file-scenario.test.ts > the beforeAll had its answer': 'passed',
  'test/faked/provider-fake.test.ts > the suite fake answers a model call in a beforeAll': 'passed',
  'test/faked/provider-fake.test.ts > the suite fake answers a model call in a test': 'passed',
}

beforeAll(async () => {
  assertBuilt()
  linkSelf()
  server = await startCapitalServer()
  project = createProject('vitest-app-mocks')
  record = await run('record.json', { PROVIDER_URL: server.url, OPENAI_API_KEY: KEY })
}, TIMEOUT_MS + 30_000)
afterAll(async () => {
  await server?.close()
  project?.remove()
})

test('recording: the left-out file keeps its own fake, and only the covered file has a fixture', () => {
  expect(record.code, record.output).toBe(0)
  expect(project.statuses('record.json')).toEqual(ALL_PASSED)
  expect(project.fixtureDirs()).toEqual([expect.stringMatching(/^test-covered-file-scenario-test--outside-tests-/)])
  expect(server.requests.filter((r) => r.kind === 'model')).toHaveLength(2)
})

test(
  'replay with the key unset and CI=1: the same results, nothing new written',
  async () => {
    const before = project.scenarioFiles()
    const r = await run('replay.json', { PROVIDER_URL: server.url, CI: '1' })
    expect(r.code, r.output).toBe(0)
    expect(project.statuses('replay.json')).toEqual(ALL_PASSED)
    expect(r.output).not.toMatch(/FLUX_DIVERGED|FLUX_NO_RECORDING|FLUX_OFFLINE/)
    expect(project.scenarioFiles()).toEqual(before)
  },
  TIMEOUT_MS + 10_000,
)

test(
  "a covered file's scenario missing under CI: the record command carries --config",
  async () => {
    for (const d of project.fixtureDirs()) rmSync(project.path(`tests/scenarios/${d}`), { recursive: true })
    const r = await run('missing.json', { PROVIDER_URL: server.url, CI: '1', OPENAI_API_KEY: KEY })
    expect(r.code).toBe(1)
    expect(r.output).toContain('npx vitest run --config vitest.include.config.ts test/covered/file-scenario.test.ts')
  },
  TIMEOUT_MS + 10_000,
)

test(
  'the same suite with the fakes covered: the recording says its model calls went past the msw fake',
  async () => {
    project.write(
      'vitest.all.config.ts',
      project.read('vitest.include.config.ts').replace("include: ['test/covered/**']", "include: ['test/covered/**', 'test/faked/**']"),
    )
    const r = await runVitest(project, ['--config', 'vitest.all.config.ts'], { PROVIDER_URL: server.url, OPENAI_API_KEY: KEY }, TIMEOUT_MS)
    // fluxlab answers the faked file's model call itself: live, to an address where nothing listens (the beforeAll's, which
    // fails, so the file's tests are skipped)
    expect(r.code).toBe(1)
    expect(r.output).toMatch(/⚠ 1 model call went live past your own msw or nock mocks: fluxlab answers a model call before them/)
    expect(r.output).toContain('leave its test files out with `include`')
  },
  TIMEOUT_MS + 10_000,
)

test(
  'jest: the left-out file keeps its own fake while recording and replaying, and has no fixture',
  async () => {
    const jest = createProject('jest-full-suite')
    try {
      jest.write('faked/provider-fake.test.cjs', readFileSync(join(REPO, 'test/e2e/projects/vitest-app-mocks/test/faked/provider-fake.test.cjs'), 'utf8'))
      jest.write(
        'jest.include.config.cjs',
        [
          'module.exports = {',
          "  preset: 'fluxlab',",
          "  globals: { fluxlab: { scenarios: 'per-test', include: ['test/**'] } },",
          '  rootDir: __dirname,',
          "  testMatch: ['**/test/agent.test.cjs', '**/faked/**/*.test.cjs'],",
          '  testTimeout: 20000,',
          '}',
          '',
        ].join('\n'),
      )
      const faked = /✓ the suite fake answers a model call in a (beforeAll|test)/g
      const rec = await runJest(jest, ['-c', 'jest.include.config.cjs', '--verbose'], { PROVIDER_URL: server.url, OPENAI_API_KEY: KEY }, TIMEOUT_MS)
      expect(rec.code, rec.output).toBe(0)
      expect(rec.output.match(faked)).toHaveLength(2)
      expect(jest.fixtureDirs().filter((d) => d.startsWith('faked-'))).toEqual([])
      expect(jest.fixtureDirs().length).toBeGreaterThan(0)
      const replay = await runJest(jest, ['-c', 'jest.include.config.cjs', '--verbose'], { PROVIDER_URL: server.url, CI: '1' }, TIMEOUT_MS)
      expect(replay.code, replay.output).toBe(0)
      expect(replay.output.match(faked)).toHaveLength(2)
      expect(replay.output).not.toMatch(/FLUX_DIVERGED|FLUX_NO_RECORDING|FLUX_OFFLINE/)
    } finally {
      jest.remove()
    }
  },
  2 * TIMEOUT_MS + 10_000,
)

/**
 * Issue 11 item 7: an app that mocks its own APIs with msw 2 (`setupServer`) or nock 14 keeps working
 * inside and outside fluxlab scenarios, recording and replaying, in explicit and whole-suite mode, with
 * its server listening before or after fluxlab's interception. The app's mocked answers are not recorded
 * (they answer again on replay); the model calls and the unmocked tool are fluxlab's.
 * Issue 24 item 5: so does the app's own `fetch` wrapper, installed after fluxlab loaded. In explicit mode it is
 * beneath fluxlab's patch: recording sends through it, so its answer is on the tape (fluxlab cannot tell it from
 * the network); elsewhere it is above fluxlab and answers again on replay.
 * @note runs in child vitest processes: an interception loop starves the event loop, so only a kill from
 * outside can turn it into a failure (`TIMEOUT_MS`) instead of a hung suite.
 */
import { readdirSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startCapitalServer, type CapitalServer } from './support/capital-server.js'
import { assertBuilt, createProject, linkSelf, runVitest, type Project, type RunResult } from './support/project.js'

const KEY = 'sk-e2e-recording-key-not-real'
/** One child run; a hang is killed at this point and fails the assertions below. */
const TIMEOUT_MS = 60_000

const MODES = [
  {
    mode: 'explicit mode (scenario(name).run)',
    config: 'vitest.config.ts',
    tests: {
      'test/explicit/msw.test.ts': 3,
      'test/explicit/msw-after.test.ts': 4,
      'test/explicit/nock.test.ts': 3,
      'test/explicit/wrapped-fetch.test.ts': 2,
      'test/explicit/wrapped-fetch-nock.test.ts': 3,
    },
    scenarios: ['msw-listening-after', 'msw-listening-first', 'msw-restarted', 'nock-app', 'wrapped-fetch', 'wrapped-fetch-nock'],
  },
  {
    mode: "whole-suite mode (scenarios: 'per-test')",
    config: 'vitest.suite.config.ts',
    tests: {
      'test/suite/msw.test.ts': 3,
      'test/suite/msw-per-test.test.ts': 3,
      'test/suite/nock.test.ts': 3,
      'test/suite/wrapped-fetch.test.ts': 3,
    },
    scenarios: 5,
  },
] as const

describe.each(MODES)('an app mocking its own APIs with msw 2, nock 14 and its own fetch wrapper, $mode', ({ config, tests, scenarios }) => {
  let server: CapitalServer
  let project: Project
  let record: RunResult
  let recorded: Record<string, string> = {}
  const run = (json: string, env: Record<string, string>) =>
    runVitest(project, ['--config', config, '--reporter=default', '--reporter=json', `--outputFile.json=${json}`], env, TIMEOUT_MS)

  beforeAll(async () => {
    assertBuilt()
    linkSelf()
    server = await startCapitalServer()
    project = createProject('vitest-app-mocks')
    record = await run('record.json', { PROVIDER_URL: server.url, OPENAI_API_KEY: KEY })
    if (project.exists('record.json')) recorded = project.statuses('record.json')
    await server.close()
  }, TIMEOUT_MS + 30_000)
  afterAll(() => project?.remove())

  test('recording: every test passes, the model calls reach the provider, the app mocks answer', () => {
    expect(record.code, `record run (killed after ${TIMEOUT_MS} ms if code is null):\n${record.output}`).toBe(0)
    const expected = Object.values(tests).reduce((a, b) => a + b, 0)
    expect(Object.values(recorded)).toEqual(Array(expected).fill('passed'))
    // msw lets the geo tool through to the provider server; nock answers it with its own scope.
    const modelCalls = server.requests.filter((r) => r.kind === 'model').length
    expect(modelCalls).toBe(2 * (typeof scenarios === 'number' ? scenarios : scenarios.length))
  })

  test("the fixtures hold the model calls and the tool the app let through, never the app's mocked answers", () => {
    const dirs = project.fixtureDirs().sort()
    if (typeof scenarios === 'number') expect(dirs).toHaveLength(scenarios)
    else expect(dirs).toEqual([...scenarios])
    for (const d of dirs) {
      const files = readdirSync(project.path(`tests/scenarios/${d}`))
      expect(project.read(`tests/scenarios/${d}/model.jsonl`).trim().split('\n')).toHaveLength(2)
      const tools = files.includes('tools.jsonl') ? project.read(`tests/scenarios/${d}/tools.jsonl`) : ''
      expect(tools).not.toContain('users.app.test')
      // The geo tool is recorded where the app's msw let it through, and is nock's own answer otherwise.
      expect(tools.includes('/geo/capital'), d).toBe(!d.includes('nock'))
      expect(tools.includes('flags.app.test'), d).toBe(d === 'wrapped-fetch')
      expect(project.read(`tests/scenarios/${d}/model.jsonl`)).not.toContain(KEY)
    }
  })

  test(
    'replay with the provider down, the key unset and CI=1: every test has its recorded result',
    async () => {
      const r = await run('replay.json', { PROVIDER_URL: server.url, CI: '1' })
      expect(r.code, `replay run (killed after ${TIMEOUT_MS} ms if code is null):\n${r.output}`).toBe(0)
      expect(project.statuses('replay.json')).toEqual(recorded)
      expect(server.hits).toBe(server.requests.length)
    },
    TIMEOUT_MS + 10_000,
  )
})

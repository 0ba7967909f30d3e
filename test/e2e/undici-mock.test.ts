/**
 * Issue 38 item 9: the app's own undici `MockAgent`, installed with `setGlobalDispatcher` and `disableNetConnect()` as
 * an OAuth suite does (Integrail/oneringai's `mockOAuthServer.ts`), is the app's mock, like its msw handlers: what it
 * answers is never keyed, recorded or refused, in whole-suite mode, recording and replaying under `FLUX_OFFLINE=1`;
 * an unmatched request fails with the mock's own error; a model call in the same test is still fluxlab's.
 * @note the model call goes out after the test puts the original dispatcher back: undici 7.30's MockAgent under Node 20's
 * global `fetch` sends an empty body for a `Request` built with bytes (`new Request(url, { body: Uint8Array })`, no
 * fluxlab involved), which is how a recording sends a model call live.
 * @note runs in child vitest processes (as app-mocks.test.ts), the app-mocks project with one more config and test file.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startCapitalServer, type CapitalServer } from './support/capital-server.js'
import { assertBuilt, createProject, linkSelf, runVitest, type Project, type RunResult } from './support/project.js'

const KEY = 'sk-e2e-recording-key-not-real'
const TIMEOUT_MS = 60_000

const CONFIG = `import { fluxlab } from 'fluxlab/vitest'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  plugins: [fluxlab({ scenarios: 'per-test' })],
  test: { include: ['test/undici/**/*.test.ts'], testTimeout: 20_000 },
})
`

// The suite as its authors wrote it: no fluxlab import, an OAuth token endpoint answered by undici's MockAgent.
const SUITE = `import { MockAgent, getGlobalDispatcher, request, setGlobalDispatcher, type Dispatcher } from 'undici'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { answer } from '../../src/app'

const TOKEN = 'https://oauth.app.test/token'
let agent: MockAgent
let original: Dispatcher
beforeEach(() => {
  original = getGlobalDispatcher()
  agent = new MockAgent()
  agent.disableNetConnect()
  setGlobalDispatcher(agent)
})
afterEach(() => setGlobalDispatcher(original))

const mockToken = (token: string) =>
  agent.get('https://oauth.app.test').intercept({ path: '/token', method: 'POST' }).reply(200, { access_token: token, token_type: 'Bearer' })

test('the token endpoint is answered by the app\\'s MockAgent over fetch', async () => {
  mockToken('from-the-mock')
  const res = await fetch(TOKEN, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=authorization_code&code=c1' })
  expect(await res.json()).toEqual({ access_token: 'from-the-mock', token_type: 'Bearer' })
})

test('the token endpoint is answered by the app\\'s MockAgent over undici.request', async () => {
  mockToken('from-the-mock-again')
  const res = await request(TOKEN, { method: 'POST', body: 'grant_type=refresh_token' })
  expect(await res.body.json()).toEqual({ access_token: 'from-the-mock-again', token_type: 'Bearer' })
})

test('a request the mock does not match fails with the mock\\'s own error', async () => {
  mockToken('unused')
  const error = await fetch('https://oauth.app.test/revoke', { method: 'POST' }).then(() => undefined, (e: Error) => e)
  expect((error?.cause as { code?: string } | undefined)?.code).toBe('UND_MOCK_ERR_MOCK_NOT_MATCHED')
  expect(String(error?.cause)).not.toContain('fluxlab')
})

test('a model call in a test that used the mock is recorded and replayed', async () => {
  mockToken('before-the-model')
  const token = await (await fetch(TOKEN, { method: 'POST' })).json()
  expect(token).toMatchObject({ access_token: 'before-the-model' })
  setGlobalDispatcher(original)
  expect(await answer('Ada')).toContain('London')
})
`

describe("whole-suite mode: the app's undici MockAgent on the global dispatcher answers first, in every mode", () => {
  let server: CapitalServer
  let project: Project
  let record: RunResult
  const run = (env: Record<string, string>) => runVitest(project, ['--config', 'vitest.undici.config.ts'], env, TIMEOUT_MS)

  beforeAll(async () => {
    assertBuilt()
    linkSelf()
    server = await startCapitalServer()
    project = createProject('vitest-app-mocks')
    project.write('vitest.undici.config.ts', CONFIG)
    project.write('test/undici/oauth.test.ts', SUITE)
    record = await run({ PROVIDER_URL: server.url, OPENAI_API_KEY: KEY })
    await server.close()
  }, TIMEOUT_MS + 30_000)
  afterAll(() => project?.remove())

  test('recording: every test passes; only the model test has a fixture, and no fixture names the mocked host', () => {
    expect(record.code, record.output).toBe(0)
    expect(record.output).toMatch(/4 passed/)
    expect(server.requests.filter((r) => r.kind === 'model')).toHaveLength(2)
    const dirs = project.fixtureDirs()
    expect(dirs).toHaveLength(1)
    for (const d of dirs)
      for (const f of ['model.jsonl', 'tools.jsonl'])
        if (project.exists(`tests/scenarios/${d}/${f}`)) expect(project.read(`tests/scenarios/${d}/${f}`)).not.toContain('oauth.app.test')
  })

  test(
    'replay with FLUX_OFFLINE=1, CI=1, the key unset and the provider down: every test passes, nothing is refused',
    async () => {
      const hits = server.hits
      const r = await run({ PROVIDER_URL: server.url, CI: '1', FLUX_OFFLINE: '1' })
      expect(r.code, r.output).toBe(0)
      expect(r.output).toMatch(/4 passed/)
      expect(r.output).not.toContain('FLUX_OFFLINE:')
      expect(server.hits).toBe(hits)
    },
    TIMEOUT_MS + 10_000,
  )
})

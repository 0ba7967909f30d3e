// jest only: jest has no per-test async context, so a scenario in `test.concurrent` is refused (SPEC §1).
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startCapitalServer, type CapitalServer } from './support/capital-server.js'
import { TIMEOUT, expectExit } from './support/modes.js'
import { assertBuilt, createProject, linkSelf, runJest, type Project } from './support/project.js'

let server: CapitalServer
let p: Project

beforeAll(async () => {
  assertBuilt()
  linkSelf()
  server = await startCapitalServer()
  p = createProject('jest-agent')
})
afterAll(async () => {
  await server.close()
  if (!process.env.E2E_KEEP) p.remove()
})

// @note jest-circus runs test.concurrent bodies without beforeEach/afterEach, so without the check they would
// record with no test context (no -u, no --ci, no end-of-test check); the setup detects them instead.
test(
  'a scenario in a jest test.concurrent test fails with FLUX_CONCURRENT_TEST, calls nothing and writes nothing',
  async () => {
    const r = await runJest(p, ['concurrent.test.cjs'], { PROVIDER_URL: server.url })
    expectExit(r, 1)
    expect(r.output).toContain('FLUX_CONCURRENT_TEST')
    expect(r.output).toContain('open a scenario in "answers for UK"')
    expect(r.output).toContain('open a scenario in "answers for France"')
    expect(r.output).toContain('Use `test` instead of `test.concurrent`')
    expect(r.output).toMatch(/Tests:\s+2 failed, 2 total/)
    expect(p.exists('tests/scenarios')).toBe(false)
    expect(server.hits).toBe(0)
  },
  TIMEOUT,
)

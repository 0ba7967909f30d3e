/**
 * Issue 24: a skipped test that has a fixture names the variable that closed its gate. The suite's gate reads a
 * second credential (`PAYMENTS_API_KEY`) whose value never reaches the model's wire, so the fixtures do not name it:
 * replayed with every key unset, the gated tests skip, and the run summary names that variable and the `keys` line
 * that opens the gate; with `FLUX_KEYS` set to it, the same replay runs them.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startCapitalServer } from './support/capital-server.js'
import { assertBuilt, createProject, linkSelf, runJest, runVitest, type Project, type RunResult } from './support/project.js'

const TIMEOUT = 150_000
const KEYS = { OPENAI_API_KEY: 'sk-e2e-recording-key-not-real', PAYMENTS_API_KEY: 'pk_live_e2e_9f8e7d6c5b4a3f2e' }

const KITS = [
  { name: 'vitest', template: 'vitest-suite', file: 'test/agent.test.ts', run: (p: Project, env: Record<string, string>) => runVitest(p, [], env) },
  { name: 'jest', template: 'jest-suite', file: 'test/agent.test.cjs', run: (p: Project, env: Record<string, string>) => runJest(p, [], env) },
] as const

describe.concurrent.each(KITS)('$name: a skip gate on a key that never reaches the wire', (kit) => {
  let project: Project
  let url: string

  beforeAll(async () => {
    assertBuilt()
    linkSelf()
    const server = await startCapitalServer()
    url = server.url
    project = createProject(kit.template)
    project.edit(kit.file, 'const hasKey = !!process.env.OPENAI_API_KEY\n', 'const hasKey = !!process.env.OPENAI_API_KEY && !!process.env.PAYMENTS_API_KEY\n')
    const r = await kit.run(project, { PROVIDER_URL: url, ...KEYS })
    expect(r.code, r.output).toBe(0)
    await server.close()
  }, TIMEOUT)
  afterAll(() => {
    if (!process.env.E2E_KEEP) project?.remove()
  })

  test('replayed with the keys unset, the gated tests skip, and the summary names PAYMENTS_API_KEY and the keys line', async ({ expect }) => {
    const r: RunResult = await kit.run(project, { PROVIDER_URL: url, CI: '1' })
    expect(r.code, r.output).toBe(0)
    const summary = r.output.slice(r.output.indexOf(' fluxlab  '))
    expect(summary).toMatch(/tests 1 passed, 0 failed, 2 skipped/)
    expect(summary).toContain('⚠ 2 skipped tests have a fixture')
    expect(summary).toContain('(its file read PAYMENTS_API_KEY unset)')
    expect(summary).toContain("keys: ['PAYMENTS_API_KEY'] (or FLUX_KEYS=PAYMENTS_API_KEY)")
    expect(summary).not.toContain('OPENAI_API_KEY')
    expect(r.output).not.toContain(KEYS.PAYMENTS_API_KEY)
  }, TIMEOUT)

  test('with FLUX_KEYS naming it, the replay runs them', async ({ expect }) => {
    const r = await kit.run(project, { PROVIDER_URL: url, CI: '1', FLUX_KEYS: 'PAYMENTS_API_KEY' })
    expect(r.code, r.output).toBe(0)
    expect(r.output.slice(r.output.indexOf(' fluxlab  '))).toMatch(/2 scenarios: 2 replayed, 0 recorded · tests 3 passed, 0 failed, 0 skipped/)
  }, TIMEOUT)
})

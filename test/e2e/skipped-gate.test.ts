/**
 * Issue 24: a skip gate on a key whose value never reaches the model's wire (`PAYMENTS_API_KEY` beside
 * `OPENAI_API_KEY`). The file read it, set, while it was collected, so its fixtures name it and the replay opens the
 * gate. Where the fixtures do not name it (an earlier recording), the gated tests skip on replay and the run summary
 * names the variable and the `keys` line that opens the gate, even when every test of the file is skipped; with
 * `FLUX_KEYS` set to it, the same replay runs them.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { rmSync } from 'node:fs'
import { startCapitalServer } from './support/capital-server.js'
import { assertBuilt, createProject, linkSelf, runJest, runVitest, type Project } from './support/project.js'

const TIMEOUT = 150_000
const KEYS = { OPENAI_API_KEY: 'sk-e2e-recording-key-not-real', PAYMENTS_API_KEY: 'pk_live_e2e_9f8e7d6c5b4a3f2e' }

const KITS = [
  {
    name: 'vitest',
    template: 'vitest-suite',
    file: 'test/agent.test.ts',
    noModelTest: "test('adds numbers without any model call', () => {\n  expect(1 + 1).toBe(2)\n})\n",
    run: (p: Project, env: Record<string, string>) => runVitest(p, [], env),
  },
  {
    name: 'jest',
    template: 'jest-suite',
    file: 'test/agent.test.cjs',
    noModelTest: "test('adds numbers without any model call', () => {\n  expect(1 + 1).toBe(2)\n})\n",
    run: (p: Project, env: Record<string, string>) => runJest(p, [], env),
  },
] as const

const summaryOf = (output: string) => output.slice(output.indexOf(' fluxlab  '))
const manifests = (p: Project) => p.fixtureDirs().map((d) => `tests/scenarios/${d}/scenario.yaml`)

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

  test(
    'the fixtures name it (the file read it while collected), so the replay with every key unset runs the gated tests',
    async ({ expect }) => {
      for (const m of manifests(project))
        expect((parseYaml(project.read(m)) as { keyVars: string[] }).keyVars, m).toEqual(['OPENAI_API_KEY', 'PAYMENTS_API_KEY'])
      const r = await kit.run(project, { PROVIDER_URL: url, CI: '1' })
      expect(r.code, r.output).toBe(0)
      expect(summaryOf(r.output)).toMatch(/2 scenarios: 2 replayed, 0 recorded · tests 3 passed, 0 failed, 0 skipped/)
    },
    TIMEOUT,
  )

  test(
    'where the fixtures do not name it, the skipped tests are named with it and the keys line, every test of the file skipped; FLUX_KEYS opens the gate',
    async ({ expect }) => {
      const p = createProject(kit.template)
      try {
        p.copyScenariosFrom(project)
        p.edit(kit.file, 'const hasKey = !!process.env.OPENAI_API_KEY\n', 'const hasKey = !!process.env.OPENAI_API_KEY && !!process.env.PAYMENTS_API_KEY\n')
        p.edit(kit.file, kit.noModelTest, '')
        for (const m of manifests(p)) p.edit(m, '  - PAYMENTS_API_KEY\n', '')
        // An earlier recording has no record of the file's key reads either (issue 38 item 4).
        rmSync(p.path('tests/scenarios/.files'), { recursive: true, force: true })
        const r = await kit.run(p, { PROVIDER_URL: url, CI: '1' })
        const summary = summaryOf(r.output)
        expect(summary, r.output).toMatch(/tests 0 passed, 0 failed, 2 skipped/)
        expect(summary).toContain('⚠ 2 skipped tests have a fixture')
        expect(summary).toContain('(its file read PAYMENTS_API_KEY unset)')
        expect(summary).toContain("keys: ['PAYMENTS_API_KEY'] (or FLUX_KEYS=PAYMENTS_API_KEY)")
        expect(summary).not.toContain('OPENAI_API_KEY')
        expect(r.output).not.toContain(KEYS.PAYMENTS_API_KEY)

        const opened = await kit.run(p, { PROVIDER_URL: url, CI: '1', FLUX_KEYS: 'PAYMENTS_API_KEY' })
        expect(opened.code, opened.output).toBe(0)
        expect(summaryOf(opened.output)).toMatch(/2 scenarios: 2 replayed, 0 recorded · tests 2 passed, 0 failed, 0 skipped/)
      } finally {
        if (!process.env.E2E_KEEP) p.remove()
      }
    },
    TIMEOUT,
  )
})

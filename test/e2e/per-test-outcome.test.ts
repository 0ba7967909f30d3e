/**
 * Whole-suite mode (issue 11 item 2): each test's Outcome is reachable with `testOutcome()`, in
 * the test body and in an `afterEach`, and the end-of-test check is configurable
 * (`endCheck` / FLUX_END_CHECK: 'failures' by default, 'strict', 'off'). Driven through a suite
 * project under real vitest and jest, recorded against the local provider and replayed offline.
 */
import { readdirSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startCapitalServer, type CapitalServer } from './support/capital-server.js'
import { assertBuilt, createProject, linkSelf, runJest, runVitest, type Project, type RunResult } from './support/project.js'

const TIMEOUT = 150_000
const KEY = 'sk-e2e-recording-key-not-real'
const ASSERT =
  "    expect(testOutcome().modelCalls).toHaveLength(2)\n    expect(testOutcome()).toCall(['get_capital'], { mode: 'superset' })\n    expect(testOutcome()).toReplayFaithfully()\n"

interface Kit {
  name: 'vitest' | 'jest'
  template: 'vitest-suite' | 'jest-suite'
  file: string
  importLine: string
  run(p: Project, env: Record<string, string>): Promise<RunResult>
}

const KITS: Kit[] = [
  {
    name: 'vitest',
    template: 'vitest-suite',
    file: 'test/agent.test.ts',
    importLine: "import { testOutcome } from 'fluxlab'\n",
    run: (p, env) => runVitest(p, [], env),
  },
  {
    name: 'jest',
    template: 'jest-suite',
    file: 'test/agent.test.cjs',
    importLine: "const { testOutcome } = require('fluxlab')\n",
    run: (p, env) => runJest(p, [], env),
  },
]

describe.each(KITS)('$name: testOutcome() and the end check in whole-suite mode', (kit) => {
  let server: CapitalServer
  let project: Project

  beforeAll(async () => {
    assertBuilt()
    linkSelf()
    server = await startCapitalServer()
    project = createProject(kit.template)
    // The test asserts on its own run in its body, and again in an afterEach that runs after fluxlab's (jest).
    project.write(kit.file, kit.importLine + project.read(kit.file))
    project.edit(kit.file, "toBe('The capital of the UK is London.')\n", "toBe('The capital of the UK is London.')\n" + ASSERT)
    project.write(
      kit.file,
      `${project.read(kit.file)}\nafterEach(() => {\n  if (process.env.OPENAI_API_KEY) expect(testOutcome().scenario).toMatch(/^test-agent-test--/)\n})\n`,
    )
    if (kit.name === 'vitest')
      project.edit(kit.file, "import { describe, expect, it, test } from 'vitest'", "import { afterEach, describe, expect, it, test } from 'vitest'")
    const r = await kit.run(project, { PROVIDER_URL: server.url, OPENAI_API_KEY: KEY })
    expect(r.code, r.output).toBe(0)
    await server.close()
  }, TIMEOUT)
  afterAll(() => project?.remove())

  test(
    'the Outcome is reachable while recording and on replay, in the body and in afterEach',
    async () => {
      const r = await kit.run(project, { PROVIDER_URL: server.url, CI: '1' })
      expect(r.code, r.output).toBe(0)
      expect(r.output).not.toContain('FLUX_')
    },
    TIMEOUT,
  )

  describe('a failure the test swallowed (an extra agent run past the tape, caught)', () => {
    const swallow = "\n    await ask('What is the capital of the UK? Use the tool, then answer.').catch(() => undefined)\n"
    const withSwallow = (p: Project) => p.edit(kit.file, ASSERT, swallow)

    test(
      'fails the test by default, naming the divergence',
      async () => {
        withSwallow(project)
        try {
          const r = await kit.run(project, { PROVIDER_URL: server.url, CI: '1' })
          expect(r.code, r.output).not.toBe(0)
          expect(r.output).toContain('FLUX_DIVERGED')
          expect(r.output).toContain('model_index_overflow')
        } finally {
          project.edit(kit.file, swallow, ASSERT)
        }
      },
      TIMEOUT,
    )

    test(
      "with FLUX_END_CHECK=off the test's own result stands and the report is printed",
      async () => {
        withSwallow(project)
        try {
          const r = await kit.run(project, { PROVIDER_URL: server.url, CI: '1', FLUX_END_CHECK: 'off' })
          expect(r.code, r.output).toBe(0)
          expect(r.output).toContain('model_index_overflow')
          expect(r.output).toContain("the fluxlab end check is 'off'")
        } finally {
          project.edit(kit.file, swallow, ASSERT)
        }
      },
      TIMEOUT,
    )
  })

  test(
    'a drifted prompt passes by default and fails with FLUX_END_CHECK=strict',
    async () => {
      const p = createProject(kit.template)
      try {
        p.copyScenariosFrom(project)
        p.write(kit.file, project.read(kit.file))
        p.edit(kit.file, 'What is the capital of France? Use the tool, then answer.', 'What is the capital of France? Use the tool, then answer briefly.')
        const lenient = await kit.run(p, { PROVIDER_URL: server.url, CI: '1' })
        expect(lenient.code, lenient.output).toBe(0)
        const strict = await kit.run(p, { PROVIDER_URL: server.url, CI: '1', FLUX_END_CHECK: 'strict' })
        expect(strict.code, strict.output).not.toBe(0)
        expect(strict.output).toContain("the end check is 'strict'")
        expect(strict.output).toContain('model_request_drift')
      } finally {
        p.remove()
      }
    },
    TIMEOUT,
  )

  test(
    'an unnamed scenario() inside a covered test gets a name of its own, so it replays',
    async () => {
      const p = createProject(kit.template)
      try {
        const fluxImport = kit.name === 'vitest' ? "import { scenario } from 'fluxlab'\n" : "const { scenario } = require('fluxlab')\n"
        p.write(kit.file, fluxImport + p.read(kit.file))
        p.edit(
          kit.file,
          "expect(await ask('What is the capital of the UK? Use the tool, then answer.')).toBe('The capital of the UK is London.')",
          "const out = await (await scenario()).run(() => ask('What is the capital of the UK? Use the tool, then answer.'))\n    expect(out.result).toBe('The capital of the UK is London.')",
        )
        const live = await startCapitalServer()
        const rec = await kit.run(p, { PROVIDER_URL: live.url, OPENAI_API_KEY: KEY })
        await live.close()
        expect(rec.code, rec.output).toBe(0)
        expect(readdirSync(p.path('tests/scenarios')).filter((d) => d.includes('--explicit-'))).toHaveLength(1)
        const replay = await kit.run(p, { PROVIDER_URL: live.url, CI: '1' })
        expect(replay.code, replay.output).toBe(0)
        expect(replay.output).not.toContain('unused_interaction')
      } finally {
        p.remove()
      }
    },
    TIMEOUT,
  )

  test(
    'an invalid FLUX_END_CHECK names the valid values',
    async () => {
      const r = await kit.run(project, { PROVIDER_URL: server.url, CI: '1', FLUX_END_CHECK: 'loud' })
      expect(r.code).not.toBe(0)
      expect(r.output).toContain('"loud" is not a valid value')
      expect(r.output).toContain("'strict'")
    },
    TIMEOUT,
  )
})

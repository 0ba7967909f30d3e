/**
 * Whole-suite mode (SPEC §2, issue 11 item 3): a model call made outside every test (module top
 * level, `beforeAll`) is recorded into the file's own scenario and replayed from it; where it can do
 * neither (CI with no fixture) it is refused with the command that records it. Never live silently.
 */
import { readdirSync, rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startCapitalServer, type CapitalServer } from './support/capital-server.js'
import { assertBuilt, createProject, linkSelf, runJest, runVitest, type Project, type RunResult } from './support/project.js'

const TIMEOUT = 150_000
const KEY = 'sk-e2e-recording-key-not-real'

interface Kit {
  name: 'vitest' | 'jest'
  template: 'vitest-suite' | 'jest-suite'
  file: string
  /** Make the suite ask the agent outside its tests, and assert on the answers in a test. */
  prepare(p: Project): void
  run(p: Project, env: Record<string, string>): Promise<RunResult>
}

const ASSERT = "\n  it('knows what was asked outside the tests', () => {\n    expect(warm).toContain('Rome')\n    expect(before).toContain('Tokyo')\n  })\n"

const KITS: Kit[] = [
  {
    name: 'vitest',
    template: 'vitest-suite',
    file: 'test/agent.test.ts',
    prepare: (p) => {
      p.edit('test/agent.test.ts', "import { describe, expect, it, test } from 'vitest'", "import { beforeAll, describe, expect, it, test } from 'vitest'")
      // A call at module top level (top-level await) and one in a beforeAll, both gated on the key.
      p.edit('test/agent.test.ts', "const hasKey = !!process.env.OPENAI_API_KEY\n", "const hasKey = !!process.env.OPENAI_API_KEY\nconst warm = hasKey ? await ask('What is the capital of Italy? Use the tool, then answer.') : ''\nlet before = ''\n")
      p.edit('test/agent.test.ts', "describe.skipIf(!hasKey)('capital agent', () => {\n", `describe.skipIf(!hasKey)('capital agent', () => {\n  beforeAll(async () => {\n    before = await ask('What is the capital of Japan? Use the tool, then answer.')\n  })\n${ASSERT}`)
    },
    run: (p, env) => runVitest(p, [], env),
  },
  {
    name: 'jest',
    template: 'jest-suite',
    file: 'test/agent.test.cjs',
    prepare: (p) => {
      p.edit('test/agent.test.cjs', "const describeIfKey = hasKey ? describe : describe.skip\n", "const describeIfKey = hasKey ? describe : describe.skip\nlet warm = ''\nlet before = ''\nbeforeAll(async () => {\n  if (hasKey) warm = await ask('What is the capital of Italy? Use the tool, then answer.')\n})\n")
      p.edit('test/agent.test.cjs', "describeIfKey('capital agent', () => {\n", `describeIfKey('capital agent', () => {\n  beforeAll(async () => {\n    before = await ask('What is the capital of Japan? Use the tool, then answer.')\n  })\n${ASSERT}`)
    },
    run: (p, env) => runJest(p, [], env),
  },
]

describe.each(KITS)('$name: model calls outside every test', (kit) => {
  let server: CapitalServer
  let project: Project
  const fileDir = () => readdirSync(project.path('tests/scenarios')).filter((d) => d.includes('--outside-tests-'))

  beforeAll(async () => {
    assertBuilt()
    linkSelf()
    server = await startCapitalServer()
    project = createProject(kit.template)
    kit.prepare(project)
    const r = await kit.run(project, { PROVIDER_URL: server.url, OPENAI_API_KEY: KEY })
    expect(r.code, r.output).toBe(0)
    await server.close()
  }, TIMEOUT)
  afterAll(() => project?.remove())

  test('are recorded into the file scenario, next to one fixture per test', () => {
    expect(fileDir()).toHaveLength(1)
    const cells = project.read(`tests/scenarios/${fileDir()[0]}/model.jsonl`).trim().split('\n')
    // Italy and Japan: two turns each.
    expect(cells).toHaveLength(4)
    expect(cells.join('\n')).toContain('Italy')
    expect(cells.join('\n')).toContain('Japan')
    expect(cells.join('\n')).not.toContain(KEY)
    expect(readdirSync(project.path('tests/scenarios'))).toHaveLength(3)
  })

  test('replay with the provider down, the key unset and CI=1 serves them from the file scenario', async () => {
    const r = await kit.run(project, { PROVIDER_URL: server.url, CI: '1' })
    expect(r.code, r.output).toBe(0)
    expect(r.output).not.toContain('FLUX_')
    expect(server.hits).toBe(server.requests.length)
  }, TIMEOUT)

  test('a recorded outside call the file no longer makes fails the file, naming the file scenario', async () => {
    const p = createProject(kit.template)
    try {
      kit.prepare(p)
      p.copyScenariosFrom(project)
      p.edit(kit.file, "before = await ask('What is the capital of Japan? Use the tool, then answer.')", "before = 'Tokyo'")
      const r = await kit.run(p, { PROVIDER_URL: server.url, CI: '1' })
      expect(r.code, r.output).not.toBe(0)
      expect(r.output).toContain('unused_interaction')
      expect(r.output).toContain('--outside-tests-')
    } finally {
      p.remove()
    }
  }, TIMEOUT)

  test('under CI with no file fixture they are refused with the command that records them', async () => {
    const p = createProject(kit.template)
    try {
      kit.prepare(p)
      p.copyScenariosFrom(project)
      rmSync(p.path(`tests/scenarios/${fileDir()[0]}`), { recursive: true })
      const r = await kit.run(p, { PROVIDER_URL: server.url, CI: '1' })
      expect(r.code, r.output).not.toBe(0)
      expect(r.output).toContain('FLUX_NO_RECORDING')
      expect(r.output).toContain(kit.name === 'vitest' ? `npx vitest run ${kit.file}` : `npx jest ${kit.file}`)
    } finally {
      p.remove()
    }
  }, TIMEOUT)
})

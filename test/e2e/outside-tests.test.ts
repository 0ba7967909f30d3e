/**
 * Whole-suite mode (SPEC §2, issue 11 item 3): a model call made outside every test (module top
 * level, `beforeAll`) is recorded into the file's own scenario and replayed from it; where it can do
 * neither (CI with no fixture) it is refused with the command that records it. Never live silently.
 *
 * Issue 38 item 8: a refusal outside every test is never silent. A file that reads its config over HTTP
 * outside its tests (vitest: module top level; jest: a `beforeAll`), refused under FLUX_OFFLINE with no
 * fixture, fails with the refusal's own message (no test fails for another reason on the answer it got),
 * and the run summary counts the file, with counts that are the runner's own.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readdirSync, rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startCapitalServer, type CapitalServer } from './support/capital-server.js'
import { assertBuilt, createProject, linkSelf, runJest, runVitest, type Project, type RunResult } from './support/project.js'
import { parseRunSummary } from './support/run-summary.js'

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
      p.edit(
        'test/agent.test.ts',
        'const hasKey = !!process.env.OPENAI_API_KEY\n',
        "const hasKey = !!process.env.OPENAI_API_KEY\nconst warm = hasKey ? await ask('What is the capital of Italy? Use the tool, then answer.') : ''\nlet before = ''\n",
      )
      p.edit(
        'test/agent.test.ts',
        "describe.skipIf(!hasKey)('capital agent', () => {\n",
        `describe.skipIf(!hasKey)('capital agent', () => {\n  beforeAll(async () => {\n    before = await ask('What is the capital of Japan? Use the tool, then answer.')\n  })\n${ASSERT}`,
      )
    },
    run: (p, env) => runVitest(p, [], env),
  },
  {
    name: 'jest',
    template: 'jest-suite',
    file: 'test/agent.test.cjs',
    prepare: (p) => {
      p.edit(
        'test/agent.test.cjs',
        'const describeIfKey = hasKey ? describe : describe.skip\n',
        "const describeIfKey = hasKey ? describe : describe.skip\nlet warm = ''\nlet before = ''\nbeforeAll(async () => {\n  if (hasKey) warm = await ask('What is the capital of Italy? Use the tool, then answer.')\n})\n",
      )
      p.edit(
        'test/agent.test.cjs',
        "describeIfKey('capital agent', () => {\n",
        `describeIfKey('capital agent', () => {\n  beforeAll(async () => {\n    before = await ask('What is the capital of Japan? Use the tool, then answer.')\n  })\n${ASSERT}`,
      )
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
    // Beside them, `.files/` keeps the key variables each test file read (issue 38 item 4).
    expect(project.fixtureDirs()).toHaveLength(3)
  })

  test(
    'replay with the provider down, the key unset and CI=1 serves them from the file scenario',
    async () => {
      const r = await kit.run(project, { PROVIDER_URL: server.url, CI: '1' })
      expect(r.code, r.output).toBe(0)
      expect(r.output).not.toContain('FLUX_')
      expect(server.hits).toBe(server.requests.length)
    },
    TIMEOUT,
  )

  test(
    'a recorded outside call the file no longer makes fails the file, naming the file scenario',
    async () => {
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
    },
    TIMEOUT,
  )

  test(
    'under CI with no file fixture they are refused with the command that records them',
    async () => {
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
    },
    TIMEOUT,
  )
})

interface ConfigKit {
  name: 'vitest' | 'jest'
  template: 'vitest-suite' | 'jest-suite'
  file: string
  text: string
  run(p: Project, env: Record<string, string>): Promise<RunResult>
}

const CONFIG_TESTS = `test('uses the configured model', () => {
  expect(config.model).toBe('gpt-4.1-mini')
})

test('adds numbers', () => {
  expect(1 + 1).toBe(2)
})
`

const CONFIG_KITS: ConfigKit[] = [
  {
    name: 'vitest',
    template: 'vitest-suite',
    file: 'test/config.test.ts',
    text: `import { expect, test } from 'vitest'\n\nconst config = (await (await fetch(\`\${process.env.CONFIG_URL}/config\`)).json()) as { model?: string }\n\n${CONFIG_TESTS}`,
    run: (p, env) => runVitest(p, ['test/config.test.ts', '--reporter=default', '--reporter=json', '--outputFile.json=report.json'], env),
  },
  {
    name: 'jest',
    template: 'jest-suite',
    file: 'test/config.test.cjs',
    text: `let config = {}\nbeforeAll(async () => {\n  config = await (await fetch(\`\${process.env.CONFIG_URL}/config\`)).json()\n})\n\n${CONFIG_TESTS}`,
    run: (p, env) => runJest(p, ['test/config.test.cjs', '--json', '--outputFile=report.json'], env),
  },
]

interface Report {
  numPassedTests: number
  numFailedTests: number
  numPendingTests: number
  testResults: Array<{ status: string; message: string; assertionResults: Array<{ title: string; status: string; failureMessages?: string[] }> }>
}

describe.concurrent.each(CONFIG_KITS)('$name: a request refused outside every test', (kit) => {
  let config: { url: string; hits: number; close(): Promise<void> }
  let project: Project

  beforeAll(async () => {
    assertBuilt()
    linkSelf()
    config = await startConfigServer()
    project = createProject(kit.template)
    project.write(kit.file, kit.text)
  }, TIMEOUT)
  afterAll(async () => {
    await config?.close()
    if (!process.env.E2E_KEEP) project?.remove()
  })

  test(
    "fails its file with the refusal's own message under FLUX_OFFLINE, and the summary counts the file",
    async ({ expect }) => {
      // Live (recording, nothing to record): the config answers and both tests pass.
      const live = await kit.run(project, { CONFIG_URL: config.url })
      expect(live.code, live.output).toBe(0)
      const before = config.hits
      expect(before).toBe(1)
      // The config service is outside the file's process tree, so its file scenario has a fixture of that read (issue 38,
      // item 10). Without one (the fetch came after the file was recorded), the replay has nothing to answer it with.
      const written = project.fixtureDirs()
      expect(written, live.output).toEqual([expect.stringMatching(/--outside-tests-[0-9a-f]{6}$/)])
      rmSync(project.path(`tests/scenarios/${written[0]}`), { recursive: true })

      const r = await kit.run(project, { CONFIG_URL: config.url, FLUX_OFFLINE: '1' })
      expect(r.code, r.output).not.toBe(0)
      expect(config.hits).toBe(before)
      const report = JSON.parse(project.read('report.json')) as Report
      const [file] = report.testResults
      const refusal = `[fluxlab] FLUX_OFFLINE: Failed to send GET ${new URL(config.url).host}/config`
      expect(file.status).toBe('failed')
      // No test fails for another reason on what the refused request was answered with.
      expect(r.output).not.toContain('expected undefined')
      if (kit.name === 'vitest') {
        // The file fails with the refusal (vitest shows it on the file) and its tests do not run.
        expect(file.message, r.output).toContain(refusal)
        // The refused fetch at module top level rejects (a network error carrying the refusal), so the file fails while it
        // is collected: the runner collects no test from it, and none runs on a wrong value.
        expect(file.assertionResults.map((a) => a.status)).toEqual([])
      } else {
        // jest fails each test of the file with the error its beforeAll met.
        for (const a of file.assertionResults) expect(a.failureMessages?.join('\n'), a.title).toContain(refusal)
        expect(file.assertionResults.map((a) => a.status)).toEqual(['failed', 'failed'])
      }
      const summary = parseRunSummary(r.output)
      expect(summary, r.output).toBeDefined()
      expect(summary!.line).toContain('test files failed outside their tests 1 (1 FLUX_OFFLINE)')
      expect(summary!.line).not.toContain('no scenarios ran')
      const failedWithIt = kit.name === 'jest' ? { FLUX_OFFLINE: report.numFailedTests } : {}
      expect(summary!.tests).toEqual({ passed: report.numPassedTests, failed: report.numFailedTests, skipped: report.numPendingTests, refusals: failedWithIt })
      expect(r.output).toContain(`${kit.file}, outside its tests: ${refusal}`)
    },
    TIMEOUT,
  )
})

/** The app's config service on 127.0.0.1: answers its model and counts its requests. */
async function startConfigServer(): Promise<{ url: string; hits: number; close(): Promise<void> }> {
  let hits = 0
  const server = createServer((_req, res) => {
    hits++
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"model":"gpt-4.1-mini"}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get hits() {
      return hits
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

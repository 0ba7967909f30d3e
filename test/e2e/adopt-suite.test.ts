/**
 * Issue 11: a suite written without fluxlab (key skip-gate, a client built at import that throws
 * without a key, a client built per call, `retry: 3`, a date in a prompt, a test with no model
 * call) adopted by two config lines. Recorded against the local provider, then replayed with the
 * provider down, the key unset and CI=1: every test has the same result as in the record run,
 * and none is skipped.
 */
import { readdirSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startCapitalServer, type CapitalServer } from './support/capital-server.js'
import { assertBuilt, createProject, linkSelf, runJest, runVitest, type Project, type RunResult } from './support/project.js'

const TIMEOUT = 150_000
const KEY = 'sk-e2e-recording-key-not-real'

interface JsonReport {
  numPassedTests: number
  numFailedTests: number
  numPendingTests: number
  testResults: Array<{ assertionResults: Array<{ fullName: string; status: string }> }>
}

const results = (p: Project, file: string): Record<string, string> =>
  Object.fromEntries((JSON.parse(p.read(file)) as JsonReport).testResults.flatMap((f) => f.assertionResults.map((a) => [a.fullName, a.status])))

interface Kit {
  name: 'vitest' | 'jest'
  template: 'vitest-suite' | 'jest-suite' | 'jest-esm-suite'
  file: string
  label?: string
  run(p: Project, json: string | undefined, env: Record<string, string>): Promise<RunResult>
  summary: RegExp
  /** Turn the template into this variant (another config file). */
  prepare?: (p: Project) => void
}

/** A jest config with its own reporters and setup file, adopted with `withFluxlab` instead of the preset. */
const WITH_FLUXLAB = `// The suite's own jest config, wrapped by the lines marked fluxlab.
const { withFluxlab } = require('fluxlab/jest-config') // fluxlab
module.exports = withFluxlab({ // fluxlab
  rootDir: __dirname,
  testMatch: ['**/test/**/*.test.cjs'],
  testTimeout: 20000,
  reporters: ['default'],
  setupFilesAfterEnv: ['<rootDir>/own-setup.cjs'],
}, { scenarios: 'per-test' }) // fluxlab
`

const KITS: Kit[] = [
  {
    name: 'vitest',
    template: 'vitest-suite',
    file: 'test/agent.test.ts',
    run: (p, json, env) => runVitest(p, json ? ['--reporter=default', '--reporter=json', `--outputFile.json=${json}`] : [], env),
    summary: /Tests\s+1 failed \| 3 passed/,
  },
  {
    name: 'jest',
    template: 'jest-suite',
    file: 'test/agent.test.cjs',
    run: (p, json, env) => runJest(p, json ? ['--json', `--outputFile=${json}`] : [], env),
    summary: /Tests:\s+1 failed, 3 passed/,
  },
  {
    name: 'jest',
    template: 'jest-suite',
    file: 'test/agent.test.cjs',
    run: (p, json, env) => runJest(p, json ? ['--json', `--outputFile=${json}`] : [], env),
    summary: /Tests:\s+1 failed, 3 passed/,
    prepare: (p) => {
      p.write('jest.config.cjs', WITH_FLUXLAB)
      p.write('own-setup.cjs', "globalThis.ownSetupRan = true\n")
      p.edit('test/agent.test.cjs', "test('adds numbers without any model call', () => {\n", "test('adds numbers without any model call', () => {\n  expect(globalThis.ownSetupRan).toBe(true)\n")
    },
  },
  {
    name: 'jest',
    label: 'native ESM jest',
    template: 'jest-esm-suite',
    file: 'test/agent.test.js',
    run: (p, json, env) => runJest(p, json ? ['--json', `--outputFile=${json}`] : [], { NODE_OPTIONS: '--experimental-vm-modules --no-warnings', ...env }),
    summary: /Tests:\s+1 failed, 3 passed/,
    // A test that also imports fluxlab's API (ESM, next to the preset's setup).
    prepare: (p) => {
      p.edit('test/agent.test.js', "import OpenAI from 'openai'\n", "import OpenAI from 'openai'\nimport { testOutcome } from 'fluxlab'\n")
      p.edit('test/agent.test.js', "toBe('The capital of the UK is London.')\n", "toBe('The capital of the UK is London.')\n    expect(testOutcome().modelCalls).toHaveLength(2)\n")
    },
  },
]

describe.each(KITS.map((k) => ({ ...k, label: k.label ?? (k.prepare ? `${k.name} (withFluxlab over its own config)` : k.name) })))('adopting fluxlab on an existing $label suite by config alone', (kit) => {
  let server: CapitalServer
  let project: Project
  let recorded: Record<string, string>

  beforeAll(async () => {
    assertBuilt()
    linkSelf()
    server = await startCapitalServer()
    project = createProject(kit.template)
    kit.prepare?.(project)
    const r = await kit.run(project, 'record.json', { PROVIDER_URL: server.url, OPENAI_API_KEY: KEY })
    expect(r.code, r.output).toBe(0)
    recorded = results(project, 'record.json')
    await server.close()
  }, TIMEOUT)
  afterAll(() => project?.remove())

  test('recording writes one fixture per test that called a model, none for the others, and no key', () => {
    expect(Object.values(recorded)).toEqual(['passed', 'passed', 'passed'])
    const dirs = readdirSync(project.path('tests/scenarios')).sort()
    expect(dirs).toHaveLength(2)
    expect(dirs.every((d) => /^test-agent-test--capital-agent-answers-.*-[0-9a-f]{6}$/.test(d)), dirs.join(', ')).toBe(true)
    for (const d of dirs) {
      expect(project.exists(`tests/scenarios/${d}/trace.snap`)).toBe(true)
      expect(project.read(`tests/scenarios/${d}/model.jsonl`)).not.toContain(KEY)
    }
  })

  test('replay with the key unset, the provider down and CI=1 gives every test its recorded result, none skipped', async () => {
    const r = await kit.run(project, 'replay.json', { PROVIDER_URL: server.url, CI: '1' })
    expect(r.code, r.output).toBe(0)
    expect(results(project, 'replay.json')).toEqual(recorded)
    expect((JSON.parse(project.read('replay.json')) as JsonReport).numPendingTests).toBe(0)
    // The run summary reporter is kept next to the project's own reporters.
    expect(r.output).toMatch(/ fluxlab {2}2 scenarios: 2 replayed, 0 recorded, 0 failed · hermetic 2\/2/)
    expect(server.hits).toBe(server.requests.length)
  }, TIMEOUT)

  test('under CI a new key-gated test with no fixture fails naming the command that records it, instead of passing on nothing', async () => {
    const p = createProject(kit.template)
    kit.prepare?.(p)
    try {
      p.copyScenariosFrom(project)
      p.edit(kit.file, "it('answers France", "it('answers Japan first', async () => {\n    expect(await ask('What is the capital of Japan? Use the tool, then answer.')).toContain('Tokyo')\n  })\n\n  it('answers France")
      const r = await kit.run(p, undefined, { PROVIDER_URL: server.url, CI: '1' })
      expect(r.code, r.output).not.toBe(0)
      expect(r.output).toContain('FLUX_NO_RECORDING')
      const cmd = kit.name === 'vitest' ? `npx vitest run ${kit.file}` : `npx jest ${kit.file}`
      expect(r.output).toContain(`${cmd} -t '^capital agent answers Japan first$'`)
      expect(r.output).toMatch(kit.summary)
    } finally {
      p.remove()
    }
  }, TIMEOUT)
})

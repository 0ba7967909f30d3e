/**
 * Issue 11: a suite written without fluxlab adopted by two config lines. The vitest and jest suites
 * have key skip-gates, a helper that throws at load without a key, a client built at import (it
 * throws there without a key) and one built per call, one client shared by two tests, `retry: 3`,
 * a date and a random temp path in prompts, a direct npm `undici` call, the app's own msw 2 server
 * answering a tool, and a test with no model call (the ESM jest suite has the first half). Recorded
 * against the local provider, then replayed with the provider down, the key unset and CI=1: every
 * test has the same result as in the record run, none is skipped, and the adopted project differs
 * from the suite as it was (`projects/unadopted/`) in added config lines only.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startCapitalServer, type CapitalServer } from './support/capital-server.js'
import { assertBuilt, createProject, linkSelf, REPO, runJest, runVitest, type Project, type RunResult } from './support/project.js'

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
  template: 'vitest-full-suite' | 'jest-full-suite' | 'jest-esm-suite'
  file: string
  label?: string
  run(p: Project, json: string | undefined, env: Record<string, string>): Promise<RunResult>
  summary: RegExp
  /** A full suite (with test/app.test.*): 6 tests, 5 fixtures, 2 drift warnings; else 3 tests, 2 fixtures, none. */
  full: boolean
  /** Add the README's fix for the random temp path (a `redact.replace` rule); absent: not tried on this kit. */
  fixTempPath?: (p: Project) => void
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
    template: 'vitest-full-suite',
    file: 'test/agent.test.ts',
    run: (p, json, env) => runVitest(p, json ? ['--reporter=default', '--reporter=json', `--outputFile.json=${json}`] : [], env),
    summary: /Tests\s+1 failed \| 6 passed/,
    full: true,
    fixTempPath: (p) =>
      p.edit(
        'vitest.config.ts',
        "fluxlab({ scenarios: 'per-test' })",
        "fluxlab({ scenarios: 'per-test', redact: { replace: [{ pattern: /\\S*capital-[0-9a-f-]{36}\\.txt/g, with: '<report file>' }] } })",
      ),
  },
  {
    name: 'jest',
    template: 'jest-full-suite',
    file: 'test/agent.test.cjs',
    run: (p, json, env) => runJest(p, json ? ['--json', `--outputFile=${json}`] : [], env),
    summary: /Tests:\s+1 failed, 6 passed/,
    full: true,
    // A RegExp does not survive jest's config serialisation: the rule goes in a setup file.
    fixTempPath: (p) => {
      p.write(
        'fluxlab.setup.cjs',
        "require('fluxlab').configure({ redact: { replace: [{ pattern: /\\S*capital-[0-9a-f-]{36}\\.txt/g, with: '<report file>' }] } })\n",
      )
      p.edit('jest.config.cjs', '  rootDir: __dirname,\n', "  rootDir: __dirname,\n  setupFilesAfterEnv: ['<rootDir>/fluxlab.setup.cjs'],\n")
    },
  },
  {
    name: 'jest',
    template: 'jest-full-suite',
    file: 'test/agent.test.cjs',
    run: (p, json, env) => runJest(p, json ? ['--json', `--outputFile=${json}`] : [], env),
    summary: /Tests:\s+1 failed, 6 passed/,
    full: true,
    prepare: (p) => {
      p.write('jest.config.cjs', WITH_FLUXLAB)
      p.write('own-setup.cjs', 'globalThis.ownSetupRan = true\n')
      p.edit(
        'test/agent.test.cjs',
        "test('adds numbers without any model call', () => {\n",
        "test('adds numbers without any model call', () => {\n  expect(globalThis.ownSetupRan).toBe(true)\n",
      )
    },
  },
  {
    name: 'jest',
    label: 'native ESM jest',
    template: 'jest-esm-suite',
    file: 'test/agent.test.js',
    run: (p, json, env) => runJest(p, json ? ['--json', `--outputFile=${json}`] : [], { NODE_OPTIONS: '--experimental-vm-modules --no-warnings', ...env }),
    summary: /Tests:\s+1 failed, 3 passed/,
    full: false,
    // A test that also imports fluxlab's API (ESM, next to the preset's setup).
    prepare: (p) => {
      p.edit('test/agent.test.js', "import OpenAI from 'openai'\n", "import OpenAI from 'openai'\nimport { testOutcome } from 'fluxlab'\n")
      p.edit(
        'test/agent.test.js',
        "toBe('The capital of the UK is London.')\n",
        "toBe('The capital of the UK is London.')\n    expect(testOutcome().modelCalls).toHaveLength(2)\n",
      )
    },
  },
]

// Concurrent: the kits (each its own projects and provider) record and replay side by side, two child runners at a time.
describe.concurrent.each(KITS.map((k) => ({ ...k, label: k.label ?? (k.prepare ? `${k.name} (withFluxlab over its own config)` : k.name) })))(
  'adopting fluxlab on an existing $label suite by config alone',
  (kit) => {
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
      // jest 30: one file's interception must not outlive it (it went on answering the next file's requests).
      expect(r.output).not.toContain('after it was soft deleted')
      recorded = results(project, 'record.json')
      await server.close()
    }, TIMEOUT)
    afterAll(() => project?.remove())

    test('recording passes every test and writes one fixture per test that called a model (both turns, the undici ones too), none for the others, and no key', ({
      expect,
    }) => {
      expect(Object.values(recorded)).toEqual(Array(kit.full ? 6 : 3).fill('passed'))
      const dirs = project.fixtureDirs().sort()
      const agent = /^test-agent-test--capital-agent-answers-.*-[0-9a-f]{6}$/
      const app = /^test-app-test--app-agent-answers-.*-[0-9a-f]{6}$/
      expect(dirs.filter((d) => agent.test(d))).toHaveLength(2)
      expect(dirs.filter((d) => app.test(d))).toHaveLength(kit.full ? 3 : 0)
      expect(dirs).toHaveLength(kit.full ? 5 : 2)
      for (const d of dirs) {
        expect(project.exists(`tests/scenarios/${d}/trace.snap`)).toBe(true)
        const model = project.read(`tests/scenarios/${d}/model.jsonl`)
        expect(model.trim().split('\n'), d).toHaveLength(2)
        expect(model).not.toContain(KEY)
      }
      if (!kit.full) return
      // The app's msw answered its own geo API, so that is not in a fixture (it answers again on replay).
      const italy = dirs.find((d) => d.includes('italy'))!
      const tools = project.exists(`tests/scenarios/${italy}/tools.jsonl`) ? project.read(`tests/scenarios/${italy}/tools.jsonl`) : ''
      expect(tools).not.toContain('geo.app.test')
      // The undici agent's tool went to the provider's geo service: a recorded tool cell.
      expect(project.read(`tests/scenarios/${dirs.find((d) => d.includes('undici'))!}/tools.jsonl`)).toContain('/geo/capital')
    })

    test(
      'replay with the key unset, the provider down and CI=1 gives every test its recorded result, none skipped',
      async ({ expect }) => {
        const r = await kit.run(project, 'replay.json', { PROVIDER_URL: server.url, CI: '1' })
        expect(r.code, r.output).toBe(0)
        expect(results(project, 'replay.json')).toEqual(recorded)
        expect((JSON.parse(project.read('replay.json')) as JsonReport).numPendingTests).toBe(0)
        // The run summary reporter is kept next to the project's own reporters.
        const n = kit.full ? 5 : 2
        expect(r.output).toMatch(
          new RegExp(
            ` fluxlab {2}${n} scenarios: ${n} replayed, 0 recorded · tests ${kit.full ? 6 : 3} passed, 0 failed, 0 skipped · hermetic ${n}/${n} · live model calls 0`,
          ),
        )
        const summary = r.output.slice(r.output.indexOf(' fluxlab  '))
        expect(summary).not.toMatch(/skipped test|[1-9]\d* skipped/)
        // The random temp path makes both requests of that one test differ from the recording: served by
        // position, each a drift warning (README: a `redact.replace` rule makes them match).
        expect(r.output).toContain(`drift warnings ${kit.full ? 2 : 0}`)
        expect(server.hits).toBe(server.requests.length)
      },
      TIMEOUT,
    )

    if (kit.fixTempPath)
      test(
        "the README's redact.replace rule for the temp path makes that test's requests match: no drift",
        async ({ expect }) => {
          const p = createProject(kit.template)
          const provider = await startCapitalServer()
          try {
            kit.fixTempPath!(p)
            const rec = await kit.run(p, undefined, { PROVIDER_URL: provider.url, OPENAI_API_KEY: KEY })
            expect(rec.code, rec.output).toBe(0)
            await provider.close()
            const r = await kit.run(p, undefined, { PROVIDER_URL: provider.url, CI: '1' })
            expect(r.code, r.output).toBe(0)
            expect(r.output).toContain('drift warnings 0')
            const japan = readdirSync(p.path('tests/scenarios')).find((d) => d.includes('japan'))!
            expect(p.read(`tests/scenarios/${japan}/model.jsonl`)).toContain('<report file>')
          } finally {
            await provider.close()
            p.remove()
          }
        },
        TIMEOUT,
      )

    test(
      'under CI a new key-gated test with no fixture fails naming the command that records it, instead of passing on nothing',
      async ({ expect }) => {
        const p = createProject(kit.template)
        kit.prepare?.(p)
        try {
          p.copyScenariosFrom(project)
          p.edit(
            kit.file,
            "it('answers France",
            "it('answers Japan first', async () => {\n    expect(await ask('What is the capital of Japan? Use the tool, then answer.')).toContain('Tokyo')\n  })\n\n  it('answers France",
          )
          const r = await kit.run(p, undefined, { PROVIDER_URL: server.url, CI: '1' })
          expect(r.code, r.output).not.toBe(0)
          expect(r.output).toContain('FLUX_NO_RECORDING')
          const cmd = kit.name === 'vitest' ? `npx vitest run ${kit.file}` : `npx jest ${kit.file}`
          expect(r.output).toContain(`${cmd} -t '^capital agent answers Japan first$'`)
          expect(r.output).toMatch(kit.summary)
        } finally {
          p.remove()
        }
      },
      TIMEOUT,
    )
  },
)

/** Every file under `dir`, relative to it. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort()
}

/** The lines of `after` that are not in `before` and the lines of `before` that are gone, by longest common subsequence. */
function lineDiff(before: string, after: string): { added: string[]; removed: string[] } {
  const a = before.split('\n')
  const b = after.split('\n')
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0))
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1])
  const added: string[] = []
  const removed: string[] = []
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) i++, j++
    else if (j < b.length && (i === a.length || lcs[i][j + 1] >= lcs[i + 1][j])) added.push(b[j++])
    else removed.push(a[i++])
  }
  return { added, removed }
}

describe.each([
  { template: 'vitest-full-suite', config: 'vitest.config.ts' },
  { template: 'jest-full-suite', config: 'jest.config.cjs' },
])('the adopted $template is the suite as it was plus config lines', ({ template, config }) => {
  const adopted = join(REPO, 'test/e2e/projects', template)
  const original = join(REPO, 'test/e2e/projects/unadopted', template)

  test('no file but the runner config differs, and the suite has every trait the adoption must survive', () => {
    expect(files(adopted).filter((f) => f !== 'README.md')).toEqual(files(original))
    for (const f of files(original)) if (f !== config) expect(readFileSync(join(adopted, f), 'utf8'), f).toBe(readFileSync(join(original, f), 'utf8'))
    const suite = files(original)
      .filter((f) => f !== config)
      .map((f) => readFileSync(join(original, f), 'utf8'))
      .join('\n')
    for (const trait of [
      /skipIf\(!(hasKey|process\.env\.OPENAI_API_KEY)\)|\? describe : describe\.skip/,
      /if \(!process\.env\.OPENAI_API_KEY\) throw/,
      /request\b.*from 'undici'|\{ request \} = require\('undici'\)/,
      /setupServer\(/,
      /retry: 3|retryTimes\(3\)/,
      /tmpdir\(\)/,
      /new Date\(\)/,
      /One client for the whole file/,
    ])
      expect(suite, String(trait)).toMatch(trait)
  })

  test('adopting it is at most 5 added config lines, none removed or changed', () => {
    const { added, removed } = lineDiff(readFileSync(join(original, config), 'utf8'), readFileSync(join(adopted, config), 'utf8'))
    expect(removed).toEqual([])
    expect(added.length).toBeGreaterThan(0)
    expect(added.length).toBeLessThanOrEqual(5)
    expect(
      added.every((l) => l.endsWith('// fluxlab')),
      added.join('\n'),
    ).toBe(true)
  })
})

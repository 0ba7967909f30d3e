/**
 * Issue 38 item 4, the runner's main process: a suite's `globalSetup` throws without `OPENAI_API_KEY` (as burnside's does),
 * and reads a second key it only passes on (`SEARCH_API_KEY`). Recorded with real-looking keys, then replayed offline with
 * every key unset (`CI=1`, `FLUX_OFFLINE=1`): the global setup finds the placeholders of `.files/(global-setup).yaml`, every
 * test keeps its status, a test body that reads the second key sees it unset as the shell has it (the main process's
 * placeholders never reach a worker), and no written file holds a key's value. Without the record, the replay fails with
 * the suite's own error and a warning that names the key, the record and `FLUX_GOLDEN=update`.
 */
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startCapitalServer } from './support/capital-server.js'
import { assertBuilt, createProject, linkSelf, runJest, runVitest, type Project, type RunResult } from './support/project.js'

const TIMEOUT = 180_000
const KEYS = { OPENAI_API_KEY: 'sk-proj-e2eGlobalSetupKey7f3a9c1d', SEARCH_API_KEY: 'srch_live_e2eGate4b8d2e6f0a1c' }
const RECORD = 'tests/scenarios/.files/(global-setup).yaml'
const GATE = 'OPENAI_API_KEY environment variable is required'
const REPLAY = { CI: '1', FLUX_OFFLINE: '1' }

const GATE_TESTS = `
test('the global setup ran with the search key', () => {
  expect(process.env.SEARCH_ENABLED).toBe('1')
})

test('a key read only in a test body is as the shell has it', () => {
  expect(String(process.env.SEARCH_API_KEY ?? '')).not.toContain('fluxlab-replay-no-key')
})
`
const GLOBAL_SETUP_BODY = `  if (!process.env.OPENAI_API_KEY) throw new Error('${GATE}')
  if (process.env.SEARCH_API_KEY) process.env.SEARCH_ENABLED = '1'
`

const KITS = [
  {
    name: 'native ESM jest (withFluxlab, an ESM default export)',
    template: 'jest-esm-suite',
    passed: /Tests:\s+5 passed, 5 total/,
    prepare(p: Project) {
      p.write(
        'jest.config.js',
        "import { withFluxlab } from 'fluxlab/jest-config'\n\n" +
          "const config = { testMatch: ['**/test/**/*.test.js'], transform: {}, testTimeout: 20000, globalSetup: './test/global-setup.js' }\n" +
          "export default withFluxlab(config, { scenarios: 'per-test' })\n",
      )
      p.write('test/global-setup.js', `export default async function globalSetup() {\n${GLOBAL_SETUP_BODY}}\n`)
      p.write('test/gate.test.js', `import { expect, test } from '@jest/globals'\n${GATE_TESTS}`)
    },
    run: (p: Project, env: Record<string, string>) => runJest(p, [], { NODE_OPTIONS: '--experimental-vm-modules --no-warnings', ...env }),
  },
  {
    name: 'CommonJS jest (withFluxlab in a project, module.exports)',
    template: 'jest-suite',
    passed: /Tests:\s+5 passed, 5 total/,
    prepare(p: Project) {
      p.write(
        'jest.config.cjs',
        "const { withFluxlab } = require('fluxlab/jest-config')\n\n" +
          'module.exports = {\n' +
          "  reporters: ['default', 'fluxlab/jest-reporter'],\n" +
          "  projects: [withFluxlab({ displayName: 'agent', rootDir: __dirname, testMatch: ['**/test/**/*.test.cjs'], testTimeout: 20000,\n" +
          "    globalSetup: '<rootDir>/test/global-setup.cjs' }, { scenarios: 'per-test' })],\n" +
          '}\n',
      )
      p.write('test/global-setup.cjs', `module.exports = async () => {\n${GLOBAL_SETUP_BODY}}\n`)
      p.write('test/gate.test.cjs', GATE_TESTS)
    },
    run: (p: Project, env: Record<string, string>) => runJest(p, [], env),
  },
  {
    name: 'vitest (the plugin, a globalSetup exporting setup)',
    template: 'vitest-suite',
    passed: /Tests\s+5 passed \(5\)/,
    prepare(p: Project) {
      p.edit('vitest.config.ts', "include: ['test/**/*.test.ts'],", "include: ['test/**/*.test.ts'], globalSetup: ['./test/global-setup.ts'],")
      p.write('test/global-setup.ts', `export function setup(): void {\n${GLOBAL_SETUP_BODY}}\n`)
      p.write('test/gate.test.ts', `import { expect, test } from 'vitest'\n${GATE_TESTS}`)
    },
    run: (p: Project, env: Record<string, string>) => runVitest(p, [], env),
  },
] as const

/** Every file the runs wrote under the project (node_modules and the runner's caches left out). */
function writtenFiles(p: Project): string[] {
  const out: string[] = []
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules') continue
      const full = join(dir, name)
      if (statSync(full).isDirectory()) walk(full)
      else out.push(full)
    }
  }
  walk(p.dir)
  return out
}

describe.concurrent.each(KITS)('$name: a global setup that needs a key', (kit) => {
  let project: Project
  let url: string
  let close: () => Promise<void>
  let recorded: RunResult

  beforeAll(async () => {
    assertBuilt()
    linkSelf()
    const server = await startCapitalServer()
    url = server.url
    close = server.close
    project = createProject(kit.template)
    kit.prepare(project)
    recorded = await kit.run(project, { PROVIDER_URL: url, ...KEYS })
  }, TIMEOUT)
  afterAll(async () => {
    await close?.()
    if (!process.env.E2E_KEEP) project?.remove()
  })

  test('recording keeps what the global setup read, names only, beside the fixtures', () => {
    expect(recorded.code, recorded.output).toBe(0)
    expect(recorded.output).toMatch(kit.passed)
    expect(project.read(RECORD)).toContain('file: "(global-setup)"\nkeyVars:\n  - OPENAI_API_KEY\n  - SEARCH_API_KEY\nunsetVars: []\n')
    expect(project.fixtureDirs()).toHaveLength(2)
  })

  test(
    'offline replay with every key unset runs every test as recorded, and no written file holds a key',
    async () => {
      const r = await kit.run(project, { PROVIDER_URL: url, ...REPLAY })
      expect(r.code, r.output).toBe(0)
      expect(r.output).toMatch(kit.passed)
      expect(r.output).not.toContain(GATE)
      expect(r.output).not.toContain('read OPENAI_API_KEY, which is unset')
      for (const file of writtenFiles(project)) {
        const text = readFileSync(file, 'latin1')
        for (const value of Object.values(KEYS)) expect(text.includes(value), `${file} holds a key`).toBe(false)
      }
      for (const value of Object.values(KEYS)) expect(r.output + recorded.output).not.toContain(value)
    },
    TIMEOUT,
  )

  test(
    "without the record, the replay fails with the suite's own error and a warning naming the key, the record and FLUX_GOLDEN=update",
    async () => {
      const p = createProject(kit.template)
      try {
        kit.prepare(p)
        p.copyScenariosFrom(project)
        rmSync(p.path(RECORD))
        const r = await kit.run(p, { PROVIDER_URL: url, ...REPLAY })
        expect(r.code, r.output).not.toBe(0)
        expect(r.output).toContain(GATE)
        const warning = "[fluxlab] The runner's main process (its globalSetup) read OPENAI_API_KEY, which is unset, and there is no "
        expect(r.output).toContain(`${warning}tests/scenarios/.files/(global-setup).yaml`)
        expect(r.output).toContain('FLUX_GOLDEN=update')
      } finally {
        if (!process.env.E2E_KEEP) p.remove()
      }
    },
    TIMEOUT,
  )
})

/**
 * The command fluxlab prints to record a test runs that test, whatever config started the run (found in the field
 * corpus, deepagents-template): a vitest config of its own name (`vitest.int.config.ts`), a callback that picks its
 * tests by `--mode`, two projects; a jest config of its own name (`jest -c jest.int.config.cjs`). Printed without
 * `--config`, `--mode`, `--project` or `-c`, the command found no test ("No test files found") or ran it under
 * another config.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startCapitalServer, type CapitalServer } from './support/capital-server.js'
import { assertBuilt, createProject, linkSelf, runCommandLine, runJest, runVitest, type Project } from './support/project.js'

const TIMEOUT = 150_000
const KEY = 'sk-e2e-rerun-command-key-not-real'

// A config of the project's own name that picks its tests by mode, with two projects: what `vitest run` alone never loads.
const CONFIG = `import { defineConfig } from 'vitest/config'
import { fluxlab } from 'fluxlab/vitest'

export default defineConfig(({ mode }) => ({
  plugins: [fluxlab({ scenarios: 'per-test' })],
  test: {
    testTimeout: 20_000,
    projects: [
      { extends: true, test: { name: 'int', include: mode === 'int' ? ['test/**/*.int.test.ts'] : [] } },
      { extends: true, test: { name: 'unit', include: ['test/**/*.unit.test.ts'] } },
    ],
  },
}))
`
const TEST = `import { describe, expect, it } from 'vitest'
import { ask } from '../src/agent'

describe.skipIf(!process.env.OPENAI_API_KEY)('capital', () => {
  it('answers the UK', async () => {
    expect(await ask('What is the capital of the UK? Use the tool, then answer.')).toBe('The capital of the UK is London.')
  })
})
`

describe('vitest: the command a refusal prints names the config, the mode and the project', () => {
  let project: Project
  let server: CapitalServer
  const ARGS = ['--config', 'vitest.int.config.ts', '--mode', 'int']

  beforeAll(async () => {
    assertBuilt()
    linkSelf()
    server = await startCapitalServer()
    project = createProject('vitest-suite')
    project.write('vitest.int.config.ts', CONFIG)
    project.write('test/capital.int.test.ts', TEST)
    project.write('test/sum.unit.test.ts', "import { expect, test } from 'vitest'\n\ntest('adds', () => expect(1 + 1).toBe(2))\n")
  }, TIMEOUT)
  afterAll(async () => {
    await server?.close()
    if (!process.env.E2E_KEEP) project?.remove()
  })

  test(
    'run from the project root, it runs that one test under the same config, mode and project, and records it',
    async () => {
      // under CI with no fixture, the model call is refused and the message says how to record it
      const refused = await runVitest(project, ARGS, { CI: '1', OPENAI_API_KEY: KEY, PROVIDER_URL: server.url })
      expect(refused.code, refused.output).toBe(1)
      const command = /Record it where provider keys are available with `([^`]+)`/.exec(refused.output)?.[1]
      expect(command, refused.output).toBe(
        "npx vitest run --config vitest.int.config.ts --mode int test/capital.int.test.ts -t '^capital answers the UK$' --project int",
      )

      const recorded = await runCommandLine(project, command!, { OPENAI_API_KEY: KEY, PROVIDER_URL: server.url, NPM_CONFIG_UPDATE_NOTIFIER: 'false' }, TIMEOUT)
      expect(recorded.code, recorded.output).toBe(0)
      expect(recorded.output).toMatch(/Tests {2}1 passed \(1\)/)
      expect(recorded.output).toMatch(/1 scenario: 0 replayed, 1 recorded/)
      expect(server.requests.filter((r) => r.kind === 'model')).toHaveLength(2)
      expect(project.fixtureDirs()).toHaveLength(1)

      // and the whole run now replays offline
      const before = server.hits
      const replay = await runVitest(project, ARGS, { CI: '1', FLUX_OFFLINE: '1', PROVIDER_URL: server.url })
      expect(replay.code, replay.output).toBe(0)
      expect(replay.output).toMatch(/1 scenario: 1 replayed, 0 recorded · tests 2 passed, 0 failed, 0 skipped/)
      expect(server.hits - before, 'requests the replay sent to the provider').toBe(0)
    },
    TIMEOUT,
  )
})

// The project's usual config runs its unit tests; the integration tests have a config of their own.
const JEST_CONFIG = `module.exports = {
  preset: 'fluxlab',
  globals: { fluxlab: { scenarios: 'per-test' } },
  rootDir: __dirname,
  testMatch: ['**/test/**/*.int.test.cjs'],
  testTimeout: 20000,
}
`
const JEST_TEST = `const { ask } = require('../src/agent.cjs')

const describeIfKey = process.env.OPENAI_API_KEY ? describe : describe.skip

describeIfKey('capital', () => {
  it('answers the UK', async () => {
    expect(await ask('What is the capital of the UK? Use the tool, then answer.')).toBe('The capital of the UK is London.')
  })
})
`

describe('jest: the command a refusal prints names the config jest was started with', () => {
  let project: Project
  let server: CapitalServer

  beforeAll(async () => {
    assertBuilt()
    linkSelf()
    server = await startCapitalServer()
    project = createProject('jest-suite')
    project.write('jest.int.config.cjs', JEST_CONFIG)
    project.write('test/capital.int.test.cjs', JEST_TEST)
  }, TIMEOUT)
  afterAll(async () => {
    await server?.close()
    if (!process.env.E2E_KEEP) project?.remove()
  })

  test(
    'run from the project root, it runs that one test under that config, and records it',
    async () => {
      const refused = await runJest(project, ['-c', 'jest.int.config.cjs'], { CI: '1', OPENAI_API_KEY: KEY, PROVIDER_URL: server.url })
      expect(refused.code, refused.output).toBe(1)
      const command = /Record it where provider keys are available with `([^`]+)`/.exec(refused.output)?.[1]
      expect(command, refused.output).toBe("npx jest -c jest.int.config.cjs test/capital.int.test.cjs -t '^capital answers the UK$'")

      const recorded = await runCommandLine(project, command!, { OPENAI_API_KEY: KEY, PROVIDER_URL: server.url, NPM_CONFIG_UPDATE_NOTIFIER: 'false' }, TIMEOUT)
      expect(recorded.code, recorded.output).toBe(0)
      expect(recorded.output).toMatch(/Tests: {7}1 passed, 1 total/)
      expect(recorded.output).toMatch(/1 scenario: 0 replayed, 1 recorded/)
      expect(project.fixtureDirs()).toHaveLength(1)

      const before = server.hits
      const replay = await runJest(project, ['-c', 'jest.int.config.cjs'], { CI: '1', FLUX_OFFLINE: '1', PROVIDER_URL: server.url })
      expect(replay.code, replay.output).toBe(0)
      expect(replay.output).toMatch(/1 scenario: 1 replayed, 0 recorded · tests 1 passed, 0 failed, 0 skipped/)
      expect(server.hits - before, 'requests the replay sent to the provider').toBe(0)
    },
    TIMEOUT,
  )
})

// `withFluxlab` over a config with a `preset`: the preset's transforms (ts-jest's) keep their files. jest puts the
// config's own transform patterns before the preset's and takes the first match, so a babel-jest fluxlab added in
// front of them took every `.ts` file from ts-jest and no test file of a ts-jest suite loaded (issue 24). And a
// config naming jest's `node` environment gets fluxlab's, which is that environment letting go of the interception
// as each test file ends (issue 24: `testEnvironment: 'node'` kept it, and the next files' requests went through it).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'

const require = createRequire(import.meta.url)
const { withFluxlab } = require('../../jest-config.cjs') as { withFluxlab(config: Record<string, unknown>): { transform?: Record<string, unknown> } }

const root = mkdtempSync(join(tmpdir(), 'fluxlab-jest-config-'))
const preset = (name: string, body: string) => {
  mkdirSync(join(root, 'node_modules', name), { recursive: true })
  writeFileSync(join(root, 'node_modules', name, 'package.json'), JSON.stringify({ name, version: '1.0.0' }))
  writeFileSync(join(root, 'node_modules', name, 'jest-preset.js'), body)
}
preset('ts-like', "module.exports = { transform: { '^.+\\\\.tsx?$': 'ts-jest' } }")
preset('env-only', "module.exports = { testEnvironment: 'node' }")
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** The transformers of the project's own files: every pattern but fluxlab's for msw's ESM-only dependencies in node_modules. */
const transformers = (config: Record<string, unknown>) =>
  Object.entries(withFluxlab({ rootDir: root, ...config }).transform ?? {})
    .filter(([pattern]) => !pattern.includes('node_modules'))
    .map(([, t]) => (Array.isArray(t) ? t[0] : t))

describe('withFluxlab and a preset', () => {
  test('a preset with transforms keeps them: fluxlab adds only its node_modules pattern, no babel-jest in front', () => {
    expect(transformers({ preset: 'ts-like' })).not.toContain('babel-jest')
  })
  test("a preset without transforms, or no preset, keeps jest's own babel-jest default", () => {
    expect(transformers({ preset: 'env-only' })).toContain('babel-jest')
    expect(transformers({})).toContain('babel-jest')
  })
  test('a preset that cannot be resolved gets no babel-jest in front of it either', () => {
    expect(transformers({ preset: 'not-installed-anywhere' })).not.toContain('babel-jest')
  })
  test("the config's own transform stays as it is", () => {
    expect(withFluxlab({ rootDir: root, preset: 'ts-like', transform: { '^.+\\.ts$': 'my-transformer' } }).transform).toMatchObject({
      '^.+\\.ts$': 'my-transformer',
    })
  })
})

describe('withFluxlab and the test environment', () => {
  const environment = (config: Record<string, unknown>) => (withFluxlab({ rootDir: root, ...config }) as { testEnvironment?: string }).testEnvironment
  const fluxlabs = expect.stringMatching(/[\\/]jest-environment\.cjs$/)
  test("jest's node environment, unnamed or named outright, is fluxlab's: the node environment that lets go of the interception as each file ends", () => {
    expect(environment({})).toEqual(fluxlabs)
    expect(environment({ testEnvironment: 'node' })).toEqual(fluxlabs)
    expect(environment({ testEnvironment: 'jest-environment-node' })).toEqual(fluxlabs)
  })
  test("an environment of the project's own stays as it is", () => {
    expect(environment({ testEnvironment: 'jsdom' })).toBe('jsdom')
    expect(environment({ testEnvironment: '<rootDir>/test/environment.cjs' })).toBe('<rootDir>/test/environment.cjs')
  })
})

// Issue 38 item 4: jest loads the config in its main process before the global setup, so `withFluxlab` opens the gate
// there: for the config's `globalSetup` and for each of its `projects`' (a project with its own `rootDir` has its own record).
describe('withFluxlab and a globalSetup', () => {
  const gate = require('../../dist/gate-keys.cjs') as { pauseGate(): void }
  const NAME = 'JEST_CONFIG_GATE_TEST_KEY'
  const recordIn = (dir: string) => {
    mkdirSync(join(dir, 'tests/scenarios/.files'), { recursive: true })
    writeFileSync(join(dir, 'tests/scenarios/.files/(global-setup).yaml'), `file: "(global-setup)"\nkeyVars:\n  - ${NAME}\nunsetVars: []\n`)
  }

  test("a project's global setup finds the placeholder its record names, until the reporter lets go; a config without one opens nothing", () => {
    const project = join(root, 'packages/api')
    recordIn(project)
    try {
      withFluxlab({ rootDir: root })
      expect(process.env[NAME]).toBeUndefined()
      withFluxlab({ rootDir: root, projects: [{ rootDir: 'packages/api', globalSetup: './global-setup.js' }] })
      expect(process.env[NAME]).toBe(`fluxlab-replay-no-key-${NAME}`)
      expect(process.env.FLUX_GATE_KEYS).toBe(NAME)
    } finally {
      gate.pauseGate()
    }
    expect(process.env[NAME]).toBeUndefined()
    expect(process.env.FLUX_GATE_KEYS).toBeUndefined()
  })
})

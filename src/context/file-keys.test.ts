import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { watchKeyReads } from './env-reads.js'
import { fileKeyVars, holdFileKeys } from './file-keys.js'

const roots: string[] = []
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true })
  delete process.env.FLUX_GOLDEN
  delete process.env.FILE_KEYS_TEST_A_KEY
  delete process.env.FILE_KEYS_TEST_LISTED
})

/** A project with fixtures: dir → [source file, manifest extra lines]. */
function project(fixtures: Record<string, [file: string, extra: string]>): string {
  const root = mkdtempSync(join(tmpdir(), 'flux-file-keys-'))
  roots.push(root)
  for (const [dir, [file, extra]] of Object.entries(fixtures)) {
    mkdirSync(join(root, 'tests/scenarios', dir), { recursive: true })
    writeFileSync(join(root, 'tests/scenarios', dir, 'scenario.yaml'), `formatVersion: 1\nname: ${dir}\nsource:\n  file: ${file}\n  name: a test\n${extra}`)
  }
  return root
}

describe('fileKeyVars', () => {
  test("collects the names of the test file's own fixtures only, falling back to the provider hosts of older ones", () => {
    const root = project({
      'test-a--one-1a2b3c': ['test/a.test.ts', 'keyVars:\n  - GROQ_API_KEY\n'],
      'nested/explicit-name': ['test/a.test.ts', 'keyVars:\n  - FIREWORKS_API_KEY\n'],
      'old-one': ['test/a.test.ts', 'providerHosts:\n  - api.anthropic.com\n'],
      'test-b--two-4d5e6f': ['test/b.test.ts', 'keyVars:\n  - OPENAI_API_KEY\n'],
      'other-a': ['test/other/a.test.ts', 'keyVars:\n  - XAI_API_KEY\n'],
    })
    const base = join(root, 'tests/scenarios')
    expect(fileKeyVars(base, root, join(root, 'test/a.test.ts'))).toEqual({ count: 3, keyVars: ['ANTHROPIC_API_KEY', 'FIREWORKS_API_KEY', 'GROQ_API_KEY'], suiteWide: false })
    expect(fileKeyVars(base, root, join(root, 'test/a.test.ts'), { suite: true })).toEqual({ count: 3, keyVars: ['ANTHROPIC_API_KEY', 'FIREWORKS_API_KEY', 'GROQ_API_KEY'], suiteWide: false })
    expect(fileKeyVars(base, root, join(root, 'test/c.test.ts'))).toEqual({ count: 0, keyVars: [], suiteWide: false })
    expect(fileKeyVars(base, root, join(root, 'test/c.test.ts'), { suite: true })).toEqual({ count: 0, keyVars: ['ANTHROPIC_API_KEY', 'FIREWORKS_API_KEY', 'GROQ_API_KEY', 'OPENAI_API_KEY', 'XAI_API_KEY'], suiteWide: true })
    expect(fileKeyVars(join(root, 'missing'), root, join(root, 'test/a.test.ts'))).toEqual({ count: 0, keyVars: [], suiteWide: false })
  })
})

describe('holdFileKeys', () => {
  test('fills the names and `keys` for a file with fixtures until released; a record run and a file without fixtures get none', () => {
    const root = project({ one: ['test/a.test.ts', 'keyVars:\n  - FILE_KEYS_TEST_A_KEY\n'] })
    const options = { keys: ['FILE_KEYS_TEST_LISTED'] }
    const held = holdFileKeys({ rootDir: root, testFile: join(root, 'test/a.test.ts'), options, updateState: 'new' })
    expect(held.fixtures).toBe(1)
    expect([process.env.FILE_KEYS_TEST_A_KEY, process.env.FILE_KEYS_TEST_LISTED]).toEqual(['fluxlab-replay-no-key-FILE_KEYS_TEST_A_KEY', 'fluxlab-replay-no-key-FILE_KEYS_TEST_LISTED'])
    held.release()
    expect(process.env.FILE_KEYS_TEST_A_KEY).toBeUndefined()

    expect(holdFileKeys({ rootDir: root, testFile: join(root, 'test/b.test.ts'), options, updateState: 'new' }).fixtures).toBe(0)
    expect(process.env.FILE_KEYS_TEST_LISTED).toBeUndefined()
    // Where nothing can record (CI), a file with no fixture loads with the suite's names: a client it builds at import works.
    const ci = holdFileKeys({ rootDir: root, testFile: join(root, 'test/b.test.ts'), options, updateState: 'none' })
    expect([ci.fixtures, process.env.FILE_KEYS_TEST_A_KEY]).toEqual([0, 'fluxlab-replay-no-key-FILE_KEYS_TEST_A_KEY'])
    ci.release()
    process.env.FLUX_GOLDEN = 'update'
    expect(holdFileKeys({ rootDir: root, testFile: join(root, 'test/a.test.ts'), options, updateState: 'new' }).fixtures).toBe(0)
    expect(process.env.FILE_KEYS_TEST_A_KEY).toBeUndefined()
  })
})

describe('watchKeyReads', () => {
  test('reports the credential-like variables read, set and unset (a placeholder is neither), and gives the environment back', () => {
    const holder = { env: { OPENAI_API_KEY: 'sk-x', EMPTY_TOKEN: '', GROQ_API_KEY: 'fluxlab-replay-no-key-GROQ_API_KEY' } as NodeJS.ProcessEnv }
    const original = holder.env
    const heard: string[] = []
    const stop = watchKeyReads(holder, (name) => heard.push(name))
    const env = holder.env
    void [env.OPENAI_API_KEY, env.FIREWORKS_API_KEY, env.EMPTY_TOKEN, env.NODE_DEBUG, env.GROQ_API_KEY, 'MY_GATEWAY_SECRET' in env, env.FIREWORKS_API_KEY]
    env.SET_LATER_KEY = 'v'
    expect(original.SET_LATER_KEY).toBe('v')
    expect(stop()).toEqual({ set: ['OPENAI_API_KEY'], unset: ['EMPTY_TOKEN', 'FIREWORKS_API_KEY', 'MY_GATEWAY_SECRET'] })
    expect(heard).toEqual(['FIREWORKS_API_KEY', 'EMPTY_TOKEN', 'MY_GATEWAY_SECRET'])
    expect(holder.env).toBe(original)
  })
})

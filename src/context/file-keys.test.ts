import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { watchKeyReads } from './env-reads.js'
import { fileKeyVars, fileRecordPath, holdFileKeys, readFileRecord } from './file-keys.js'
import { fileRecordKeeper } from './record-keeper.js'
import { keepFileRecord } from './file-record.js'

const roots: string[] = []
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true })
  delete process.env.FLUX_GOLDEN
  delete process.env.FILE_KEYS_TEST_A_KEY
  delete process.env.FILE_KEYS_TEST_LISTED
  delete process.env.FILE_KEYS_TEST_GATE_KEY
  delete process.env.FLUX_OFFLINE
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
    expect(fileKeyVars(base, root, join(root, 'test/a.test.ts'))).toEqual({
      count: 3,
      keyVars: ['ANTHROPIC_API_KEY', 'FIREWORKS_API_KEY', 'GROQ_API_KEY'],
      suiteWide: false,
    })
    expect(fileKeyVars(base, root, join(root, 'test/a.test.ts'), { suite: true })).toEqual({
      count: 3,
      keyVars: ['ANTHROPIC_API_KEY', 'FIREWORKS_API_KEY', 'GROQ_API_KEY'],
      suiteWide: false,
    })
    expect(fileKeyVars(base, root, join(root, 'test/c.test.ts'))).toEqual({ count: 0, keyVars: [], suiteWide: false })
    expect(fileKeyVars(base, root, join(root, 'test/c.test.ts'), { suite: true })).toEqual({
      count: 0,
      keyVars: ['ANTHROPIC_API_KEY', 'FIREWORKS_API_KEY', 'GROQ_API_KEY', 'OPENAI_API_KEY', 'XAI_API_KEY'],
      suiteWide: true,
    })
    expect(fileKeyVars(join(root, 'missing'), root, join(root, 'test/a.test.ts'))).toEqual({ count: 0, keyVars: [], suiteWide: false })
  })
})

describe('holdFileKeys', () => {
  test('fills the names and `keys` for a file with fixtures until released; a record run and a file without fixtures get none', () => {
    const root = project({ one: ['test/a.test.ts', 'keyVars:\n  - FILE_KEYS_TEST_A_KEY\n'] })
    const options = { keys: ['FILE_KEYS_TEST_LISTED'] }
    const held = holdFileKeys({ rootDir: root, testFile: join(root, 'test/a.test.ts'), options, updateState: 'new' })
    expect(held.fixtures).toBe(1)
    expect([process.env.FILE_KEYS_TEST_A_KEY, process.env.FILE_KEYS_TEST_LISTED]).toEqual([
      'fluxlab-replay-no-key-FILE_KEYS_TEST_A_KEY',
      'fluxlab-replay-no-key-FILE_KEYS_TEST_LISTED',
    ])
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

  test("over the real process.env, a variable set already can be set again (ts-jest's process.env.TS_JEST = '1' in jest's main process)", () => {
    const holder = { env: process.env }
    process.env.FILE_KEYS_TEST_FLAG = '1'
    const stop = watchKeyReads(holder)
    try {
      holder.env.FILE_KEYS_TEST_FLAG = '2'
      holder.env.FILE_KEYS_TEST_NEW = 'x'
      expect([process.env.FILE_KEYS_TEST_FLAG, process.env.FILE_KEYS_TEST_NEW]).toEqual(['2', 'x'])
    } finally {
      stop()
      delete process.env.FILE_KEYS_TEST_FLAG
      delete process.env.FILE_KEYS_TEST_NEW
    }
  })
})

describe("a test file's record of the key variables it read (issue 38 item 4)", () => {
  const reads = (keyVars: string[], unsetVars: string[] = []) => ({ keyVars, unsetVars })

  test('is written beside the fixtures, sorted, names only, and only when it changes; a replay fills its names before the file loads', () => {
    const root = project({})
    const base = join(root, 'tests/scenarios')
    const testFile = join(root, 'test/gated.test.ts')
    const { path, file } = fileRecordPath(base, root, testFile)
    expect([path.slice(root.length), file]).toEqual(['/tests/scenarios/.files/test__gated.test.ts.yaml', 'test/gated.test.ts'])
    keepFileRecord({
      base,
      rootDir: root,
      testFile,
      reads: reads(['FILE_KEYS_TEST_GATE_KEY', 'FILE_KEYS_TEST_A_KEY', 'FILE_KEYS_TEST_A_KEY'], ['NOT_SET_KEY']),
      exact: false,
    })
    const text = readFileSync(path, 'utf8')
    expect(text.split('\n').filter((l) => !l.startsWith('#'))).toEqual([
      'file: "test/gated.test.ts"',
      'keyVars:',
      '  - FILE_KEYS_TEST_A_KEY',
      '  - FILE_KEYS_TEST_GATE_KEY',
      'unsetVars:',
      '  - NOT_SET_KEY',
      '',
    ])
    expect(readFileRecord(text, file)).toEqual(reads(['FILE_KEYS_TEST_A_KEY', 'FILE_KEYS_TEST_GATE_KEY'], ['NOT_SET_KEY']))
    expect(readFileRecord(text, 'test/other.test.ts')).toBeUndefined()
    // Unchanged: not written again. A run that read no key set (its keys unset here) changes nothing.
    const written = statSync(path).mtimeMs
    keepFileRecord({ base, rootDir: root, testFile, reads: reads(['FILE_KEYS_TEST_GATE_KEY']), exact: false })
    keepFileRecord({ base, rootDir: root, testFile, reads: reads([], ['FILE_KEYS_TEST_GATE_KEY']), exact: false })
    expect([statSync(path).mtimeMs, readFileSync(path, 'utf8')]).toEqual([written, text])

    const held = holdFileKeys({ rootDir: root, testFile, options: {}, updateState: 'none' })
    expect([held.fixtures, process.env.FILE_KEYS_TEST_GATE_KEY, process.env.NOT_SET_KEY]).toEqual([
      0,
      'fluxlab-replay-no-key-FILE_KEYS_TEST_GATE_KEY',
      undefined,
    ])
    held.release()
    expect(process.env.FILE_KEYS_TEST_GATE_KEY).toBeUndefined()
  })

  test('a record run makes it exactly what the file read, and removes it when the file read no key', () => {
    const root = project({})
    const base = join(root, 'tests/scenarios')
    const testFile = join(root, 'test/gated.test.ts')
    const { path, file } = fileRecordPath(base, root, testFile)
    keepFileRecord({ base, rootDir: root, testFile, reads: reads(['FILE_KEYS_TEST_A_KEY', 'FILE_KEYS_TEST_GATE_KEY']), exact: false })
    keepFileRecord({ base, rootDir: root, testFile, reads: reads(['FILE_KEYS_TEST_GATE_KEY']), exact: true })
    expect(readFileRecord(readFileSync(path, 'utf8'), file)).toEqual(reads(['FILE_KEYS_TEST_GATE_KEY']))
    keepFileRecord({ base, rootDir: root, testFile, reads: reads([]), exact: true })
    expect(existsSync(path)).toBe(false)
  })

  test('a suite-wide placeholder is not given to a name the file read unset while recording', () => {
    const root = project({ one: ['test/a.test.ts', 'keyVars:\n  - FILE_KEYS_TEST_A_KEY\n  - FILE_KEYS_TEST_GATE_KEY\n'] })
    const base = join(root, 'tests/scenarios')
    const testFile = join(root, 'test/b.test.ts')
    keepFileRecord({ base, rootDir: root, testFile, reads: reads(['FILE_KEYS_TEST_A_KEY'], ['FILE_KEYS_TEST_GATE_KEY']), exact: false })
    const held = holdFileKeys({ rootDir: root, testFile, options: {}, updateState: 'none' })
    expect([process.env.FILE_KEYS_TEST_A_KEY, process.env.FILE_KEYS_TEST_GATE_KEY]).toEqual(['fluxlab-replay-no-key-FILE_KEYS_TEST_A_KEY', undefined])
    held.release()
  })

  test('the setups keep one only where the run can record: never under CI or FLUX_OFFLINE', async () => {
    const root = project({})
    const base = join(root, 'tests/scenarios')
    const testFile = join(root, 'test/gated.test.ts')
    expect(fileRecordKeeper({ base, rootDir: root, testFile, updateState: 'none' })).toBeUndefined()
    process.env.FLUX_OFFLINE = '1'
    expect(fileRecordKeeper({ base, rootDir: root, testFile, updateState: 'new' })).toBeUndefined()
    delete process.env.FLUX_OFFLINE
    const keeper = fileRecordKeeper({ base, rootDir: root, testFile, updateState: 'new' })!
    keeper.read('FILE_KEYS_TEST_GATE_KEY', true)
    keeper.read('OTHER_UNSET_KEY', false)
    await new Promise((resolve) => setTimeout(resolve, 200))
    const { path, file } = fileRecordPath(base, root, testFile)
    expect(readFileRecord(readFileSync(path, 'utf8'), file)).toEqual(reads(['FILE_KEYS_TEST_GATE_KEY'], ['OTHER_UNSET_KEY']))
  })
})

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { fileRecordPath, GLOBAL_SETUP, readFileRecord } from './file-keys.js'
import { keepFileRecord } from './file-record.js'
import { openGate, pauseGate, resumeGate } from './gate-keys.js'
import { dropGateKeys, GATE_ENV, replayKeyFor } from './replay-keys.js'

const roots: string[] = []
afterEach(() => {
  pauseGate()
  vi.restoreAllMocks()
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true })
  for (const k of ['FLUX_GOLDEN', 'GATE_TEST_A_KEY', 'GATE_TEST_B_TOKEN', 'GATE_TEST_OTHER_KEY', GATE_ENV]) delete process.env[k]
})

function root(): { root: string; base: string } {
  const r = mkdtempSync(join(tmpdir(), 'flux-gate-keys-'))
  roots.push(r)
  return { root: r, base: join(r, 'tests/scenarios') }
}
const record = (base: string, text: string) => {
  mkdirSync(join(base, '.files'), { recursive: true })
  writeFileSync(join(base, '.files', `${GLOBAL_SETUP}.yaml`), text)
}

describe("the record of what the runner's main process read (issue 38 item 4)", () => {
  test('is written as .files/(global-setup).yaml, names only, and read back', () => {
    const { root: r, base } = root()
    const testFile = join(r, GLOBAL_SETUP)
    const { path, file } = fileRecordPath(base, r, testFile)
    expect(path).toBe(join(base, '.files', '(global-setup).yaml'))
    const reads = { keyVars: ['GATE_TEST_B_TOKEN', 'GATE_TEST_A_KEY'], unsetVars: ['GATE_TEST_OTHER_KEY'] }
    keepFileRecord({ base, rootDir: r, testFile, reads, exact: false })
    const text = readFileSync(path, 'utf8')
    expect(text).toMatchInlineSnapshot(`
      "# fluxlab: the key variables the runner's main process (its globalSetup) read, recording (names only, never values).
      # A replay fills a placeholder for each of keyVars while the global setup runs; unsetVars were read unset.
      file: "(global-setup)"
      keyVars:
        - GATE_TEST_A_KEY
        - GATE_TEST_B_TOKEN
      unsetVars:
        - GATE_TEST_OTHER_KEY
      "
    `)
    expect(readFileRecord(text, file)).toEqual({ keyVars: ['GATE_TEST_A_KEY', 'GATE_TEST_B_TOKEN'], unsetVars: ['GATE_TEST_OTHER_KEY'] })
    expect(readFileRecord(text, 'test/a.test.ts')).toBeUndefined()
  })

  test('while recording, the key variables read set and unset go into it as they are read (names, never values)', async () => {
    const { root: r, base } = root()
    process.env.GATE_TEST_A_KEY = 'sk-gate-test-value-1234567890'
    openGate({ rootDir: r, updateState: 'new' })
    expect(process.env.GATE_TEST_A_KEY).toBe('sk-gate-test-value-1234567890')
    expect(process.env.GATE_TEST_OTHER_KEY).toBeUndefined()
    await new Promise((resolve) => setTimeout(resolve, 20))
    pauseGate()
    const text = readFileSync(join(base, '.files', '(global-setup).yaml'), 'utf8')
    expect(readFileRecord(text, GLOBAL_SETUP)).toEqual({ keyVars: ['GATE_TEST_A_KEY'], unsetVars: ['GATE_TEST_OTHER_KEY'] })
    expect(text).not.toContain('sk-gate-test-value')
  })

  test('under CI nothing is written', async () => {
    const { root: r, base } = root()
    process.env.GATE_TEST_A_KEY = 'sk-gate-test-value-1234567890'
    openGate({ rootDir: r, updateState: 'none' })
    expect(process.env.GATE_TEST_A_KEY).toBeDefined()
    await new Promise((resolve) => setTimeout(resolve, 20))
    pauseGate()
    expect(() => readFileSync(join(base, '.files', '(global-setup).yaml'))).toThrow()
  })
})

describe('the gate on replay', () => {
  test('fills exactly the names the record read set, until the workers start, and again for the teardown', () => {
    const { root: r, base } = root()
    record(base, 'file: "(global-setup)"\nkeyVars:\n  - GATE_TEST_A_KEY\nunsetVars:\n  - GATE_TEST_OTHER_KEY\n')
    openGate({ rootDir: r, updateState: 'none' })
    expect(process.env.GATE_TEST_A_KEY).toBe(replayKeyFor('GATE_TEST_A_KEY'))
    expect(process.env.GATE_TEST_OTHER_KEY).toBeUndefined()
    expect(process.env[GATE_ENV]).toBe('GATE_TEST_A_KEY')
    pauseGate()
    expect(process.env.GATE_TEST_A_KEY).toBeUndefined()
    expect(process.env[GATE_ENV]).toBeUndefined()
    resumeGate()
    expect(process.env.GATE_TEST_A_KEY).toBe(replayKeyFor('GATE_TEST_A_KEY'))
  })

  test('a record run fills none', () => {
    const { root: r, base } = root()
    record(base, 'file: "(global-setup)"\nkeyVars:\n  - GATE_TEST_A_KEY\nunsetVars: []\n')
    process.env.FLUX_GOLDEN = 'update'
    openGate({ rootDir: r, updateState: 'new' })
    expect(process.env.GATE_TEST_A_KEY).toBeUndefined()
  })

  test('warns once, naming the key, the record and FLUX_GOLDEN=update, when the global setup reads a key the record does not name', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const { root: r, base } = root()
    record(base, 'file: "(global-setup)"\nkeyVars:\n  - GATE_TEST_A_KEY\nunsetVars:\n  - GATE_TEST_OTHER_KEY\n')
    openGate({ rootDir: r, updateState: 'none' })
    void process.env.GATE_TEST_A_KEY
    void process.env.GATE_TEST_OTHER_KEY
    void process.env.GATE_TEST_B_TOKEN
    void process.env.GATE_TEST_B_TOKEN
    expect(warn).toHaveBeenCalledTimes(1)
    const text = String(warn.mock.calls[0]?.[0])
    expect(text).toContain("[fluxlab] The runner's main process (its globalSetup) read GATE_TEST_B_TOKEN, which is unset, and ")
    expect(text).toContain(join('.files', '(global-setup).yaml'))
    expect(text).toContain('FLUX_GOLDEN=update')
  })
})

describe('dropGateKeys', () => {
  test("removes the placeholders a worker inherited from the main process's gate, and nothing else", () => {
    const env: NodeJS.ProcessEnv = { [GATE_ENV]: 'GATE_TEST_A_KEY,GATE_TEST_B_TOKEN', GATE_TEST_A_KEY: replayKeyFor('GATE_TEST_A_KEY') }
    env.GATE_TEST_B_TOKEN = 'set-by-the-worker'
    dropGateKeys(env)
    expect(env).toEqual({ GATE_TEST_B_TOKEN: 'set-by-the-worker' })
  })
})

describe('a record run (FLUX_GOLDEN=update)', () => {
  test('makes the record exactly what the main process read, and removes it when it read no key', async () => {
    const { root: r, base } = root()
    record(base, 'file: "(global-setup)"\nkeyVars:\n  - GATE_TEST_A_KEY\n  - GATE_TEST_B_TOKEN\nunsetVars: []\n')
    process.env.FLUX_GOLDEN = 'update'
    process.env.GATE_TEST_A_KEY = 'sk-gate-test-value-1234567890'
    openGate({ rootDir: r, updateState: 'new' })
    void process.env.GATE_TEST_A_KEY
    pauseGate()
    await new Promise((resolve) => setTimeout(resolve, 20))
    const path = join(base, '.files', '(global-setup).yaml')
    expect(readFileRecord(readFileSync(path, 'utf8'), GLOBAL_SETUP)).toEqual({ keyVars: ['GATE_TEST_A_KEY'], unsetVars: [] })
    delete process.env.GATE_TEST_A_KEY
    openGate({ rootDir: r, updateState: 'new' })
    pauseGate()
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(() => readFileSync(path)).toThrow()
  })
})

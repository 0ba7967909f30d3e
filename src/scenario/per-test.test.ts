import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import type { TestContext } from '../context/types.js'
import { perTestMode } from '../context/options.js'
import { coversTest, openTestScenario } from './per-test.js'

const ctx = (testFile: string): TestContext => ({ runner: 'vitest', testName: 't', testFile, rootDir: '/repo', updateState: 'new', runs: [], opened: new Set() })

describe('perTestMode', () => {
  test('is off by default and under "explicit", on under "per-test", from the option or FLUX_SCENARIOS', () => {
    expect(perTestMode({}, {})).toBe(false)
    expect(perTestMode({ scenarios: 'explicit' }, { FLUX_SCENARIOS: 'per-test' })).toBe(false)
    expect(perTestMode({ scenarios: 'per-test' }, {})).toBe(true)
    expect(perTestMode({}, { FLUX_SCENARIOS: 'per-test' })).toBe(true)
  })

  test('an unknown value is FLUX_BAD_CONFIG listing the valid ones', () => {
    expect(() => perTestMode({}, { FLUX_SCENARIOS: 'all' })).toThrow(/FLUX_BAD_CONFIG: Failed to read FLUX_SCENARIOS: "all" is not a valid value\. Use one of: 'explicit'.*'per-test'/)
  })
})

describe('coversTest', () => {
  test('covers every test file without include, and only matching files with it', () => {
    expect(coversTest(ctx('/repo/test/a.test.ts'), { scenarios: 'per-test' })).toBe(true)
    const only = { scenarios: 'per-test' as const, include: ['test/agents/**', '*.e2e.ts'] }
    expect(coversTest(ctx('/repo/test/agents/deep/a.test.ts'), only)).toBe(true)
    expect(coversTest(ctx('/repo/x.e2e.ts'), only)).toBe(true)
    expect(coversTest(ctx('/repo/test/unit/a.test.ts'), only)).toBe(false)
    expect(coversTest(ctx('/repo/test/a.test.ts'), { scenarios: 'explicit' })).toBe(false)
  })
})

describe('openTestScenario with no fixture where recording is off', () => {
  // `.invalid` never resolves (RFC 2606): a request that slipped past the refusal fails to connect, never reaching a public address.
  const hosts = { 'api.vendor.invalid': 'openai-chat' as const }
  const refusing = () => {
    const test: TestContext = { ...ctx('/repo/test/a.test.ts'), rootDir: mkdtempSync(join(tmpdir(), 'flux-pt-')), updateState: 'none' }
    return openTestScenario(test, { hosts })
  }

  test('refuses a model call, and the test fails at its end even when it caught the error', async () => {
    const s = refusing()
    let status = 0
    await s.drive(async () => {
      status = (await fetch('https://api.vendor.invalid/v1/chat/completions', { method: 'POST', body: '{"model":"m","messages":[]}' })).status
    })
    expect(status).toBe(400)
    await expect(s.finish(true)).rejects.toThrow('FLUX_NO_RECORDING')
  })

  test('refuses a request to a provider host that is not a model call (a file upload), rather than sending it live', async () => {
    const s = refusing()
    let status = 0
    await s.drive(async () => {
      status = (await fetch('https://api.vendor.invalid/v1/files', { method: 'POST', body: '{"purpose":"batch"}' })).status
    })
    expect(status).toBe(400)
    await expect(s.finish(true)).rejects.toThrow('FLUX_NO_RECORDING')
  })
})

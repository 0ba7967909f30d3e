import { describe, expect, test } from 'vitest'
import type { TestContext } from '../context/types.js'
import { coversTest, perTestMode } from './per-test.js'

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

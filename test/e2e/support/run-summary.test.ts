import { describe, expect, test } from 'vitest'
import { parseRunSummary } from './run-summary.js'

describe('parseRunSummary', () => {
  test('reads the counts of the target format, refusals by code included', () => {
    const out =
      'Tests  3 failed | 9 passed\n\n fluxlab  6 scenarios: 6 replayed, 0 recorded · tests 9 passed, 3 failed (2 FLUX_NO_RECORDING), 7 skipped · hermetic 6/6 · live model calls 0 · drift warnings 0\n'
    expect(parseRunSummary(out)).toEqual({
      line: ' fluxlab  6 scenarios: 6 replayed, 0 recorded · tests 9 passed, 3 failed (2 FLUX_NO_RECORDING), 7 skipped · hermetic 6/6 · live model calls 0 · drift warnings 0',
      scenarios: 6,
      replayed: 6,
      recorded: 0,
      tests: { passed: 9, failed: 3, skipped: 7, refusals: { FLUX_NO_RECORDING: 2 } },
      liveModelCalls: 0,
      driftWarnings: 0,
    })
  })

  test('is tolerant of the parts whose wording is not fixed', () => {
    const line =
      ' fluxlab  1 scenario: 0 replayed, 1 recorded (0 with no call to record) · tests 4 passed, 2 failed (FLUX_NO_RECORDING ×1, FLUX_OFFLINE ×1), 1 skipped, 2 todo · hermetic 0/0 · live model calls 1'
    expect(parseRunSummary(line)).toMatchObject({
      scenarios: 1,
      recorded: 1,
      tests: { passed: 4, failed: 2, skipped: 3, refusals: { FLUX_NO_RECORDING: 1, FLUX_OFFLINE: 1 } },
      liveModelCalls: 1,
    })
  })

  test('has no tests part for a line without one, and nothing for output without a summary', () => {
    expect(parseRunSummary(' fluxlab  3 scenarios: 3 replayed, 0 recorded, 0 failed · hermetic 3/3 · live model calls 0')?.tests).toBeUndefined()
    expect(parseRunSummary('Tests  1 passed')).toBeUndefined()
  })
})

import { describe, expect, test } from 'vitest'
import type { TestContext } from '../context/types.js'
import { defaultName } from './names.js'

const ctx = (testFile: string, testName: string): TestContext => ({
  runner: 'vitest',
  testName,
  testFile,
  rootDir: '/repo',
  updateState: 'new',
  runs: [],
  opened: new Set(),
})

describe('defaultName', () => {
  test('is a slug of the file and the full test name with a short hash', () => {
    expect(defaultName(ctx('/repo/test/agent.test.ts', 'weather > answers in °C'))).toMatch(/^test-agent-test--weather-answers-in-c-[0-9a-f]{6}$/)
  })

  test('keeps the hash when the name is cut, so long names that share a prefix never share a fixture', () => {
    const long = 'the agent answers a long question about the weather in a city whose name is very long indeed and then'
    const a = defaultName(ctx('/repo/test/agent.test.ts', `${long} calls the forecast tool`))
    const b = defaultName(ctx('/repo/test/agent.test.ts', `${long} calls the history tool`))
    expect(a).not.toBe(b)
    expect(a.length).toBeLessThanOrEqual(120)
    expect(a).toMatch(/[a-z0-9]-[0-9a-f]{6}$/)
  })

  test('gives the second test of a file with the same full name a scenario of its own, and the first the name it always had', () => {
    const first = defaultName(ctx('/repo/test/raw.test.ts', 'raw response'))
    const second = defaultName({ ...ctx('/repo/test/raw.test.ts', 'raw response'), nth: 2 })
    const third = defaultName({ ...ctx('/repo/test/raw.test.ts', 'raw response'), nth: 3 })
    expect(defaultName({ ...ctx('/repo/test/raw.test.ts', 'raw response'), nth: 1 })).toBe(first)
    expect(second).toMatch(/^test-raw-test--raw-response--2-[0-9a-f]{6}$/)
    expect(new Set([first, second, third]).size).toBe(3)
  })

  test("inside a vitest test without fluxlab's setup, says the plugin is missing and how to add it", () => {
    // This file runs under vitest without the fluxlab plugin: exactly that misconfiguration.
    expect(() => defaultName(undefined)).toThrow(
      /fluxlab's setup is not installed in this test run.*Add the plugin to vitest.config: `plugins: \[fluxlab\(\)\]`/,
    )
  })
})

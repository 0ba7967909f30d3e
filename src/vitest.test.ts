import { describe, expect, test } from 'vitest'
import { fluxlab } from './vitest.js'

type TestConfig = { setupFiles?: string | string[]; globalSetup?: string | string[] }
const configured = (test: TestConfig): TestConfig => {
  const config = { test }
  ;(fluxlab().config as (c: object) => unknown)(config)
  return config.test
}

describe('the fluxlab() plugin around a global setup (issue 38 item 4)', () => {
  test("puts its own global setup before the project's and one after it", () => {
    const globalSetup = configured({ globalSetup: './test/global-setup.ts' }).globalSetup as string[]
    expect(globalSetup).toHaveLength(3)
    expect(globalSetup[0]).toMatch(/vitest-global-setup\.(ts|js)$/)
    expect(globalSetup[1]).toBe('./test/global-setup.ts')
    expect(globalSetup[2]).toMatch(/vitest-global-setup-end\.(ts|js)$/)
  })

  test('adds none to a project without one, and none twice', () => {
    expect(configured({}).globalSetup).toBeUndefined()
    const once = configured({ globalSetup: ['./a.ts', './b.ts'] })
    expect(configured(once).globalSetup).toEqual(once.globalSetup)
    expect(once.globalSetup).toHaveLength(4)
  })
})

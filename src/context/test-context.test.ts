import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { testRef } from './test-context.js'
import type { TestContext } from './types.js'

const playwright = (configDir: string): TestContext => ({
  runner: 'playwright',
  testName: 'chat > answers',
  testFile: join(configDir, 'tests/chat.spec.ts'),
  rootDir: configDir,
  config: join(configDir, 'playwright.config.ts'),
  updateState: 'new',
  runs: [],
  opened: new Set(),
})

const vitest = (config: string, mode?: string): TestContext => ({
  runner: 'vitest',
  testName: 'a > b',
  testFile: join(process.cwd(), 'test/a.int.test.ts'),
  rootDir: process.cwd(),
  config,
  ...(mode ? { mode } : {}),
  updateState: 'new',
  runs: [],
  opened: new Set(),
})

describe('testRef', () => {
  test('names a Playwright config in a subfolder of the working directory, its test file relative to the config', () => {
    expect(testRef(playwright(join(process.cwd(), 'e2e')))).toEqual({
      runner: 'playwright',
      file: 'tests/chat.spec.ts',
      name: 'chat > answers',
      config: 'e2e/playwright.config.ts',
    })
  })

  test('leaves out a Playwright config in the working directory, where Playwright finds it itself', () => {
    expect(testRef(playwright(process.cwd()))).toEqual({ runner: 'playwright', file: 'tests/chat.spec.ts', name: 'chat > answers' })
  })

  test('names a config of another name in the working directory, which the runner does not find by itself', () => {
    const cwd = process.cwd()
    expect(testRef({ ...playwright(cwd), config: join(cwd, 'playwright.ci.config.ts') }).config).toBe('playwright.ci.config.ts')
    expect(testRef(vitest(join(cwd, 'vitest.int.config.ts'), 'int'))).toEqual({
      runner: 'vitest',
      file: 'test/a.int.test.ts',
      name: 'a > b',
      config: 'vitest.int.config.ts',
      mode: 'int',
    })
    for (const name of ['vitest.config.ts', 'vite.config.mjs', 'vitest.config.cjs']) expect(testRef(vitest(join(cwd, name))).config).toBeUndefined()
    expect(testRef(vitest(join(cwd, 'packages/app/vitest.config.ts'))).config).toBe('packages/app/vitest.config.ts')
  })
})

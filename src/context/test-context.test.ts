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
})

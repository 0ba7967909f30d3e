import { describe, expect, test } from 'vitest'
import { rerunCommand, testCommand } from './command.js'

describe('testCommand', () => {
  test('names the runner, the file and the test, anchored and escaped', () => {
    expect(testCommand({ runner: 'vitest', file: 'test/agent.test.ts', name: 'weather > answers (in °C)' }, 'FLUX_GOLDEN=update')).toBe(
      "FLUX_GOLDEN=update npx vitest run test/agent.test.ts -t '^weather answers \\(in °C\\)$'",
    )
    expect(testCommand({ runner: 'jest', file: 'test/agent.test.cjs', name: "it's done" })).toBe("npx jest test/agent.test.cjs -t '^it'\\''s done$'")
  })

  test('keeps native ESM jest native: the flag the run had goes in front of the command', () => {
    const before = process.env.NODE_OPTIONS
    process.env.NODE_OPTIONS = '--max-old-space-size=4096 --experimental-vm-modules'
    try {
      expect(testCommand({ runner: 'jest', file: 'test/a.test.js', name: 'x' }, 'FLUX_GOLDEN=update')).toBe(
        "FLUX_GOLDEN=update NODE_OPTIONS=--experimental-vm-modules npx jest test/a.test.js -t '^x$'",
      )
    } finally {
      if (before === undefined) delete process.env.NODE_OPTIONS
      else process.env.NODE_OPTIONS = before
    }
    expect(testCommand({ runner: 'jest', file: 'test/a.test.js', name: 'x' })).toBe("npx jest test/a.test.js -t '^x$'")
  })

  test('gives both runners when the fixture does not say which recorded it', () => {
    expect(testCommand({ file: 'a.test.ts', name: 'x' }, 'FLUX_GOLDEN=update')).toBe(
      "FLUX_GOLDEN=update npx vitest run a.test.ts -t '^x$' (or FLUX_GOLDEN=update npx jest a.test.ts -t '^x$')",
    )
  })

  test('names a Playwright config that is not in the working directory, so the command runs the test with it', () => {
    expect(
      testCommand({ runner: 'playwright', file: 'tests/chat.spec.ts', name: 'chat > answers', config: 'e2e/playwright.config.ts' }, 'FLUX_GOLDEN=update'),
    ).toBe("FLUX_GOLDEN=update npx playwright test -c e2e/playwright.config.ts tests/chat.spec.ts -g 'chat answers$'")
    expect(testCommand({ runner: 'jest', file: 'a.test.ts', name: 'x', config: 'jest.int.config.js' })).toBe(
      "npx jest -c jest.int.config.js a.test.ts -t '^x$'",
    )
  })

  test('names a vitest config and mode, so the command runs the test under the config and mode that found it', () => {
    expect(testCommand({ runner: 'vitest', file: 'test/a.int.test.ts', name: 'x', config: 'vitest.int.config.ts', mode: 'int' }, 'FLUX_GOLDEN=update')).toBe(
      "FLUX_GOLDEN=update npx vitest run --config vitest.int.config.ts --mode int test/a.int.test.ts -t '^x$'",
    )
  })

  test('names the project of a config with several, so the command runs the test in that project only', () => {
    expect(
      testCommand(
        { runner: 'playwright', file: 'tests/chat.spec.ts', name: 'answers', config: 'e2e/playwright.config.ts', project: 'mobile chrome' },
        'FLUX_GOLDEN=update',
      ),
    ).toBe("FLUX_GOLDEN=update npx playwright test -c e2e/playwright.config.ts tests/chat.spec.ts -g 'answers$' --project 'mobile chrome'")
    expect(testCommand({ runner: 'vitest', file: 'a.test.ts', name: 'x', project: 'node' })).toBe("npx vitest run a.test.ts -t '^x$' --project node")
  })

  test('quotes a file path with spaces', () => {
    expect(testCommand({ runner: 'vitest', file: 'my tests/a.test.ts' })).toBe("npx vitest run 'my tests/a.test.ts'")
  })
})

describe('rerunCommand', () => {
  test('without a test, is the command line of this process', () => {
    const cmd = rerunCommand('FLUX_GOLDEN=update')
    expect(cmd.startsWith('FLUX_GOLDEN=update node ')).toBe(true)
    expect(cmd).not.toContain('<')
  })
})

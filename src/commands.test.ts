import { describe, expect, test } from 'vitest'
import { rerunCommand, testCommand } from './commands.js'

describe('testCommand', () => {
  test('names the runner, the file and the test, anchored and escaped', () => {
    expect(testCommand({ runner: 'vitest', file: 'test/agent.test.ts', name: 'weather > answers (in °C)' }, 'FLUX_GOLDEN=update')).toBe(
      "FLUX_GOLDEN=update npx vitest run test/agent.test.ts -t '^weather answers \\(in °C\\)$'",
    )
    expect(testCommand({ runner: 'jest', file: 'test/agent.test.cjs', name: "it's done" })).toBe("npx jest test/agent.test.cjs -t '^it'\\''s done$'")
  })

  test('gives both runners when the fixture does not say which recorded it', () => {
    expect(testCommand({ file: 'a.test.ts', name: 'x' }, 'FLUX_GOLDEN=update')).toBe(
      "FLUX_GOLDEN=update npx vitest run a.test.ts -t '^x$' (or FLUX_GOLDEN=update npx jest a.test.ts -t '^x$')",
    )
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

import { describe, expect, test } from 'vitest'
import { rerecordCommand } from '../cassette/fixture-source.js'
import { testCommand } from './command.js'
import { registerRunner, runnerAdapter, runningInRunner, type RunnerAdapter } from './registry.js'

/** A runner fluxlab does not ship, as a user's plug-in would add it: tap's `--grep` takes a pattern per title level. */
const tap: RunnerAdapter = {
  name: 'tap',
  bin: 'npx tap',
  select: (name) =>
    name
      .split(' > ')
      .map((t) => ` --grep='${t}'`)
      .join(''),
  running: () =>
    (globalThis as { __tapTest?: { file: string; name: string } }).__tapTest && {
      runner: 'tap',
      ...(globalThis as { __tapTest?: { file: string; name: string } }).__tapTest!,
    },
  setupFix: "Add `import 'fluxlab/tap'` to the tap config's `before` list",
}

describe('registerRunner', () => {
  test("a registered runner's adapter builds the commands of its tests and of its fixtures", () => {
    const manifest = { name: 'weather', source: { file: 'test/a.test.js', name: 'suite > answers', runner: 'tap' } }
    // @note before the runner is registered, its fixtures still name it: the file under the runner's usual command
    expect(rerecordCommand(manifest, '/p/tests/scenarios/weather')).toBe('FLUX_GOLDEN=update npx tap test/a.test.js')
    const undo = registerRunner(tap)
    try {
      expect(runnerAdapter('tap')).toBe(tap)
      expect(testCommand({ runner: 'tap', file: 'test/a.test.js', name: 'suite > answers' }, 'FLUX_GOLDEN=update')).toBe(
        "FLUX_GOLDEN=update npx tap test/a.test.js --grep='suite' --grep='answers'",
      )
      expect(rerecordCommand(manifest, '/p/tests/scenarios/weather')).toBe("FLUX_GOLDEN=update npx tap test/a.test.js --grep='suite' --grep='answers'")
    } finally {
      undo()
    }
    expect(runnerAdapter('tap')).toBeUndefined()
  })

  test("the running test is read from the first runner's adapter that sees one", () => {
    const g = globalThis as { __tapTest?: { file: string; name: string }; __vitest_worker__?: unknown }
    // inside vitest, vitest's adapter sees this very test
    expect(runningInRunner()).toMatchObject({
      runner: 'vitest',
      file: 'src/runners/registry.test.ts',
      name: expect.stringContaining('the running test is read'),
    })
    const worker = g.__vitest_worker__
    const undo = registerRunner(tap)
    try {
      g.__vitest_worker__ = undefined
      g.__tapTest = { file: 'test/b.test.js', name: 'b' }
      expect(runningInRunner()).toEqual({ runner: 'tap', file: 'test/b.test.js', name: 'b' })
    } finally {
      g.__vitest_worker__ = worker
      delete g.__tapTest
      undo()
    }
  })

  test('refuses a name that is not a token and a name registered already', () => {
    expect(() => registerRunner({ ...tap, name: 'Node Test' })).toThrow(
      '[fluxlab] FLUX_BAD_CONFIG: Failed to register the test runner "Node Test": its name is not lowercase letters, digits and dashes.',
    )
    expect(() => registerRunner({ ...tap, name: 'jest' })).toThrow('Failed to register the test runner "jest": a runner of that name is registered already.')
    expect(runnerAdapter('jest')?.bin).toBe('npx jest')
  })
})

import { basename, dirname, relative } from 'node:path'
import { testCommand } from '../runners/command.js'
import { runnerAdapter, runningInRunner, type TestRef } from '../runners/registry.js'
import { FluxError } from '../errors.js'
import type { Divergence } from '../cassette/divergence.js'
import { endCheckFrom, type EndCheck } from './options.js'
import { state, type ConcurrentTest } from './state.js'
import type { TestContext, TrackedRun } from './types.js'

export type { TestContext, TrackedRun } from './types.js'

/**
 * The running test, from vitest's `aroundEach` context, else the runner setup's current test (jest, vitest < 4.1).
 * @example
 * currentTest()?.testName
 */
export function currentTest(): TestContext | undefined {
  return state.tests.getStore() ?? state.currentTest
}

/**
 * The running test as a command names it, even without the fluxlab setup: fluxlab's test context,
 * else what the runner itself exposes (vitest's worker state, jest's `expect.getState()`).
 * @note each runner's adapter reads it duck-typed from globals, so nothing below the entry layer imports a runner.
 * @example
 * const ref = runningTestRef() // { runner: 'vitest', file: 'test/a.test.ts', name: 'suite > test' }
 */
export function runningTestRef(): TestRef | undefined {
  const test = currentTest()
  if (test) return testRef(test)
  return runningInRunner()
}

/**
 * The test as a command names it: runner, file relative to the project root, full name.
 * @example
 * testCommand(testRef(ctx), 'FLUX_GOLDEN=update')
 */
export function testRef(test: TestContext): TestRef {
  // @note issue 39: a Playwright config in a subfolder (`e2e/playwright.config.ts`) names test files relative to itself;
  // run from the project root, the command needs `-c` or Playwright runs with no config. A config of another name
  // (`vitest.int.config.ts`) needs it too: the runner only finds its own names by itself.
  const own = runnerAdapter(test.runner)?.configNames
  const found = test.config && dirname(test.config) === process.cwd() && own?.test(basename(test.config))
  const config = test.config && !found ? { config: relative(process.cwd(), test.config) } : {}
  const mode = test.mode ? { mode: test.mode } : {}
  const project = test.project ? { project: test.project } : {}
  const name = test.fileLevel ? undefined : test.testName
  return { runner: test.runner, file: relative(test.rootDir, test.testFile), name, ...config, ...mode, ...project }
}

/**
 * Called by the runner setups when a test ends: a failure the agent swallowed
 * (an off-tape answer it caught, a recorded call never made) still fails the test.
 * @example
 * afterEach(() => finishTest(ctx))
 */
export async function finishTest(ctx: TestContext, check: EndCheck = endCheckFrom(state.options)): Promise<void> {
  const failures: Array<{ run: TrackedRun; d: Divergence }> = []
  for (const run of ctx.runs) {
    await run.settled()
    if (run.acknowledged) continue
    for (const d of run.log.divergences.slice(run.acknowledgedUpTo ?? 0)) if (d.severity === 'failure' || check === 'strict') failures.push({ run, d })
  }
  if (failures.length === 0) return
  const name = failures[0].run.config.name
  const onlyWarnings = failures.every(({ d }) => d.severity !== 'failure')
  const error = new FluxError('FLUX_DIVERGED', {
    failed: `replay scenario "${name}"`,
    reason: onlyWarnings
      ? `the run drifted from the tape (${failures.length} warning${failures.length > 1 ? 's' : ''}), the end check is 'strict', and the test did not assert ` +
        `on it`
      : `the run left the tape (${failures.length} failure${failures.length > 1 ? 's' : ''}) and the test did not assert on it`,
    fix:
      `If the change is intended, re-record: ${testCommand(testRef(ctx), 'FLUX_GOLDEN=update')}; assert with \`expect(out).toReplayFaithfully()\` to see ` +
      `the full report.`,
    details: failures.map(({ d }) => `${d.step}: ${d.code}: ${d.message}`),
  })
  // @note nothing is silent: with the check off, the report still reaches the test's output.
  if (check === 'off') console.warn(`${error.message}\n(not failing the test: the fluxlab end check is 'off')`)
  else throw error
}

/**
 * Refuse a scenario in a `test.concurrent` test where the runner has no per-test async context (jest,
 * vitest < 4.1); the runner setup says which test that is.
 * @note SPEC §1: without it, concurrent tests' traffic cannot be told apart, so it is refused, never mis-routed.
 * @example
 * rejectConcurrentTest(state.concurrentTest?.())
 */
export function rejectConcurrentTest(test: ConcurrentTest | undefined): void {
  if (test) throw concurrentTestError(test, `open a scenario in "${test.name}"`)
}

/**
 * The FLUX_CONCURRENT_TEST error for `failed` (what was refused) in a concurrent test.
 * @example
 * throw concurrentTestError(test, 'send POST api.openai.com/v1/chat/completions')
 */
export function concurrentTestError(test: ConcurrentTest, failed: string): FluxError {
  return new FluxError('FLUX_CONCURRENT_TEST', {
    failed,
    reason: `${test.runner} is running tests concurrently (\`test.concurrent\`) and ${test.why}, so fluxlab cannot tell their traffic apart`,
    fix: test.fix,
  })
}

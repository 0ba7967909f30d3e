/**
 * The test runners fluxlab plugs into, one adapter each (issue 40 §4): the built-in ones, then those
 * `registerRunner` added. A fixture stores the runner's name as an open token; only this folder and the
 * runner's own entry (src/vitest.ts, src/jest.ts, src/playwright.ts) know what a name means.
 */
import { FluxError } from '../errors.js'
import type { RunnerAdapter, TestRef } from './adapter.js'
import { jestRunner } from './jest.js'
import { playwrightRunner } from './playwright.js'
import { vitestRunner } from './vitest.js'

export type { RunnerAdapter, TestRef } from './adapter.js'

const runners = new Map<string, RunnerAdapter>([vitestRunner, jestRunner, playwrightRunner].map((r) => [r.name, r]))

/** The name pattern a runner's token follows (what a fixture's `source.runner` may hold). */
const TOKEN = /^[a-z][a-z0-9-]*$/

/**
 * Add a runner: its name, its rerun command, how to find its running test. Returns the undo.
 * Its setup (what marks each test's start and end for fluxlab) is the runner's own entry file; see docs/adding-a-runner.md.
 * @example
 * const undo = registerRunner({ name: 'tap', bin: 'npx tap', select: (n) => ` --grep ${n}`, setupFix: 'Add fluxlab/tap to your tap config' })
 */
export function registerRunner(adapter: RunnerAdapter): () => void {
  const failed = `register the test runner "${adapter.name}"`
  if (!TOKEN.test(adapter.name))
    throw new FluxError('FLUX_BAD_CONFIG', { failed, reason: 'its name is not lowercase letters, digits and dashes', fix: 'Name it like `node-test`.' })
  if (runners.has(adapter.name))
    throw new FluxError('FLUX_BAD_CONFIG', {
      failed,
      reason: 'a runner of that name is registered already',
      fix: 'Register each runner once, under its own name.',
    })
  runners.set(adapter.name, adapter)
  return () => void runners.delete(adapter.name)
}

/**
 * The adapter of a runner by name, if one is registered.
 * @example
 * runnerAdapter('jest')?.releaseAtOnce // true
 */
export function runnerAdapter(name: string | undefined): RunnerAdapter | undefined {
  return name === undefined ? undefined : runners.get(name)
}

/**
 * The running test as its runner exposes it, from the first registered runner that sees one.
 * @example
 * runningInRunner() // { runner: 'vitest', file: 'test/a.test.ts', name: 'suite > test' }
 */
export function runningInRunner(): TestRef | undefined {
  for (const adapter of runners.values()) {
    const found = adapter.running?.()
    if (found) return found
  }
  return undefined
}

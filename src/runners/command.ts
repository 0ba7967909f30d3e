/**
 * The exact command a message tells the user to run next, built in one place (issue 10 §7):
 * from the running test (its runner, file and name) or from a fixture manifest's `source`.
 * Never a placeholder: with no test known, the command that started this process.
 */
import { shellQuote, type RunnerAdapter, type TestRef } from './adapter.js'
import { runnerAdapter } from './registry.js'

/**
 * The command that runs one test again, optionally under an env setting:
 * `FLUX_GOLDEN=update npx vitest run test/agent.test.ts -t '^weather answers$'`.
 * @example
 * testCommand({ runner: 'jest', file: 'test/a.test.ts', name: 'weather answers' }, 'FLUX_GOLDEN=update')
 */
export function testCommand(test: TestRef, env?: string, extra?: string): string {
  const prefix = env ? `${env} ` : ''
  const suffix = extra ? ` ${extra}` : ''
  const one = (r: RunnerAdapter) =>
    `${prefix}${r.env?.() ?? ''}${r.bin}${r.before?.(test) ?? ''} ${shellQuote(test.file)}` +
    `${test.name ? r.select(test.name) : ''}${r.after?.(test) ?? ''}${suffix}`
  const adapter = runnerAdapter(test.runner)
  if (adapter) return one(adapter)
  // @note a fixture recorded by a runner this process has not registered: its usual command, the file alone.
  if (test.runner) return `${prefix}npx ${shellQuote(test.runner)} ${shellQuote(test.file)}${suffix}`
  // @note a manifest from before `runner` was stored does not say which runner recorded it: give both.
  return `${one(runnerAdapter('vitest') as RunnerAdapter)} (or ${one(runnerAdapter('jest') as RunnerAdapter)})`
}

/**
 * The command that runs this scenario again under `env`: its test when one is known, else the
 * command line that started this process.
 * @example
 * rerunCommand('FLUX_GOLDEN=update', source) // 'FLUX_GOLDEN=update npx vitest run test/a.test.ts -t …'
 */
export function rerunCommand(env?: string, test?: TestRef): string {
  if (test) return testCommand(test, env)
  return `${env ? `${env} ` : ''}${processCommand()}`
}

/** This process's command line (`node scripts/agent.mjs`), relative to the working directory. */
function processCommand(argv = process.argv): string {
  const cwd = process.cwd()
  const args = argv.slice(1).map((a) => (a.startsWith(`${cwd}/`) ? a.slice(cwd.length + 1) : a))
  return ['node', ...args].map(shellQuote).join(' ')
}

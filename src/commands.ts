/**
 * The exact command a message tells the user to run next, built in one place (issue 10 §7):
 * from the running test (its runner, file and name) or from a fixture manifest's `source`.
 * Never a placeholder: with no test known, the command that started this process.
 */
import { escapeRegExp } from './secrets/rules.js'

/** The test runners fluxlab plugs into. */
export type Runner = 'vitest' | 'jest' | 'playwright'

/** What names a test: the runner (when known), the file relative to the project root, the full test name. */
export interface TestRef {
  runner?: Runner
  /** Relative to the project root (where the runner is started). */
  file: string
  /** The full test name: vitest's `fullTestName` (`suite > test`) or jest's (`suite test`). */
  name?: string
  /** Playwright: its config file, relative to the working directory, when it is not there (`-c e2e/playwright.config.ts`). */
  config?: string
  /** The project it ran in, when its config has several (Playwright's `--project`). */
  project?: string
}

/**
 * The command that runs one test again, optionally under an env setting:
 * `FLUX_GOLDEN=update npx vitest run test/agent.test.ts -t '^weather answers$'`.
 * @example
 * testCommand({ runner: 'jest', file: 'test/a.test.ts', name: 'weather answers' }, 'FLUX_GOLDEN=update')
 */
export function testCommand(test: TestRef, env?: string, extra?: string): string {
  // @note Playwright's -g is matched against the project, file and titles joined: the test's titles end it.
  const pattern = test.name ? (test.runner === 'playwright' ? ` -g ${shellQuote(`${escapeRegExp(runnerName(test))}$`)}` : ` -t ${shellQuote(`^${escapeRegExp(runnerName(test))}$`)}`) : ''
  const file = shellQuote(test.file)
  const bin = { jest: 'npx jest', vitest: 'npx vitest run', playwright: 'npx playwright test' }
  const config = test.config && test.runner === 'playwright' ? ` -c ${shellQuote(test.config)}` : ''
  // @note issue 39: -g matches the test in every project; `--project` runs (and re-records) only the one that failed.
  const project = test.project && test.runner === 'playwright' ? ` --project ${shellQuote(test.project)}` : ''
  const one = (runner: Runner) => `${env ? `${env} ` : ''}${bin[runner]}${config} ${file}${pattern}${project}${extra ? ` ${extra}` : ''}`
  // @note a manifest from before `runner` was stored does not say which runner recorded it: give both.
  return test.runner ? one(test.runner) : `${one('vitest')} (or ${one('jest')})`
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

/** Each runner takes a pattern over the names joined with spaces; vitest's `fullTestName` (and ours for Playwright) joins with ` > `. */
function runnerName(test: TestRef): string {
  return test.runner === 'jest' || !test.name ? (test.name ?? '') : test.name.split(' > ').join(' ')
}

/** Quote for a POSIX shell when needed. */
function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`
}

/**
 * What fluxlab knows about one test runner below its setup: the name a fixture stores, how a command
 * runs one of its tests again, how to find its running test without fluxlab's setup, and how to install
 * that setup. One file per runner (vitest.ts, jest.ts, playwright.ts); registry.ts lists them.
 */

/** What names a test: the runner (when known), the file relative to the project root, the full test name. */
export interface TestRef {
  /** A registered runner's name (`vitest`), or the token a fixture stored (`source.runner`). */
  runner?: string
  /** Relative to the project root (where the runner is started). */
  file: string
  /** The full test name: vitest's `fullTestName` (`suite > test`), jest's (`suite test`), Playwright's titles joined by ` > `. */
  name?: string
  /** Its config file, relative to the working directory, when the runner would not find it there itself (`-c e2e/playwright.config.ts`). */
  config?: string
  /** vitest: the mode it ran in (`--mode int`), when not vitest's own `test`. */
  mode?: string
  /** The project it ran in, when its config has several (Playwright's `--project`). */
  project?: string
}

/** One test runner fluxlab plugs into. */
export interface RunnerAdapter {
  /** The token fixtures store as `source.runner` and messages show: lowercase letters, digits and dashes. */
  name: string
  /** The command that runs test files: `npx vitest run`. */
  bin: string
  /** Variables the command needs set, as this run had them (`NODE_OPTIONS=--experimental-vm-modules `, with the trailing space). */
  env?(): string
  /** The arguments that select one test by its full name: ` -t '^suite test$'` (with the leading space). */
  select(name: string): string
  /** The config file names the runner finds by itself in the working directory: no `-c` is needed for these. */
  configNames?: RegExp
  /** Arguments between the command and the file (` -c e2e/playwright.config.ts`), if the runner has any for this test. */
  before?(test: TestRef): string
  /** Arguments after the test's selection (` --project chromium`). */
  after?(test: TestRef): string
  /** The running test as the runner itself exposes it, read duck-typed from globals, for code run without fluxlab's setup. */
  running?(): TestRef | undefined
  /** How to install fluxlab's setup in this runner, one sentence: the fix when a scenario cannot see its test. */
  setupFix: string
  /**
   * Undo the interception the moment a scenario's run ends, not a turn later: jest tears a test file's environment
   * down right after its last test, and undoing a patch then touches its torn-down globals.
   */
  releaseAtOnce?: boolean
}

/**
 * Quote for a POSIX shell when needed.
 * @example
 * shellQuote("it's") // `'it'\''s'`
 */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`
}

/**
 * A test's titles as a runner's name filter sees them, joined by spaces (vitest and fluxlab join them with ` > `).
 * @example
 * spaced('weather > answers') // 'weather answers'
 */
export const spaced = (name: string): string => name.split(' > ').join(' ')

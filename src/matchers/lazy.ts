// The matchers as the runner setup files register them. vitest and jest load a setup file afresh in every test
// file, so registering the matcher code itself (and the outcome, trace-diff, provider and pricing code behind it)
// cost every test file that much, fluxlab user or not (issue 14: setup-file cost per test file). Each of these
// stand-ins finds the matcher code on its first call instead: fluxlab's main module hands it over when it loads
// (a test that checks a fluxlab outcome has loaded it to make one), else it is loaded there and then.
import { FluxError } from '../errors.js'
import { state } from '../context/state.js'
import type { matchers as Matchers } from './index.js'

type MatcherSet = typeof Matchers
type MatcherName = keyof MatcherSet

/** Every matcher fluxlab registers (`lazy.test.ts` holds this list to `matchers`). */
const NAMES = [
  'toBeCompensatedWith',
  'toBeHermetic',
  'toCall',
  'toCallWith',
  'toCostUnder',
  'toDivergeAt',
  'toHaveTextContaining',
  'toMatchTraceSnapshot',
  'toNeverCall',
  'toPassJudge',
  'toReplayFaithfully',
  'toResumeWithoutReexecution',
] as const satisfies readonly MatcherName[]

/**
 * Hand the matcher code to the setup files' stand-ins (fluxlab's main module does it as it loads).
 * @example
 * provideMatchers(matchers)
 */
export function provideMatchers(set: MatcherSet): void {
  state.matchers ??= set
}

/**
 * The stand-ins for `expect.extend`: each runs the matcher of its name, found as the module comment says.
 * `load` reads the matcher code synchronously where nothing handed it over (a matcher must answer in the
 * same turn); it is the runner setup's, which knows where its build keeps it.
 * @example
 * expect.extend(lazyMatchers(() => createRequire(import.meta.url)('./matchers.js').matchers))
 */
export function lazyMatchers(load: () => MatcherSet): MatcherSet {
  const stand = {} as Record<MatcherName, (this: unknown, ...args: unknown[]) => unknown>
  for (const name of NAMES) {
    // A named function expression: runners print a matcher's name in some errors.
    stand[name] = {
      [name](this: unknown, ...args: unknown[]): unknown {
        const set = (state.matchers ??= loadOrExplain(load, name)) as MatcherSet
        return (set[name] as (this: unknown, ...a: unknown[]) => unknown).apply(this, args)
      },
    }[name]
  }
  return stand as unknown as MatcherSet
}

function loadOrExplain(load: () => MatcherSet, name: MatcherName): MatcherSet {
  try {
    return load()
  } catch (e) {
    throw new FluxError(
      'FLUX_BAD_CONFIG',
      {
        failed: `run the matcher \`${name}\``,
        reason:
          `fluxlab's matcher code loads with the \`fluxlab\` module, which this test file has not imported, and it could not be loaded here ` +
          `(${(e as Error).message})`,
        fix:
          `Import what the test checks from fluxlab (\`import { scenario } from 'fluxlab'\`), which loads the matchers; or use Node 20.19 or later, which ` +
          `can load them on first use.`,
      },
      { cause: e },
    )
  }
}

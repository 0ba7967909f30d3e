// The CommonJS build's `jest-load.ts` (tsup.config.ts swaps it in; see that file for why there are two).
// @note `require` is the one jest hands the module, so what it loads joins the test file's own module registry and
// global, as an import would. The paths are the built entries next to dist/jest.cjs, kept out of the bundle.
import type { matchers } from '../matchers/index.js'
import type * as engine from '../scenario/per-test.js'

/** The whole-suite engine, loaded on first use (dist/jest-engine.cjs). */
export const loadEngine = (): typeof engine => require('./jest-engine.cjs') as typeof engine
/** The matcher code, loaded on first use (dist/matchers.cjs). */
export const loadMatchers = (): typeof matchers => (require('./matchers.cjs') as { matchers: typeof matchers }).matchers

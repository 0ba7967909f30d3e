/**
 * jest-matcher-utils and jest-diff, loaded on first use rather than when the matchers are registered.
 * @note issue 14: fluxlab's setup file registers the matchers in every test file's worker, and these two (with
 * chalk, pretty-format and diff-sequences behind them) were a large part of what it cost per test file; a matcher
 * needs them only to word a failure, or when it runs outside a runner that passes its own `this.utils`.
 * @note resolved from this module's `import.meta.url` (the CommonJS build has it by tsup's shims), as
 * providers/bedrock/eventstream.ts loads its optional peer.
 */
import { createRequire } from 'node:module'

type MatcherUtils = typeof import('jest-matcher-utils')
type JestDiff = typeof import('jest-diff')

let utils: MatcherUtils | undefined
let diff: JestDiff | undefined

/**
 * @example
 * matcherUtils().EXPECTED_COLOR('PASS')
 */
export const matcherUtils = (): MatcherUtils => (utils ??= createRequire(import.meta.url)('jest-matcher-utils') as MatcherUtils)

/**
 * @example
 * jestDiff().diffStringsUnified(a, b)
 */
export const jestDiff = (): JestDiff => (diff ??= createRequire(import.meta.url)('jest-diff') as JestDiff)

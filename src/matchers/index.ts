/**
 * The raw matcher functions, for `expect.extend` in any expect-compatible runner.
 * `fluxlab/vitest` and `fluxlab/jest` register them for you.
 * @example
 * import { matchers } from 'fluxlab/matchers'
 * expect.extend(matchers)
 */
import { toReplayFaithfully } from './to-replay-faithfully.js'

export { toReplayFaithfully, type ReplayFaithfullyOptions } from './to-replay-faithfully.js'
export type { FluxMatcherContext, MatcherResult } from './utils/context.js'

export const matchers = { toReplayFaithfully }

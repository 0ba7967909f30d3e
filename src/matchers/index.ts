/**
 * The raw matcher functions, for `expect.extend` in any expect-compatible runner.
 * `fluxlab/vitest` and `fluxlab/jest` register them for you.
 * @example
 * import { matchers } from 'fluxlab/matchers'
 * expect.extend(matchers)
 */
import { toBeCompensatedWith } from './to-be-compensated-with.js'
import { toBeHermetic } from './to-be-hermetic.js'
import { toCall } from './to-call.js'
import { toCallWith } from './to-call-with.js'
import { toCostUnder } from './to-cost-under.js'
import { toDivergeAt } from './to-diverge-at.js'
import { toHaveTextContaining } from './to-have-text-containing.js'
import { toMatchTraceSnapshot } from './to-match-trace-snapshot.js'
import { toNeverCall } from './to-never-call.js'
import { toPassJudge } from './to-pass-judge.js'
import { toReplayFaithfully } from './to-replay-faithfully.js'
import { toResumeWithoutReexecution } from './to-resume-without-reexecution.js'

export { toBeCompensatedWith } from './to-be-compensated-with.js'
export { toBeHermetic } from './to-be-hermetic.js'
export { toCall, type CallMode, type CallOptions } from './to-call.js'
export { toCallWith } from './to-call-with.js'
export { toCostUnder, type CostUnderOptions } from './to-cost-under.js'
export { toDivergeAt } from './to-diverge-at.js'
export { toHaveTextContaining } from './to-have-text-containing.js'
export { toMatchTraceSnapshot } from './to-match-trace-snapshot.js'
export { toNeverCall } from './to-never-call.js'
export { toPassJudge } from './to-pass-judge.js'
export { toReplayFaithfully, type ReplayFaithfullyOptions } from './to-replay-faithfully.js'
export { toResumeWithoutReexecution } from './to-resume-without-reexecution.js'
export type { FluxMatcherContext, MatcherResult } from './utils/context.js'

export const matchers = {
  toBeCompensatedWith,
  toBeHermetic,
  toCall,
  toCallWith,
  toCostUnder,
  toDivergeAt,
  toHaveTextContaining,
  toMatchTraceSnapshot,
  toNeverCall,
  toPassJudge,
  toReplayFaithfully,
  toResumeWithoutReexecution,
}

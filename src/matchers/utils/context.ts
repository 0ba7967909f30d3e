import { matcherUtils } from './jest-utils.js'
import { Outcome } from '../../scenario/outcome.js'

/** The part of a runner's matcher `this` that fluxlab uses (vitest and jest both provide it). */
export interface FluxMatcherContext {
  isNot?: boolean
  promise?: string
  // biome-ignore lint/suspicious/noExplicitAny: the runners' Tester types differ; `any[]` accepts both
  equals: (a: unknown, b: unknown, customTesters?: any[], strictCheck?: boolean) => boolean
  customTesters?: readonly unknown[]
  utils?: {
    matcherHint?: (name: string, received?: string, expected?: string, options?: object) => string
    printExpected?: (v: unknown) => string
    printReceived?: (v: unknown) => string
  }
  snapshotState?: unknown
}

export interface MatcherResult {
  pass: boolean
  message: () => string
  actual?: unknown
  expected?: unknown
}

/** `matcherHint` from the runner, or jest-matcher-utils when called raw. */
export function hint(ctx: FluxMatcherContext, name: string, expected = '', options: object = {}): string {
  const fn = ctx.utils?.matcherHint ?? matcherUtils().matcherHint
  return fn(name, 'outcome', expected, { isNot: ctx.isNot, promise: ctx.promise, ...options })
}

export const printExpected = (ctx: FluxMatcherContext, v: unknown) => (ctx.utils?.printExpected ?? matcherUtils().printExpected)(v)
export const printReceived = (ctx: FluxMatcherContext, v: unknown) => (ctx.utils?.printReceived ?? matcherUtils().printReceived)(v)

/**
 * Throw a matcher error unless `received` is an Outcome (wrong input is not a mismatch).
 * @note duck-typed so an Outcome from a second copy of the library still passes.
 */
export function assertOutcome(ctx: FluxMatcherContext, name: string, received: unknown): asserts received is Outcome {
  const ok =
    received instanceof Outcome ||
    (typeof received === 'object' && received !== null && 'modelCalls' in received && 'divergences' in received && 'hermetic' in received)
  if (!ok)
    throw new Error(`${hint(ctx, name)}\n\n[fluxlab] ${name} expects the Outcome returned by \`await s.run(...)\`.\nReceived: ${printReceived(ctx, received)}`)
}

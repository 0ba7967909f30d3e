import { FluxError } from '../errors.js'

/** The runner's snapshot update state: `new` (local default), `all` (`-u`), `none` (CI). */
export type UpdateState = 'new' | 'all' | 'none'

/** `FLUX_GOLDEN` values. */
const GOLDEN_VALUES = ['update', 'snapshots', 'judge'] as const
export type GoldenSwitch = (typeof GOLDEN_VALUES)[number]

export type Mode = 'record' | 'replay'

/**
 * Read `FLUX_GOLDEN`; an unknown value is an error listing the valid ones.
 * @example
 * readGolden({ FLUX_GOLDEN: 'update' }) // 'update'
 */
export function readGolden(env: NodeJS.ProcessEnv = process.env): GoldenSwitch | undefined {
  const v = env.FLUX_GOLDEN?.trim()
  if (!v) return undefined
  if ((GOLDEN_VALUES as readonly string[]).includes(v)) return v as GoldenSwitch
  throw new FluxError('FLUX_BAD_CONFIG', {
    failed: 'read FLUX_GOLDEN',
    reason: `"${v}" is not a valid value`,
    fix: `Use one of: ${GOLDEN_VALUES.join(', ')} (or leave it unset to replay).`,
  })
}

const TRUE = ['1', 'true', 'yes']
const FALSE = ['0', 'false', 'no', '']

/**
 * Read a boolean env var (`FLUX_OFFLINE`); anything but 1/true/yes/0/false/no is an error.
 * @example
 * readFlag('FLUX_OFFLINE') // false
 */
export function readFlag(name: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const v = (env[name] ?? '').trim().toLowerCase()
  if (TRUE.includes(v)) return true
  if (FALSE.includes(v)) return false
  throw new FluxError('FLUX_BAD_CONFIG', {
    failed: `read ${name}`,
    reason: `"${env[name]}" is not a valid value`,
    fix: `Use one of: 1, 0, true, false (unset means false).`,
  })
}

/**
 * The update state when no runner tells us: `none` under CI, else `new`.
 * @example
 * updateStateFromEnv({ CI: 'true' }) // 'none'
 */
export function updateStateFromEnv(env: NodeJS.ProcessEnv = process.env): UpdateState {
  const ci = (env.CI ?? '').toLowerCase()
  return ci !== '' && ci !== '0' && ci !== 'false' ? 'none' : 'new'
}

/**
 * Normalize what a runner reports (`_updateSnapshot`, vitest's `updateSnapshot`).
 * @example
 * toUpdateState('all') // 'all'
 */
export function toUpdateState(v: unknown): UpdateState | undefined {
  return v === 'new' || v === 'all' || v === 'none' ? v : undefined
}

export interface ModeDecision {
  mode: Mode
  /** Rewrite `trace.snap` from this run (replay under `-u` / `FLUX_GOLDEN=snapshots`). */
  rewriteTrace: boolean
  /** Re-grade judge verdicts live. */
  regradeJudges: boolean
}

/**
 * SPEC §2: the mode of a scenario from whether its fixture exists, the update state and `FLUX_GOLDEN`.
 * Returns the missing-fixture case as `undefined` under update state `none`.
 * @example
 * decideMode({ exists: false, updateState: 'new' }) // { mode: 'record', … }
 */
export function decideMode(input: { exists: boolean; updateState: UpdateState; golden?: GoldenSwitch }): ModeDecision | undefined {
  const { exists, updateState, golden } = input
  if (golden === 'update') return { mode: 'record', rewriteTrace: true, regradeJudges: true }
  if (!exists) {
    if (updateState === 'none') return undefined
    return { mode: 'record', rewriteTrace: true, regradeJudges: true }
  }
  return {
    mode: 'replay',
    rewriteTrace: golden === 'snapshots' || updateState === 'all',
    regradeJudges: golden === 'judge',
  }
}

/**
 * Which judge tapes (`judge.jsonl`) this process used, and which of their verdicts: what `finishJudgeTapes` reports on.
 * @note issue 14: apart from tape.ts so that the setup file can tell whether any judge tape was used without loading
 * the judge (and zod, YAML and the fixture reader behind it) in every test file.
 */
import type { ScanOptions } from '../cassette/scan-value.js'

export interface TapeUse {
  dir: string
  scenario: string
  used: Set<string>
  scan: ScanOptions
}

const KEY = Symbol.for('fluxlab.judge-tapes.v1')
const g = globalThis as Record<symbol, unknown>
/** @note on globalThis like the router: two copies of the library (ESM + CJS) share one record. */
export const tapeUses = (g[KEY] ??= new Map<string, TapeUse>()) as Map<string, TapeUse>

/**
 * @example
 * if (judgeTapesUsed()) for (const r of (await import('./index.js')).finishJudgeTapes()) console.warn(r)
 */
export const judgeTapesUsed = (): boolean => tapeUses.size > 0

/**
 * TEST-ONLY: a scenario's facts as a reporter reads them, for the reporter unit tests. No entry point imports this
 * file, so it never ships in `dist/`.
 * @example
 * const failed = sessionFacts({ failures: ['FLUX_DIVERGED …'], hermetic: false })
 */
import type { SessionFacts } from './facts.js'

/** The facts of a replayed `capital` scenario (2 model calls, 1 tool call, nothing live), with `over` on top. */
export const sessionFacts = (over: Partial<SessionFacts> = {}): SessionFacts => ({
  name: 'capital',
  dir: '',
  mode: 'replay',
  modelCalls: 2,
  toolCalls: 1,
  modelLive: 0,
  hermetic: true,
  failures: [],
  warnings: [],
  cost: 0.001,
  unpriced: [],
  ...over,
})

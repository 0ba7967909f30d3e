import type { JsonDiffRow } from './json-diff.js'

/** SPEC §3 divergence codes. */
export type DivergenceCode =
  | 'model_request_drift'
  | 'model_index_overflow'
  | 'tool_call_unrecorded'
  | 'unused_interaction'
  | 'truncated_cell'
  | 'redaction_mismatch'
  | 'credential_found'
  | 'unwrapped_tool'
  | 'policy_denied'
  | 'unseen_child'
  | 'unanswered_call'

export type Severity = 'warning' | 'failure'

/** Something in a run that the tape did not explain exactly. */
export interface Divergence {
  code: DivergenceCode
  severity: Severity
  /** The step as numbered in `trace.snap`: `model#3`, `tool#2 GET api.example.com/x`. */
  step: string
  message: string
  /** JSON-path rows between the closest recorded request and the actual one. */
  diff?: JsonDiffRow[]
  /** The closest recorded step, when there is one. */
  closest?: string
}

const WARNINGS: ReadonlySet<DivergenceCode> = new Set(['model_request_drift', 'unwrapped_tool', 'unseen_child', 'unanswered_call'])

export const severityOf = (code: DivergenceCode): Severity => (WARNINGS.has(code) ? 'warning' : 'failure')

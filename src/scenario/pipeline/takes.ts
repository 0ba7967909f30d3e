/** What the tapes of a replay (tape.ts) answer: a cell served, or the miss and the closest cell; and which cells were served. */
import type { ModelCell, ToolCell } from '../../cassette/cell.js'
import type { JsonDiffRow } from '../../cassette/json-diff.js'
import type { ModelRequest } from './call.js'

/** Cells of a fixture served, by `seq` on each channel. */
export type UsedCells = { model: number[]; tools: number[] }

/** What the model tape answers a call with: a hit, a hit whose request drifted, or a miss. */
export type ModelTake =
  | { kind: 'hit'; cell: ModelCell }
  | { kind: 'drift'; cell: ModelCell; diff: JsonDiffRow[] }
  | { kind: 'miss'; closest?: ModelCell; diff?: JsonDiffRow[]; reason: 'overflow' | 'exact-only' | 'endpoint' | 'event' }
/** What the tool tape answers a call with. */
export type ToolTake = { kind: 'hit'; cell: ToolCell } | { kind: 'miss'; closest?: ToolCell; diff?: JsonDiffRow[]; idMismatch: boolean }

/**
 * Why a model call missed the tape, in one sentence of the divergence (only a miss reads it: a replay that holds never
 * enters this file).
 * @example
 * modelMissWhy(take, call, 3) // 'the run made more model calls than the 3 recorded'
 */
export function modelMissWhy(take: Extract<ModelTake, { kind: 'miss' }>, call: Readonly<ModelRequest>, recorded: number): string {
  const near = take.closest
  if (take.reason === 'overflow') return `the run made more model calls than the ${recorded} recorded`
  if (take.reason === 'endpoint') {
    const at = `${call.canonical.method} ${call.canonical.path.split('?')[0]} (${call.codec.family})`
    const next = `${near?.step} at ${near?.request.method} ${near?.request.path.split('?')[0]} (${near?.family})`
    return `no recorded call is left at ${at}; the next unused recorded call is ${next}`
  }
  if (take.reason === 'event') {
    const event = call.codec.socket?.event
    return `it is a realtime ${event?.(call.canonical.body)} event where the recording has ${near && event?.(near.request.body)}`
  }
  return 'no recorded call matches this request exactly'
}

/** What the tapes of a replay (tape.ts) answer: a cell served, or the miss and the closest cell; and which cells were served. */
import type { ModelCell, ToolCell } from '../../cassette/cell.js'
import type { JsonDiffRow } from '../../cassette/json-diff.js'

/** Cells of a fixture served, by `seq` on each channel. */
export type UsedCells = { model: number[]; tools: number[] }

/** What the model tape answers a call with: a hit, a hit whose request drifted, or a miss. */
export type ModelTake =
  | { kind: 'hit'; cell: ModelCell }
  | { kind: 'drift'; cell: ModelCell; diff: JsonDiffRow[] }
  | { kind: 'miss'; closest?: ModelCell; diff?: JsonDiffRow[]; reason: 'overflow' | 'exact-only' | 'endpoint' | 'event' }
/** What the tool tape answers a call with. */
export type ToolTake = { kind: 'hit'; cell: ToolCell } | { kind: 'miss'; closest?: ToolCell; diff?: JsonDiffRow[]; idMismatch: boolean }

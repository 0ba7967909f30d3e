/**
 * A cell's `digest`: SHA-256 of what replay serves from it, written with the cell, so a hand edit of a served byte
 * is `digest_mismatch` on read instead of a silent serve (SPEC §4, issue 28).
 * - model and http tool cells: the response (status, kept headers, chunks with their times, `open`, `clientAbort`),
 *   the transport error, `truncated` (a truncated cell is refused, not served) and `injected`; an http tool's
 *   `rpcId` too (its answer is re-addressed by it). A model cell's text, tool calls and usage are checked against
 *   its chunks already (./derived.ts), so binding the chunks binds them.
 * - fn tool cells: the output or the thrown error, in their stored key order (the agent can observe it).
 * A cell written before digests existed has none, and is read unchecked.
 */
import { createHash } from 'node:crypto'
import stableStringify from 'fast-json-stable-stringify'
import type { ModelCell, ToolCell } from './cell.js'

/**
 * The digest of what replay serves from `cell`: `sha256:<64 hex>`.
 * @example
 * servedDigest(cell) === cell.digest // false after a hand edit of the chunks
 */
export function servedDigest(cell: ModelCell | ToolCell): string {
  const c = cell as Partial<ModelCell & ToolCell> & { injected?: string }
  const served =
    'kind' in cell && cell.kind === 'fn'
      ? JSON.stringify({ output: c.output, error: c.error })
      : stableStringify(asStored({ response: c.response, transportError: c.transportError, truncated: c.truncated, injected: c.injected, rpcId: c.rpcId }))
  return `sha256:${createHash('sha256').update(served).digest('hex')}`
}

/** A value as a write stores it and a read gives it back (undefined dropped, as JSON does). */
const asStored = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown

/**
 * Where a cell's stored digest differs from what it would serve: both digests, or `undefined` when they agree or
 * the cell has no digest (recorded before digests: unchecked).
 * @example
 * digestMismatch({ ...cell, output: 'edited' }) // { stored: 'sha256:…', served: 'sha256:…' }
 */
export function digestMismatch(cell: ModelCell | ToolCell): { stored: string; served: string } | undefined {
  const stored = cell.digest
  if (stored === undefined) return undefined
  const served = servedDigest(cell)
  return served === stored ? undefined : { stored, served }
}

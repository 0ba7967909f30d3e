/**
 * Cells handed out with their fixture (issues 14 and 40). A kept fixture read is shared by every `scenario()` of it,
 * and the read itself checks only the bytes (the secret scan and the schema). A model cell's stored fields against
 * its chunks, and every cell's digest, are checked when the fixture is handed out ({@link cellView}, called when a
 * read is handed to a test), once per kept read, and each cell is deep-frozen then: never on a request's path (issue
 * 40 item 3: a replayed call on a fixture recorded today entered 17 files, 9 of them for this check). A cell that
 * fails is not refused there: it throws, with the error the read used to throw, whenever it is read (an index, an
 * iteration, `map`, a spread, `JSON.stringify`, a property descriptor), so a test that never reaches it still runs.
 *
 * The tape matches requests on fields the read already checked (key, seq, request) without handing cells
 * out; it reaches them through {@link rawCells} and hands out only the cell it serves, through the view.
 *
 * The view also checks a cell's `digest` there (issue 28; here, so a replayed call enters no more files): the
 * SHA-256 of what replay serves from the cell, written with it, so a hand edit of a served byte is
 * `digest_mismatch` on read instead of a silent serve (SPEC §4). It covers:
 * - model and http tool cells: the response (status, kept headers, chunks with their times, `open`, `clientAbort`),
 *   the transport error, `truncated` (a truncated cell is refused, not served) and `injected`; an http tool's
 *   `rpcId` too (its answer is re-addressed by it). A model cell's text, tool calls and usage are checked against
 *   its chunks already (./derived.ts), so binding the chunks binds them.
 * - fn tool cells: the output or the thrown error, in their stored key order (the agent can observe it).
 * A cell written before digests existed has none, and is read unchecked.
 */
import { createHash } from 'node:crypto'
import { stableJson } from './stable-json.js'
import type { ModelCell, ToolCell } from './cell.js'

/** How a kept read's cells are prepared: `check` throws for a cell that may not be handed out. */
export interface CellState<T> {
  readonly raw: readonly T[]
  /** 1 once cell i was checked and frozen. */
  readonly ready: Uint8Array
}

/**
 * A kept read's cell list and its per-cell "ready" memo.
 * @example
 * const state = cellState(lines.map((l) => l.value))
 */
export function cellState<T>(raw: T[]): CellState<T> {
  return { raw: Object.freeze(raw), ready: new Uint8Array(raw.length) }
}

const views = new WeakMap<object, CellHandout<unknown>>()

/**
 * The cells of `state` as a read-only array whose every element is checked (its digest, then `check`; `edited`
 * and `check` throw for a bad cell) and deep-frozen the first time it is read.
 * @example
 * const model = cellView(state, (cell, i) => { if (derivedMismatch(cell)) throw … })
 * model[0] // checked, frozen
 */
export function cellView<T extends object>(
  state: CellState<T>,
  check?: (cell: T, i: number) => void,
  edited?: (cell: T, i: number, m: DigestMismatch) => void,
): T[] {
  const { raw, ready } = state
  const at = (i: number): T => {
    const cell = raw[i]
    if (ready[i] === 0) {
      const m = edited && digestMismatch(cell as ModelCell | ToolCell)
      if (m) edited(cell, i, m)
      check?.(cell, i)
      deepFreeze(cell)
      ready[i] = 1
    }
    return cell
  }
  const prepare = (p: string | symbol) => {
    if (typeof p !== 'string') return
    const c = p.charCodeAt(0)
    if (c < 48 || c > 57) return
    const i = Number(p)
    if (Number.isInteger(i) && i < raw.length && ready[i] === 0) at(i)
  }
  const view = new Proxy(raw as T[], {
    get(target, p, receiver) {
      prepare(p)
      return Reflect.get(target, p, receiver)
    },
    getOwnPropertyDescriptor(target, p) {
      prepare(p)
      return Reflect.getOwnPropertyDescriptor(target, p)
    },
  })
  views.set(view, { raw, ready, at })
  // @note issue 40 item 3: every cell is checked here, where a fixture is handed out, never on a request's path. A cell
  // that fails stays unready and throws its error when it is read (served, listed), as a check at first use did.
  for (let i = 0; i < raw.length; i++)
    if (ready[i] === 0)
      try {
        at(i)
      } catch {}
  return view
}

/** What {@link rawCells} gives a reader of a view: its unprepared cells, which of them are ready, and cell i handed out. */
interface CellHandout<T> extends CellState<T> {
  /** Cell i, checked and frozen first if it is not ready yet. */
  at(i: number): T
}

/**
 * The unprepared cells behind a {@link cellView}, which of them are ready (checked and frozen: a reader may take
 * those as they are), and how to hand cell i out through the view, for a reader that looks at fields the read checked
 * (the tape's matching) before it hands one out; `undefined` for a plain array.
 * @example
 * const r = rawCells(fixture.model); const served = r ? (r.ready[i] ? r.raw[i] : r.at(i)) : fixture.model[i]
 */
export function rawCells<T>(cells: readonly T[]): CellHandout<T> | undefined {
  return views.get(cells) as CellHandout<T> | undefined
}

/**
 * Freeze `value` and everything it holds (iteratively: a deep value must not overflow the stack).
 * @example
 * deepFreeze(manifest)
 */
export function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value]
  while (stack.length) {
    const v = stack.pop()
    if (v === null || typeof v !== 'object' || Object.isFrozen(v)) continue
    Object.freeze(v)
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === 'object') stack.push(child)
  }
  return value
}

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
      : // @note stable-stringified as the write stores these fields, so the string is the same for the value written and the value read back
        stableJson({ response: c.response, transportError: c.transportError, truncated: c.truncated, injected: c.injected, rpcId: c.rpcId })
  return `sha256:${createHash('sha256').update(served).digest('hex')}`
}

/** A cell whose stored digest is not that of what it serves: both. */
export interface DigestMismatch {
  stored: string
  served: string
}

/**
 * Where a cell's stored digest differs from what it would serve: both digests, or `undefined` when they agree or
 * the cell has no digest (recorded before digests: unchecked).
 * @example
 * digestMismatch({ ...cell, output: 'edited' }) // { stored: 'sha256:…', served: 'sha256:…' }
 */
export function digestMismatch(cell: ModelCell | ToolCell): DigestMismatch | undefined {
  const stored = cell.digest
  if (stored === undefined) return undefined
  const served = servedDigest(cell)
  return served === stored ? undefined : { stored, served }
}

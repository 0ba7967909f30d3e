/**
 * Cells handed out at first use (issue 14). A kept fixture read is shared by every `scenario()` of it, and a
 * cold read used to check every model cell's stored fields against its chunks and deep-freeze every value
 * before it returned: about 1.2× the cost of `JSON.parse` for cells a test may never touch. Neither is a
 * check of the bytes (the secret scan and the schema stay on every read); both only have to happen before a
 * cell's data reaches anyone. So the cells are handed out through one view, and the view prepares a cell
 * (checks it, then freezes it) the first time anything reads it: an index, an iteration, `map`, a spread,
 * `JSON.stringify`, a property descriptor. A cell that passed is remembered (per kept read, shared by every
 * view of it); one that fails throws at every read, with the error the read used to throw.
 *
 * The tape matches requests on fields the read already checked (key, seq, request) without handing cells
 * out; it reaches them through {@link rawCells} and hands out only the cell it serves, through the view.
 */

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

const views = new WeakMap<object, { raw: readonly unknown[]; at: (i: number) => unknown }>()

/**
 * The cells of `state` as a read-only array whose every element is checked (by `check`, which throws for a
 * bad cell) and deep-frozen the first time it is read.
 * @example
 * const model = cellView(state, (cell, i) => { if (derivedMismatch(cell)) throw … })
 * model[0] // checked, frozen
 */
export function cellView<T extends object>(state: CellState<T>, check?: (cell: T, i: number) => void): T[] {
  const { raw, ready } = state
  const at = (i: number): T => {
    const cell = raw[i]
    if (ready[i] === 0) {
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
  views.set(view, { raw, at })
  return view
}

/**
 * The unprepared cells behind a {@link cellView} and how to hand cell i out through it, for a reader that
 * looks at fields the read checked (the tape's matching) before it hands one out; `undefined` for a plain array.
 * @example
 * const r = rawCells(fixture.model); const served = r ? r.at(i) : fixture.model[i]
 */
export function rawCells<T>(cells: readonly T[]): { raw: readonly T[]; at: (i: number) => T } | undefined {
  return views.get(cells) as { raw: readonly T[]; at: (i: number) => T } | undefined
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

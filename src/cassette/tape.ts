import type { CanonicalRequest, ModelCell, ToolCell } from './cell.js'
import { diffJson, type JsonDiffRow } from './json-diff.js'
import { codecFor } from '../providers/registry.js'
import { rawCells } from './handout.js'

export type ModelTake =
  | { kind: 'hit'; cell: ModelCell }
  | { kind: 'drift'; cell: ModelCell; diff: JsonDiffRow[] }
  | { kind: 'miss'; closest?: ModelCell; diff?: JsonDiffRow[]; reason: 'overflow' | 'exact-only' | 'endpoint' | 'event' }

/**
 * The model channel of a fixture during replay: each recorded cell is served at most once.
 * A request takes the first unused cell with its key; failing that, the next
 * unused cell in recorded order for the same method and path is served as drift.
 * @example
 * const tape = new ModelTape(fixture.model)
 * const take = tape.take(req, key)
 */
export class ModelTape {
  private readonly used = new Set<number>()
  /** The cells as read, for matching on what the read checked (key, seq, request); a served cell is handed out through `cells`. */
  private readonly raw: readonly ModelCell[]
  private readonly at: (i: number) => ModelCell
  constructor(readonly cells: readonly ModelCell[]) {
    ;({ raw: this.raw, at: this.at } = handOut(cells))
  }

  take(req: CanonicalRequest, key: string, opts: { exactOnly?: boolean } = {}): ModelTake {
    const exact = this.find((c) => c.key === key)
    if (exact >= 0) return this.serve(exact, (cell) => ({ kind: 'hit', cell }))
    const i = this.find((c) => c.request.method === req.method && samePath(c.request.path, req.path))
    const raw = i >= 0 ? this.raw[i] : undefined
    // @note a realtime frame is served by position only as the same event type: another type is another conversation.
    const socket = raw ? codecFor(raw.family).socket : undefined
    if (raw && socket && !opts.exactOnly && socket.event(raw.request.body) !== socket.event(req.body)) {
      const next = this.at(i)
      return { kind: 'miss', closest: next, diff: diffJson(next.request.body, req.body), reason: 'event' }
    }
    if (raw && !opts.exactOnly) return this.serve(i, (cell) => ({ kind: 'drift', cell, diff: diffJson(cell.request.body, req.body) }))
    // @note calls remain, at other endpoints (an embeddings request where a chat call was recorded): say that.
    const other = raw ? -1 : this.find(() => true)
    if (other >= 0) return { kind: 'miss', closest: this.at(other), reason: 'endpoint' }
    const closest = raw ? this.at(i) : this.closest(req)
    return {
      kind: 'miss',
      closest,
      diff: closest ? diffJson(closest.request.body, req.body) : undefined,
      reason: raw ? 'exact-only' : 'overflow',
    }
  }

  /** Cells never served, in recorded order. */
  unused(): ModelCell[] {
    const out: ModelCell[] = []
    this.raw.forEach((c, i) => {
      if (!this.used.has(c.seq)) out.push(this.at(i))
    })
    return out
  }

  /** How many model calls have been served so far. */
  get served(): number {
    return this.used.size
  }

  /** The `seq` of every cell served so far; `markUsed` marks them so on another tape of the same fixture. */
  usedSeqs(): number[] {
    return [...this.used]
  }

  markUsed(seqs: readonly number[]): void {
    for (const seq of seqs) this.used.add(seq)
  }

  /** The index of the first unused cell `test` accepts, or -1. */
  private find(test: (c: ModelCell) => boolean): number {
    for (let i = 0; i < this.raw.length; i++) if (!this.used.has(this.raw[i].seq) && test(this.raw[i])) return i
    return -1
  }

  /** Hand out cell i (checked first: a cell that fails is refused, and stays unused) and mark it used. */
  private serve(i: number, take: (cell: ModelCell) => ModelTake): ModelTake {
    const cell = this.at(i)
    this.used.add(cell.seq)
    return take(cell)
  }

  private closest(req: CanonicalRequest): ModelCell | undefined {
    for (let i = this.raw.length - 1; i >= 0; i--) if (samePath(this.raw[i].request.path, req.path)) return this.at(i)
    return this.raw.length ? this.at(this.raw.length - 1) : undefined
  }
}

/** Query strings may differ (e.g. `?beta=true`); the path decides the endpoint. */
const samePath = (a: string, b: string) => a.split('?')[0] === b.split('?')[0]

export type ToolTake = { kind: 'hit'; cell: ToolCell } | { kind: 'miss'; closest?: ToolCell; diff?: JsonDiffRow[]; idMismatch: boolean }

/**
 * The tool channel during replay. A call matches by call id when it has one,
 * else by name + canonical args key, counting repeats; so parallel calls replay
 * in whatever order they complete. A call whose id matches but whose name or
 * args differ is a miss: the tape explains the id, not the call.
 * @example
 * const take = new ToolTape(fixture.tools).take({ name: 'read', key, callId: 'call_1', args })
 */
export class ToolTape {
  private readonly used = new Set<number>()
  /** As on the model channel: matching reads the cells as read, and only the cell served or named is handed out. */
  private readonly raw: readonly ToolCell[]
  private readonly at: (i: number) => ToolCell
  constructor(readonly cells: readonly ToolCell[]) {
    ;({ raw: this.raw, at: this.at } = handOut(cells))
  }

  /** `legacyKey`: the call's key as a fixture recorded before issue 28 keyed it (an MCP progress token kept as sent). */
  take(call: { kind: 'http' | 'fn'; name: string; key: string; legacyKey?: string; callId?: string; args: unknown }): ToolTake {
    const free = this.raw.filter((c) => !this.used.has(c.seq) && c.kind === call.kind)
    if (call.callId) {
      const byId = free.find((c) => c.callId === call.callId)
      if (byId) {
        if (byId.name === call.name && byId.key === call.key) return this.hit(byId)
        return { kind: 'miss', closest: this.out(byId), diff: diffJson(byId.args, call.args), idMismatch: true }
      }
    }
    const byKey = free.find((c) => c.name === call.name && (c.key === call.key || c.key === call.legacyKey))
    if (byKey) return this.hit(byKey)
    // SPEC §3 / issue 12: the MCP handshake need not repeat exactly (another client version or capabilities, a client
    // that connects twice): the next recorded message of the same method answers it, else the last one used.
    if (isMcpHandshake(call.name)) {
      const same = free.find((c) => c.name === call.name) ?? [...this.raw].reverse().find((c) => c.name === call.name && this.used.has(c.seq))
      if (same) return this.hit(same)
    }
    // @note the closest call for the message: the same tool, else (HTTP) the same method and path on another host:port.
    const endpoint = (name: string) => name.replace(/^(\S+) [^/]*/, '$1 ')
    const sameName =
      free.find((c) => c.name === call.name) ??
      this.raw.find((c) => c.name === call.name) ??
      (call.kind === 'http' ? free.find((c) => c.kind === 'http' && endpoint(c.name) === endpoint(call.name)) : undefined)
    return { kind: 'miss', closest: sameName && this.out(sameName), diff: sameName ? diffJson(sameName.args, call.args) : undefined, idMismatch: false }
  }

  /** The `seq` of every cell served so far; `markUsed` marks them so on another tape of the same fixture. */
  usedSeqs(): number[] {
    return [...this.used]
  }

  markUsed(seqs: readonly number[]): void {
    for (const seq of seqs) this.used.add(seq)
  }

  /** Recorded calls never made, but for the MCP handshake, which a client shared across tests need not repeat. */
  unused(): ToolCell[] {
    return this.raw.filter((c) => !this.used.has(c.seq) && !isMcpHandshake(c.name)).map((c) => this.out(c))
  }

  private hit(cell: ToolCell): ToolTake {
    const served = this.out(cell)
    this.used.add(cell.seq)
    return { kind: 'hit', cell: served }
  }

  /** A cell matched on its raw fields, handed out (checked first: a cell that fails throws, and stays unused). */
  private out(cell: ToolCell): ToolCell {
    return this.at(this.raw.indexOf(cell))
  }
}

/**
 * The cells behind a fixture's first-use view (./handout.ts), and cell i handed out: as it is once the view checked it,
 * else through the view, which checks and freezes it first. A plain array's cells are handed out as they are.
 * @note issue 14: a fixture's cells are checked at first use; matching must not hand out (so check) every cell it passes
 * over, only the one it serves or names. Issue 25: a cell already checked (most are, by the time a replay serves them)
 * is read from the raw cells without a call into the view.
 */
function handOut<T>(cells: readonly T[]): { raw: readonly T[]; at: (i: number) => T } {
  const view = rawCells(cells)
  if (!view) return { raw: cells, at: (i) => cells[i] }
  const { raw, ready, at } = view
  return { raw, at: (i) => (ready[i] === 1 ? raw[i] : at(i)) }
}

/**
 * The MCP session's setup and upkeep (named by `httpToolCall`): connecting, listing, the GET stream, closing.
 * None of it is the agent's doing, so it is matched by method and never required.
 * @example
 * isMcpHandshake('mcp initialize') // true; isMcpHandshake('mcp get_weather') // false
 */
function isMcpHandshake(name: string): boolean {
  return /^mcp (initialize|ping|stream|close|notifications\/.+|(tools|prompts|resources|resources\/templates)\/list|logging\/setLevel)$/.test(name)
}

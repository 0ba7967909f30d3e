import type { CanonicalRequest, ModelCell, ToolCell } from './cell.js'
import { diffJson, type JsonDiffRow } from './json-diff.js'
import { codecFor } from '../providers/registry.js'

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
  constructor(readonly cells: readonly ModelCell[]) {}

  take(req: CanonicalRequest, key: string, opts: { exactOnly?: boolean } = {}): ModelTake {
    const exact = this.cells.find((c) => !this.used.has(c.seq) && c.key === key)
    if (exact) {
      this.used.add(exact.seq)
      return { kind: 'hit', cell: exact }
    }
    const next = this.cells.find((c) => !this.used.has(c.seq) && c.request.method === req.method && samePath(c.request.path, req.path))
    // @note a realtime frame is served by position only as the same event type: another type is another conversation.
    const socket = next ? codecFor(next.family).socket : undefined
    if (next && socket && !opts.exactOnly && socket.event(next.request.body) !== socket.event(req.body)) {
      return { kind: 'miss', closest: next, diff: diffJson(next.request.body, req.body), reason: 'event' }
    }
    if (next && !opts.exactOnly) {
      this.used.add(next.seq)
      return { kind: 'drift', cell: next, diff: diffJson(next.request.body, req.body) }
    }
    // @note calls remain, at other endpoints (an embeddings request where a chat call was recorded): say that.
    const other = next ? undefined : this.unused()[0]
    if (other) return { kind: 'miss', closest: other, reason: 'endpoint' }
    const closest = next ?? this.closest(req)
    return {
      kind: 'miss',
      closest,
      diff: closest ? diffJson(closest.request.body, req.body) : undefined,
      reason: next ? 'exact-only' : 'overflow',
    }
  }

  /** Cells never served, in recorded order. */
  unused(): ModelCell[] {
    return this.cells.filter((c) => !this.used.has(c.seq))
  }

  /** How many model calls have been served so far. */
  get served(): number {
    return this.used.size
  }

  private closest(req: CanonicalRequest): ModelCell | undefined {
    const samePathCells = this.cells.filter((c) => samePath(c.request.path, req.path))
    return samePathCells[samePathCells.length - 1] ?? this.cells[this.cells.length - 1]
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
  constructor(readonly cells: readonly ToolCell[]) {}

  take(call: { kind: 'http' | 'fn'; name: string; key: string; callId?: string; args: unknown }): ToolTake {
    const free = this.cells.filter((c) => !this.used.has(c.seq) && c.kind === call.kind)
    if (call.callId) {
      const byId = free.find((c) => c.callId === call.callId)
      if (byId) {
        if (byId.name === call.name && byId.key === call.key) return this.hit(byId)
        return { kind: 'miss', closest: byId, diff: diffJson(byId.args, call.args), idMismatch: true }
      }
    }
    const byKey = free.find((c) => c.name === call.name && c.key === call.key)
    if (byKey) return this.hit(byKey)
    // SPEC §3 / issue 12: the MCP handshake need not repeat exactly (another client version or capabilities, a client
    // that connects twice): the next recorded message of the same method answers it, else the last one used.
    if (isMcpHandshake(call.name)) {
      const same = free.find((c) => c.name === call.name) ?? [...this.cells].reverse().find((c) => c.name === call.name && this.used.has(c.seq))
      if (same) return this.hit(same)
    }
    // @note the closest call for the message: the same tool, else (HTTP) the same method and path on another host:port.
    const endpoint = (name: string) => name.replace(/^(\S+) [^/]*/, '$1 ')
    const sameName =
      free.find((c) => c.name === call.name) ??
      this.cells.find((c) => c.name === call.name) ??
      (call.kind === 'http' ? free.find((c) => c.kind === 'http' && endpoint(c.name) === endpoint(call.name)) : undefined)
    return { kind: 'miss', closest: sameName, diff: sameName ? diffJson(sameName.args, call.args) : undefined, idMismatch: false }
  }

  /** Recorded calls never made, but for the MCP handshake, which a client shared across tests need not repeat. */
  unused(): ToolCell[] {
    return this.cells.filter((c) => !this.used.has(c.seq) && !isMcpHandshake(c.name))
  }

  private hit(cell: ToolCell): ToolTake {
    this.used.add(cell.seq)
    return { kind: 'hit', cell }
  }
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

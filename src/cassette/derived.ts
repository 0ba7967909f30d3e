/**
 * A model cell stores its body (`response.chunks`) and, beside it, what the body says: text, tool calls,
 * usage, finish reason, model, provider error. The agent is served the chunks; the outcome, the trace and
 * every matcher read the fields. They must agree, or a matcher asserts on something the agent never saw.
 */
import { stableJson } from './stable-json.js'
import { codecFor } from '../providers/registry.js'
import type { ModelCell } from './cell.js'
import { bodyBuffer, bodyText } from './chunks.js'

const FIELDS = ['text', 'toolCalls', 'usage', 'finishReason', 'model', 'providerError'] as const

/** Where a cell's stored fields disagree with its chunks: the field, and both values as JSON. */
export interface DerivedMismatch {
  field: (typeof FIELDS)[number]
  stored: string
  parsed: string
}

/**
 * The first field of `cell` that differs from what its chunks parse to with its family's codec (the
 * parse recording made), or `undefined` when they agree. Cells replay does not parse are not checked:
 * injected faults (a fork's change), truncated cells (never served) and calls with no response.
 * @example
 * derivedMismatch({ ...cell, text: 'edited' }) // { field: 'text', stored: '"edited"', parsed: '"Paris"' }
 */
export function derivedMismatch(cell: ModelCell): DerivedMismatch | undefined {
  if ('injected' in cell || cell.truncated) return undefined
  const { response } = cell
  const url = new URL(cell.url)
  const codec = codecFor(cell.family)
  const expected =
    response.status === 0
      ? { text: '', toolCalls: [], usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 }, model: cell.model }
      : (() => {
          const parsed = codec.parseResponse(
            bodyText(response.chunks),
            response.headers['content-type'],
            response.status,
            url,
            codec.binaryBody ? bodyBuffer(response.chunks) : undefined,
          )
          // @note a realtime socket's frame may name no model (Gemini Live names it in `setup` only): its cell keeps the
          // session's, which no one cell can check.
          const model = parsed.model ?? codec.parseRequest(cell.request.body, url).model ?? (codec.socket ? cell.model : undefined)
          return { ...parsed, model, providerError: parsed.error }
        })()
  for (const field of FIELDS) {
    // @note compared as stored: the parse goes through the same JSON round trip a write does (undefined dropped).
    const value = (expected as Record<string, unknown>)[field]
    if (sameAsJson(cell[field], value)) continue
    const stored = json(cell[field])
    const parsed = json(value)
    if (stored !== parsed) return { field, stored, parsed }
  }
  return undefined
}

const json = (v: unknown) => (v === undefined ? 'nothing' : stableJson(JSON.parse(JSON.stringify(v))))

/**
 * Whether `a` and `b` are surely equal as {@link json} compares them, without writing either out (issue 14: the two
 * JSON round trips per field were a third of a fixture's check). `false` means "compare the JSON".
 */
function sameAsJson(a: unknown, b: unknown): boolean {
  if (a === b) return typeof a !== 'number' || Number.isFinite(a)
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (a[i] === undefined || b[i] === undefined || !sameAsJson(a[i], b[i])) return false
    return true
  }
  if (Array.isArray(b) || Object.getPrototypeOf(a) !== Object.prototype || Object.getPrototypeOf(b) !== Object.prototype) return false
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined)
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined)
  if (ka.length !== kb.length) return false
  for (const k of ka) if (!Object.hasOwn(b, k) || !sameAsJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false
  return true
}

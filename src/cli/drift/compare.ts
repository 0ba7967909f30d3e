import { bodyText } from '../../cassette/chunks.js'
import type { ModelCell } from '../../cassette/cell.js'
import { codecFor } from '../../providers/registry.js'
import type { ParsedModelResponse } from '../../providers/types.js'
import { bodyShape, diffShapes, type ShapeChange } from './shape.js'

/** A live answer, read whole. */
export interface LiveResponse {
  status: number
  contentType: string | undefined
  body: string
}

/**
 * How the live answer's shape differs from the recorded one: the body's shape (event kinds, their
 * order, fields and types), then what the family's codec reads from both (finish reason, usage,
 * tool-call structure, an error the provider reported). Never the bytes or the text.
 * @example
 * compareResponse(cell, { status: 200, contentType: 'text/event-stream', body }) // [] when the shape held
 */
export function compareResponse(cell: ModelCell, live: LiveResponse): ShapeChange[] {
  const recordedBody = bodyText(cell.response.chunks)
  const recordedType = cell.response.headers['content-type']
  const out: ShapeChange[] = []
  if (cell.response.status !== live.status)
    out.push({ kind: 'status changed', path: 'status', recorded: String(cell.response.status), live: String(live.status) })
  out.push(...diffShapes(bodyShape(recordedBody, recordedType), bodyShape(live.body, live.contentType)))
  const url = new URL(cell.url)
  const codec = codecFor(cell.family)
  const before = codec.parseResponse(recordedBody, recordedType, cell.response.status, url)
  const after = codec.parseResponse(live.body, live.contentType, live.status, url)
  if (after.error && !before.error)
    out.push({ kind: 'provider error', path: 'error', live: `${after.error.type ? `${after.error.type}: ` : ''}${after.error.message}` })
  if ((before.finishReason ?? null) !== (after.finishReason ?? null))
    out.push({ kind: 'finish reason changed', path: 'finishReason', recorded: before.finishReason ?? 'none', live: after.finishReason ?? 'none' })
  for (const field of ['input', 'output'] as const)
    if (before.usage[field] > 0 && after.usage[field] === 0)
      out.push({ kind: 'usage missing', path: `usage.${field}`, recorded: `${before.usage[field]} tokens` })
  const calls = (r: ParsedModelResponse) =>
    r.toolCalls.map((c) => `${c.name}(${c.args !== null && typeof c.args === 'object' ? 'object' : typeof c.args})`).join(', ') || 'none'
  if (calls(before) !== calls(after)) out.push({ kind: 'tool calls changed', path: 'toolCalls', recorded: calls(before), live: calls(after) })
  return out
}

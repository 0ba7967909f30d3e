/**
 * The shape of a model response, and the difference of two shapes, for `fluxlab drift`: what a
 * provider sends, not the bytes it sends. A JSON value's shape is its types and fields (arrays by
 * the merged shape of their elements); a stream's shape is the order of its event kinds (repeats
 * collapsed, so a longer answer streamed in more deltas is the same shape) and, per kind, the
 * merged shape of every event of that kind.
 */
import { isRecord, safeJsonParse } from '../../providers/json.js'
import { looksLikeSse, parseSse } from '../../providers/sse.js'

type JsonType = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object'

/** The types a JSON path was seen with, and for objects and arrays what they held. */
interface Shape {
  types: Set<JsonType>
  fields?: Map<string, Shape>
  /** The merged shape of every element (absent while every array seen was empty). */
  items?: Shape
}

/** What a whole response body is, shape-wise. */
export interface BodyShape {
  format: 'sse' | 'json' | 'text' | 'empty'
  /** SSE: the event kinds in order, consecutive repeats collapsed. */
  order: string[]
  /** Per event kind (SSE) or `body` (JSON): the merged shape. */
  kinds: Map<string, Shape>
}

/** One way two shapes differ, at a JSON path. */
export interface ShapeChange {
  kind:
    | 'added field'
    | 'removed field'
    | 'type changed'
    | 'new event type'
    | 'event type gone'
    | 'order changed'
    | 'format changed'
    | 'status changed'
    | 'finish reason changed'
    | 'usage missing'
    | 'tool calls changed'
    | 'provider error'
  path: string
  recorded?: string
  live?: string
}

/**
 * Keys whose object value is the model's own choice (tool-call arguments): typed, never walked, so
 * different arguments are not a different shape. Tool-call structure is compared on its own.
 */
const OPAQUE = new Set(['input', 'args', 'arguments', 'partialArgs'])

function typeOf(v: unknown): JsonType {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  const t = typeof v
  return t === 'boolean' || t === 'number' || t === 'string' ? t : 'object'
}

/**
 * The shape of one JSON value.
 * @example
 * describeShape(shapeOf({ a: [1, 'x'] })) // '{a: [number|string]}'
 */
function shapeOf(v: unknown, key?: string): Shape {
  const s: Shape = { types: new Set([typeOf(v)]) }
  if (Array.isArray(v)) {
    for (const item of v) s.items = s.items ? merge(s.items, shapeOf(item)) : shapeOf(item)
  } else if (isRecord(v) && !(key !== undefined && OPAQUE.has(key))) {
    s.fields = new Map(Object.entries(v).map(([k, x]) => [k, shapeOf(x, k)]))
  }
  return s
}

/** The union of two shapes (a field seen in either, every type seen). */
function merge(a: Shape, b: Shape): Shape {
  const out: Shape = { types: new Set([...a.types, ...b.types]) }
  if (a.fields || b.fields) {
    out.fields = new Map(a.fields)
    for (const [k, v] of b.fields ?? []) out.fields.set(k, out.fields.has(k) ? merge(out.fields.get(k)!, v) : v)
  }
  if (a.items || b.items) out.items = a.items && b.items ? merge(a.items, b.items) : (a.items ?? b.items)
  return out
}

const types = (s: Shape) => [...s.types].sort().join('|')

/**
 * A shape in one line, for messages: `{role: string, content: null|string}`.
 * @example
 * describeShape(shapeOf([{ a: 1 }])) // '[{a: number}]'
 */
function describeShape(s: Shape, depth = 0): string {
  if (depth > 2) return types(s)
  const parts: string[] = []
  for (const t of [...s.types].sort()) {
    if (t === 'object' && s.fields) parts.push(`{${[...s.fields].map(([k, v]) => `${k}: ${describeShape(v, depth + 1)}`).join(', ')}}`)
    else if (t === 'array' && s.items) parts.push(`[${describeShape(s.items, depth + 1)}]`)
    else parts.push(t)
  }
  const text = parts.join('|')
  return text.length > 120 ? `${text.slice(0, 119)}…` : text
}

/**
 * The kind of one stream event: its `event:` name, else its `type` (Anthropic, Responses) or `object`
 * (OpenAI chat), refined by what it carries, so a text delta and a tool-call delta are two kinds:
 * the `type` of each object it holds (`content_block_delta/text_delta`), and for choice/candidate
 * chunks (OpenAI chat, Gemini), which carry no type, the non-null parts of the first choice, a finish
 * reason and usage (`chat.completion.chunk/content`, `…/finish`, `…/usage`).
 * @note Structural on purpose (no family names): a family added to the registry gets kinds for free.
 */
function eventKind(event: string | undefined, json: unknown): string {
  if (!isRecord(json)) return `${event ?? 'data'}(${typeOf(json)})`
  const base = event ?? (typeof json.type === 'string' ? json.type : typeof json.object === 'string' ? json.object : 'data')
  const tags: string[] = []
  for (const [k, v] of Object.entries(json))
    if (isRecord(v) && typeof v.type === 'string' && v.type !== k)
      tags.push(`${k === 'delta' || k === 'content_block' || k === 'item' || k === 'part' ? '' : `${k}.`}${v.type}`)
  const choices = Array.isArray(json.choices) ? json.choices : Array.isArray(json.candidates) ? json.candidates : undefined
  const first: unknown = choices?.[0]
  if (isRecord(first)) {
    const delta = isRecord(first.delta) ? first.delta : isRecord(first.message) ? first.message : undefined
    for (const [k, v] of Object.entries(delta ?? {})) if (v !== null && v !== undefined && v !== '') tags.push(k)
    const parts = isRecord(first.content) && Array.isArray(first.content.parts) ? first.content.parts : []
    for (const k of new Set(parts.flatMap((p) => (isRecord(p) ? Object.keys(p) : [])))) tags.push(k)
    if (first.finish_reason != null || first.finishReason != null) tags.push('finish')
  }
  if (choices && (json.usage != null || json.usageMetadata != null)) tags.push('usage')
  return tags.length ? `${base}/${[...new Set(tags)].join(',')}` : base
}

/**
 * The shape of a whole response body as received.
 * @example
 * bodyShape('data: {"type":"ping"}\n\n', 'text/event-stream').order // ['ping']
 */
export function bodyShape(body: string, contentType: string | undefined): BodyShape {
  if (body.trim() === '') return { format: 'empty', order: [], kinds: new Map() }
  if (looksLikeSse(body, contentType)) {
    const order: string[] = []
    const kinds = new Map<string, Shape>()
    for (const e of parseSse(body)) {
      const json = e.data === '[DONE]' ? undefined : safeJsonParse(e.data)
      const kind = e.data === '[DONE]' ? `${e.event ?? 'data'}([DONE])` : json === undefined ? `${e.event ?? 'data'}(text)` : eventKind(e.event, json)
      if (order[order.length - 1] !== kind) order.push(kind)
      if (json !== undefined) kinds.set(kind, kinds.has(kind) ? merge(kinds.get(kind)!, shapeOf(json)) : shapeOf(json))
    }
    return { format: 'sse', order, kinds }
  }
  const json = safeJsonParse(body)
  if (json === undefined) {
    // @note a streamed Gemini JSON array without alt=sse, or NDJSON: one document per line when each line parses.
    const lines = body.split('\n').filter((l) => l.trim() !== '')
    const docs = lines.map((l) => safeJsonParse(l))
    if (lines.length > 1 && docs.every((d) => d !== undefined))
      return { format: 'json', order: [], kinds: new Map([['body', docs.map((d) => shapeOf(d)).reduce(merge)]]) }
    return { format: 'text', order: [], kinds: new Map() }
  }
  return { format: 'json', order: [], kinds: new Map([['body', shapeOf(json)]]) }
}

/**
 * How `live` differs from `recorded`, as JSON-path rows: fields added or removed, types changed
 * (a type the recording never saw there), event kinds new or gone, the order of the kinds.
 * @example
 * diffShapes(bodyShape(recorded, ct), bodyShape(live, ct)) // [{ kind: 'added field', path: 'event[message_delta].delta.reason', live: 'string' }]
 */
export function diffShapes(recorded: BodyShape, live: BodyShape): ShapeChange[] {
  if (recorded.format !== live.format) return [{ kind: 'format changed', path: 'body', recorded: recorded.format, live: live.format }]
  const out: ShapeChange[] = []
  const label = (kind: string) => (recorded.format === 'sse' ? `event[${kind}]` : '$')
  for (const kind of new Set(live.order))
    if (!recorded.order.includes(kind))
      out.push({ kind: 'new event type', path: label(kind), live: describeShape(live.kinds.get(kind) ?? { types: new Set() }) || 'no JSON' })
  for (const kind of new Set(recorded.order)) if (!live.order.includes(kind)) out.push({ kind: 'event type gone', path: label(kind) })
  const common = (order: string[]) => order.filter((k) => recorded.order.includes(k) && live.order.includes(k))
  const [a, b] = [common(recorded.order), common(live.order)]
  if (a.join('\n') !== b.join('\n')) out.push({ kind: 'order changed', path: 'events', recorded: a.join(' → '), live: b.join(' → ') })
  for (const [kind, shape] of recorded.kinds) {
    const other = live.kinds.get(kind)
    if (other) walk(shape, other, label(kind), out)
  }
  return out
}

function walk(a: Shape, b: Shape, path: string, out: ShapeChange[]): void {
  if ([...b.types].some((t) => !a.types.has(t))) out.push({ kind: 'type changed', path, recorded: types(a), live: types(b) })
  if (a.fields && b.fields) {
    for (const [k, v] of b.fields) if (!a.fields.has(k)) out.push({ kind: 'added field', path: `${path}.${k}`, live: describeShape(v) })
    for (const [k, v] of a.fields) {
      const w = b.fields.get(k)
      if (!w) out.push({ kind: 'removed field', path: `${path}.${k}`, recorded: describeShape(v) })
      else walk(v, w, `${path}.${k}`, out)
    }
  }
  if (a.items && b.items) walk(a.items, b.items, `${path}[*]`, out)
}

/**
 * One change as a report line.
 * @example
 * renderChange({ kind: 'type changed', path: '$.usage.input_tokens', recorded: 'number', live: 'string' })
 * // '$.usage.input_tokens  type changed: number → string'
 */
export function renderChange(c: ShapeChange): string {
  switch (c.kind) {
    case 'added field':
    case 'new event type':
      return `${c.path}  ${c.kind} (${c.live})`
    case 'removed field':
      return `${c.path}  ${c.kind} (was ${c.recorded})`
    case 'event type gone':
    case 'usage missing':
      return `${c.path}  ${c.kind}${c.recorded ? ` (was ${c.recorded})` : ''}`
    case 'order changed':
      return `${c.path}  ${c.kind}: was ${c.recorded}, now ${c.live}`
    case 'provider error':
      return `${c.path}  ${c.kind}: ${c.live}`
    default:
      return `${c.path}  ${c.kind}: ${c.recorded} → ${c.live}`
  }
}

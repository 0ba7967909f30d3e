import type { Chunk, RecordedResponse } from './cell.js'
import { bodyText, decodeChunk, encodeChunk } from './chunks.js'

/** What today's request says that its recorded answer must say instead of what the recording's request said. */
interface Addressee {
  /** The JSON-RPC id the client sent today. */
  rpcId?: string | number
  /** Today's request body, read for its MCP progress token (`params._meta.progressToken`) only when the answer carries progress. */
  body: Uint8Array
}

type Message = { id?: unknown; method?: unknown; params?: { progressToken?: unknown } }

/**
 * A recorded JSON-RPC answer (an SSE stream, an NDJSON stream, or a JSON body) re-addressed to today's request: the
 * response to the recorded request carries the id the client sent today, and the progress notifications on it carry
 * today's progress token. Nothing else in a message changes (a result whose own data holds an `"id"` keeps it), and
 * a message split across chunks is re-addressed whole.
 * @note issue 28: the ids and tokens of parallel calls depend on the order the client made them in; the chunks were
 * rewritten as text (`"id":3` anywhere), so a structured result with `"id":3` was served altered, and an id split
 * between two chunks was not re-addressed at all.
 * @example
 * readdressed(cell.response, cell.rpcId, { rpcId: 7, body: call.bytes })
 */
export function readdressed(rec: RecordedResponse, recordedId: string | number | undefined, now: Addressee): RecordedResponse {
  const moveId = recordedId !== undefined && now.rpcId !== undefined && recordedId !== now.rpcId
  const token = rec.chunks.some(mayCarryProgress) ? progressTokenOf(now.body) : undefined
  if (!moveId && token === undefined) return rec
  const fix = (m: Message): boolean => {
    let changed = false
    if (moveId && m.method === undefined && m.id === recordedId && ('result' in m || 'error' in m)) {
      m.id = now.rpcId
      changed = true
    }
    if (token !== undefined && m.method === 'notifications/progress' && m.params && m.params.progressToken !== token) {
      m.params.progressToken = token
      changed = true
    }
    return changed
  }
  const type = rec.headers['content-type'] ?? ''
  // A JSON body is one message (or a batch), however it is laid out; a stream is one message a line.
  const chunks = /json/.test(type) && !/ndjson/.test(type) ? wholeBody(rec.chunks, fix) : byLine(rec.chunks, fix)
  return chunks ? { ...rec, chunks } : rec
}

const mayCarryProgress = (c: Chunk) => c.b64 !== undefined || c.text?.includes('notifications/progress') === true

function progressTokenOf(body: Uint8Array): unknown {
  try {
    const token = (JSON.parse(Buffer.from(body).toString('utf8')) as { params?: { _meta?: { progressToken?: unknown } } }).params?._meta?.progressToken
    return typeof token === 'string' || typeof token === 'number' ? token : undefined
  } catch {
    return undefined
  }
}

/** `line` (an SSE `data:` line, or a line of JSON) with its messages fixed, or `undefined` when none changed. */
function fixLine(line: string, fix: (m: Message) => boolean): string | undefined {
  const cr = line.endsWith('\r') ? '\r' : ''
  const content = cr ? line.slice(0, -1) : line
  const prefix = /^data: ?/.exec(content)?.[0] ?? ''
  const json = content.slice(prefix.length).trim()
  if (!json.startsWith('{') && !json.startsWith('[')) return undefined
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch {
    return undefined
  }
  const messages = (Array.isArray(value) ? value : [value]).filter((m): m is Message => m !== null && typeof m === 'object')
  let changed = false
  for (const m of messages) changed = fix(m) || changed
  return changed ? `${prefix}${JSON.stringify(value)}${cr}` : undefined
}

/** The whole body fixed as one, served as one chunk when the last one came; `undefined` when nothing changed. */
function wholeBody(chunks: readonly Chunk[], fix: (m: Message) => boolean): Chunk[] | undefined {
  const fixed = fixLine(bodyText(chunks), fix)
  return fixed === undefined ? undefined : [{ t: chunks.at(-1)?.t ?? 0, text: fixed }]
}

/**
 * Every complete line fixed, chunk by chunk; a line that runs on into the next chunk moves there whole, so the chunks
 * keep their boundaries but where a message was split. `undefined` when nothing changed.
 */
function byLine(chunks: readonly Chunk[], fix: (m: Message) => boolean): Chunk[] | undefined {
  const out: Chunk[] = []
  let carry: Uint8Array = new Uint8Array(0)
  let changed = false
  const lines = (bytes: Uint8Array): Uint8Array => {
    const text = Buffer.from(bytes).toString('utf8').split('\n')
    let any = false
    const fixed = text.map((line) => {
      const f = fixLine(line, fix)
      if (f !== undefined) any = true
      return f ?? line
    })
    if (!any) return bytes
    changed = true
    return new Uint8Array(Buffer.from(fixed.join('\n'), 'utf8'))
  }
  for (const c of chunks) {
    const bytes = carry.length ? new Uint8Array(Buffer.concat([carry, decodeChunk(c)])) : decodeChunk(c)
    const end = bytes.lastIndexOf(0x0a) + 1
    carry = bytes.subarray(end)
    if (end > 0) out.push(encodeChunk(lines(bytes.subarray(0, end)), c.t))
  }
  if (carry.length) out.push(encodeChunk(lines(carry), chunks.at(-1)?.t ?? 0))
  return changed ? out : undefined
}

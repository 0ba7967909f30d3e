import { isRecord, safeJsonParse, type JsonRecord } from './json.js'

/**
 * One server-sent event: its `event:` name (when the stream names it) and its joined `data:` lines.
 * @example
 * const ping: SseEvent = { event: 'ping', data: '{"type":"ping"}' }
 */
export interface SseEvent {
  event?: string
  data: string
}

/**
 * Split a whole SSE body into events. Events end at a blank line; `\n`,
 * `\r\n` and `\r` line endings all work; several `data:` lines join with
 * `\n`; `:` comment lines and `id:`/`retry:` fields are skipped; an event
 * with no `data:` line is dropped. A last event without its closing blank
 * line (a cut stream) is still returned.
 * @note Trailing whitespace is trimmed from every field value: Anthropic pads
 * `data:` lines with spaces after the JSON, and no provider's payload ends in
 * meaningful whitespace.
 * @example
 * parseSse('event: ping\ndata: {"type":"ping"}\n\ndata: [DONE]\n\n')
 * // [{ event: 'ping', data: '{"type":"ping"}' }, { data: '[DONE]' }]
 */
export function parseSse(body: string): SseEvent[] {
  const events: SseEvent[] = []
  let event: string | undefined
  let data: string[] = []
  const flush = (): void => {
    if (data.length > 0) events.push(event === undefined ? { data: data.join('\n') } : { event, data: data.join('\n') })
    event = undefined
    data = []
  }
  // issue 14: every fixture read parses each stored stream; most have no \r, and a plain split is several times faster
  for (const line of body.includes('\r') ? body.split(/\r\n|\r|\n/) : body.split('\n')) {
    if (line.trim() === '') {
      flush()
      continue
    }
    if (line.startsWith(':')) continue
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    value = value.trimEnd()
    if (field === 'data') data.push(value)
    else if (field === 'event') event = value
  }
  flush()
  return events
}

/**
 * True when a body reads as an SSE stream: the content type says so, or the
 * first non-blank line is an SSE field or comment.
 * @example
 * looksLikeSse('data: {}\n\n', undefined) // true
 * looksLikeSse('{"id":"x"}', 'text/event-stream') // false: a JSON body wins over a wrong header
 */
export function looksLikeSse(body: string, contentType: string | undefined): boolean {
  const start = body.trimStart()
  if (start.startsWith('{') || start.startsWith('[')) return false
  if (contentType?.toLowerCase().includes('text/event-stream')) return true
  return /^(data|event|id|retry):|^:/.test(start)
}

/**
 * The JSON payloads of a parsed SSE stream's events, skipping `[DONE]` and
 * data that does not parse (a cut last line). Each payload is paired with
 * the event name when the stream had `event:` lines.
 * @example
 * ssePayloads(parseSse('data: {"a":1}\n\ndata: [DONE]\n\n')) // [{ event: undefined, json: { a: 1 } }]
 */
export function ssePayloads(events: readonly SseEvent[]): Array<{ event?: string; json: JsonRecord }> {
  const out: Array<{ event?: string; json: JsonRecord }> = []
  for (const e of events) {
    if (e.data === '[DONE]') continue
    const json = safeJsonParse(e.data)
    if (isRecord(json)) out.push({ event: e.event, json })
  }
  return out
}

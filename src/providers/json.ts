/**
 * A plain JSON object.
 * @example
 * const usage: JsonRecord = { prompt_tokens: 16 }
 */
export type JsonRecord = Record<string, unknown>

/**
 * Parse JSON, or `undefined` when the text is not JSON (never throws).
 * @example
 * safeJsonParse('{"a":1}') // { a: 1 }
 * safeJsonParse('{"a":') // undefined
 */
export function safeJsonParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/**
 * True for a non-null, non-array object.
 * @example
 * isRecord({}) // true
 * isRecord([]) // false
 */
export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The value when it is an object, else an empty object, so lookups chain safely.
 * @example
 * rec(undefined).usage // undefined
 */
export function rec(value: unknown): JsonRecord {
  return isRecord(value) ? value : {}
}

/**
 * The value when it is an array, else an empty array.
 * @example
 * arr(null) // []
 */
function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}

/**
 * The value when it is a finite number, else 0.
 * @example
 * num('12') // 0
 */
export function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0
}

/**
 * The value when it is a non-empty string, else `undefined`.
 * @example
 * str('') // undefined
 */
export function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

/**
 * Tool-call arguments as sent on the wire (a JSON string) to a value: the
 * parsed JSON, or the raw string when it does not parse (a cut stream).
 * @note An empty string means "no arguments" and gives `{}`: OpenAI and
 * Anthropic stream an empty piece for tools without parameters.
 * @example
 * parseToolArgs('{"city":"Paris"}') // { city: 'Paris' }
 * parseToolArgs('{"city":"Pa') // '{"city":"Pa'
 */
export function parseToolArgs(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? {}
  if (raw.trim() === '') return {}
  const parsed = safeJsonParse(raw)
  return parsed === undefined ? raw : parsed
}

/**
 * Text of a content value that is either a string or an array of parts
 * carrying `text` (OpenAI content parts, Anthropic text blocks, Gemini parts).
 * @example
 * contentText([{ type: 'text', text: 'a' }, { type: 'image' }, { type: 'text', text: 'b' }]) // 'ab'
 */
export function contentText(content: unknown, join = ''): string {
  if (typeof content === 'string') return content
  return arr(content)
    .map((part) => rec(part).text)
    .filter((t): t is string => typeof t === 'string')
    .join(join)
}

/**
 * The objects in a value that should be an array of objects (anything else dropped).
 * @example
 * records([{ a: 1 }, 'x', null]) // [{ a: 1 }]
 */
export function records(value: unknown): JsonRecord[] {
  return arr(value).filter(isRecord)
}

/**
 * Complete top-level JSON objects found in a streamed JSON array
 * (`[{…},\r\n{…}]`, Gemini's `streamGenerateContent` without `alt=sse`).
 * A cut array still yields the objects that arrived whole.
 * @example
 * jsonArrayObjects('[{"a":1},\r\n{"b":"}"},{"c":') // [{ a: 1 }, { b: '}' }]
 */
export function jsonArrayObjects(body: string): unknown[] {
  const whole = safeJsonParse(body.trim())
  if (Array.isArray(whole)) return whole
  const out: unknown[] = []
  let depth = 0
  let start = -1
  let inString = false
  for (let i = 0; i < body.length; i++) {
    const c = body[i]
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') inString = false
      continue
    }
    if (c === '"') inString = true
    else if (c === '{') {
      if (depth === 0) start = i
      depth++
    } else if (c === '}' && depth > 0) {
      depth--
      if (depth === 0) {
        const value = safeJsonParse(body.slice(start, i + 1))
        if (value !== undefined) out.push(value)
      }
    }
  }
  return out
}

/**
 * True for an array of strings only.
 * @example
 * isStrings(['a', 'b']) // true
 * isStrings(['a', 1]) // false
 */
export function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((x) => typeof x === 'string')
}

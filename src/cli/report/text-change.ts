/** How a review shows a changed text: the part that changed, with a little of what stays the same around it. */

/** Characters of unchanged text kept on each side of a change. */
const CONTEXT = 40
/** Longest changed part shown, per side. */
const WIDTH = 240

/**
 * Both texts cut to the change: the common start and end dropped down to {@link CONTEXT} characters (marked `…`),
 * the changed middle kept (up to {@link WIDTH}), on one line.
 * @example
 * around('What is the capital of the UK? Use the tool.', 'What is the capital of France? Use the tool.')
 * // ['What is the capital of the UK? Use the tool.', 'What is the capital of France? Use the tool.'] (short: kept whole)
 */
export function around(a: string, b: string): [string, string] {
  let start = 0
  while (start < a.length && start < b.length && a[start] === b[start]) start++
  let end = 0
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++
  const cut = (s: string) => {
    const from = Math.max(0, start - CONTEXT)
    const to = Math.min(s.length, s.length - end + CONTEXT)
    let middle = s.slice(from, to)
    if (middle.length > WIDTH + 2 * CONTEXT) middle = `${middle.slice(0, CONTEXT + WIDTH)}…${middle.slice(-CONTEXT)}`
    return `${from > 0 ? '…' : ''}${middle}${to < s.length ? '…' : ''}`.replace(/\s*\n\s*/g, ' ⏎ ')
  }
  return [cut(a), cut(b)]
}

/** Arrays of conversation messages in the providers' request bodies (chat, Responses, Anthropic, Gemini). */
const MESSAGES = /^(messages|input|contents)\[(\d+)\]\.?(.*)$/

/**
 * Which message and which field a JSON path of a request body is: `messages[2].content` is `message 3 (user)`, field
 * `content`; a path outside the messages is its own field.
 * @example
 * fieldOf('messages[0].content', { messages: [{ role: 'user', content: 'hi' }] }) // { message: 'message 1 (user)', field: 'content' }
 */
export function fieldOf(path: string, body?: unknown): { message?: string; field: string } {
  const m = MESSAGES.exec(path)
  if (!m) return { field: path }
  const list = (body as Record<string, unknown> | undefined)?.[m[1]]
  const role = Array.isArray(list) ? (list[Number(m[2])] as { role?: unknown } | undefined)?.role : undefined
  return { message: `message ${Number(m[2]) + 1}${typeof role === 'string' ? ` (${role})` : ''}`, field: m[3] || '(the whole message)' }
}

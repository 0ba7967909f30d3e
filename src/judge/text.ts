import { redactMessage } from '../secrets/redact.js'

/**
 * A redacted one-line excerpt of a reply for error messages: newlines shown as `\n`,
 * cut to `max` characters with `…`. Redacted before cutting, so no part of a secret shows.
 * @example
 * excerptOf('{"choices":[]}\n') // '{"choices":[]}\n'
 */
export function excerptOf(text: string, max = 500): string {
  if (text.trim() === '') return '(empty)'
  const t = redactMessage(text).replace(/\r?\n/g, '\\n')
  return t.length > max ? `${t.slice(0, max - 1)}…` : t
}

/**
 * What the redactor (redact.ts) uses only where it replaces something: a query value decoded and %-encoded again, and
 * whether a span overlaps one already replaced.
 */
import type { ReplaceSpan } from '../secrets/redact.js'

/**
 * A redacted query value, %-encoded again; its placeholders stay readable.
 * @example
 * encodeQueryValue('a b [REDACTED:0badc0de]') // 'a%20b%20[REDACTED:0badc0de]'
 */
export function encodeQueryValue(s: string): string {
  return encodeURIComponent(s).replace(/%5BREDACTED%3A([0-9a-f]{8})%5D/g, '[REDACTED:$1]')
}

/** Whether `span` overlaps any of the spans `sorted`. */
export const overlapsAny = (sorted: readonly ReplaceSpan[], span: ReplaceSpan): boolean => sorted.some((s) => s.start < span.end && span.start < s.end)

/**
 * A query value decoded (`+` as a space), or as it is when it is no valid %-encoding.
 * @example
 * safeDecode('a+b%21') // 'a b!'
 */
export function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '))
  } catch {
    return s
  }
}

/**
 * Stable JSON: keys sorted at every level, so equal values give equal text (keys, digests, fixture lines).
 * @note issue 28: `safe-stable-stringify` gives the text `fast-json-stable-stringify` gave for every JSON value (sorted
 * by UTF-16 code units, `undefined` dropped, `toJSON` honoured), in about half the time: a replayed request is keyed
 * by this text. A circular value throws, as it did.
 */
import * as crypto from 'node:crypto'
import { configure } from 'safe-stable-stringify'

const stringify = configure({ deterministic: true, circularValue: TypeError })

/**
 * `value` as JSON with its object keys sorted.
 * @example
 * stableJson({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 */
export function stableJson(value: unknown): string {
  return stringify(value) as string
}

/**
 * The SHA-256 of `text`, as hex.
 * @note `crypto.hash` (Node 20.12) hashes a short string in a third of `createHash`'s time; older Node 20 has only the latter.
 * @example
 * sha256Hex('') // 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
 */
export const sha256Hex: (text: string) => string =
  // a namespace import: a named import of `hash` fails to link on Node 20 before 20.12
  typeof crypto.hash === 'function' ? (text) => crypto.hash('sha256', text, 'hex') : (text) => crypto.createHash('sha256').update(text).digest('hex')

/**
 * Stable JSON and its SHA-256: equal values give equal text (request keys, digests, fixture lines).
 * @note issue 28: `safe-stable-stringify` gives the text `fast-json-stable-stringify` gave for every JSON value (keys
 * sorted by UTF-16 code units, `undefined` dropped, `toJSON` honoured) in about half the time, and `crypto.hash` (Node
 * 20.12) hashes a short string in a third of `createHash`'s: a replayed request is keyed by both. A circular value throws.
 */
import * as crypto from 'node:crypto'
import { configure } from 'safe-stable-stringify'

/**
 * `value` as JSON with its object keys sorted.
 * @example
 * stableJson({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 */
export const stableJson = configure({ deterministic: true, circularValue: TypeError }) as (value: unknown) => string

/**
 * The SHA-256 of `text`, as hex.
 * @note the library's own functions, not wrappers of ours: keying a request runs none of this file's code (issue 25's
 * path). A namespace import: a named import of `hash` fails to link on Node 20 before 20.12, which has only `createHash`.
 * @example
 * sha256Hex('') // 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
 */
export const sha256Hex: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (crypto.hash.bind(undefined, 'sha256') as (text: string) => string)
    : (text) => crypto.createHash('sha256').update(text).digest('hex')

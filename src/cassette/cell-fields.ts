/**
 * What the fields of a cell must be, as both checks of what replay reads use them: the zod schemas
 * (src/cassette/cell-schema.ts) and the same checks by hand (src/cassette/cell-check.ts).
 */
import { familyTables } from '../providers/registry.js'

/** A JSON string that is well-formed UTF-16 (a lone surrogate would be written to the wire as U+FFFD, not as stored). */
export const wellFormed = (s: string) => (s as string & { isWellFormed(): boolean }).isWellFormed()
/** Canonical padded base64, the only form `encodeChunk` writes: any other text would decode to other bytes, or silently drop some. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
export const isCanonicalBase64 = (s: string) => BASE64.test(s) && Buffer.from(s, 'base64').toString('base64') === s
/** A header name as fluxlab keeps it: a lowercase HTTP token. */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/
/** A header value `Headers` passes through unchanged: visible ASCII or Latin-1, inner spaces and tabs, nothing to trim. */
export const HEADER_VALUE = /^(?:[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?$/
/** Headers a stored (decoded) body never carries: serving them would describe bytes that are not there. */
export const NEVER_KEPT = new Set(['content-length', 'content-encoding', 'transfer-encoding'])
/** Statuses a Response has no body for: chunks stored with them would never reach the client. */
export const NULL_BODY = new Set([101, 204, 205, 304])
export const KEY = /^sha256:[0-9a-f]{64}$/
/** Whether a cell's `family` names a registered provider family (the registry's, read at each check: a family may be registered later). */
export const isFamily = (v: unknown): boolean => typeof v === 'string' && familyTables.names.has(v)
/** What a cell's `family` must be, naming the families registered now. */
export const familyExpected = (): string => `expected "family" (one of ${[...familyTables.names].join(', ')})`
/**
 * A manifest's `source.runner`: an open token naming the runner that recorded it (`vitest`, `jest`, `playwright`, or a
 * runner registered with `registerRunner`). The fixture layer names no runner; src/runners reads the token.
 */
export const isRunnerToken = (v: unknown): boolean => typeof v === 'string' && /^[a-z][a-z0-9-]*$/.test(v)

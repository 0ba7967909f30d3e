/**
 * The checks of src/cassette/cell-schema.ts, hand-written, for the read path.
 * @note issue 14: zod took about an eighth of a fixture's first read. {@link isModelCell} and {@link isToolCell}
 * accept exactly what the schemas accept (test/engine/fixture-check.test.ts proves it on the fuzz corpus of
 * bench/mutate.mjs); the reader asks zod only about a line they refuse, for its message, so a line the fast check
 * refused wrongly is still read. A change to a schema there must be made here too.
 */
import { HEADER_NAME, HEADER_VALUE, isCanonicalBase64, isRunnerToken, NEVER_KEPT, NULL_BODY, wellFormed } from './cell-fields.js'
import { familyTables } from '../providers/registry.js'
import { isStrings } from '../providers/json.js'

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)
const isNonNeg = (v: unknown) => isNum(v) && v >= 0
const isCount = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0
const isText = (v: unknown) => typeof v === 'string' && wellFormed(v)
const isOptText = (v: unknown) => v === undefined || isText(v)
const CHUNK_KEYS: ReadonlySet<string> = new Set(['t', 'text', 'b64'])

function isChunk(c: unknown): boolean {
  if (!isObj(c) || !isNonNeg(c.t)) return false
  for (const k of Object.keys(c)) if (!CHUNK_KEYS.has(k)) return false
  const { text, b64 } = c
  if (text !== undefined && !isText(text)) return false
  if (b64 !== undefined && !(typeof b64 === 'string' && isCanonicalBase64(b64))) return false
  return (text === undefined) !== (b64 === undefined)
}

function isResponse(r: unknown): boolean {
  if (!isObj(r)) return false
  const { status, headers, chunks, open, clientAbort, afterEnd } = r
  if (!Number.isSafeInteger(status) || !((status as number) === 0 || ((status as number) >= 200 && (status as number) <= 599))) return false
  if (!isObj(headers)) return false
  for (const name of Object.keys(headers)) {
    const value = headers[name]
    if (!HEADER_NAME.test(name) || NEVER_KEPT.has(name) || typeof value !== 'string' || !HEADER_VALUE.test(value)) return false
  }
  if (!Array.isArray(chunks)) return false
  for (const c of chunks) if (!isChunk(c)) return false
  if ((open !== undefined && open !== true) || (afterEnd !== undefined && afterEnd !== true)) return false
  if (clientAbort !== undefined && !(isObj(clientAbort) && isCount(clientAbort.afterChunks) && isNonNeg(clientAbort.t))) return false
  if ((status === 0 || NULL_BODY.has(status as number)) && chunks.length !== 0) return false
  return clientAbort === undefined || (clientAbort as { afterChunks: number }).afterChunks === chunks.length
}

const isTransportError = (e: unknown) => e === undefined || (isObj(e) && isText(e.name) && isText(e.message) && isOptText(e.code))
/** `KEY` of cell-fields.ts by hand: `sha256:` and 64 lowercase hex digits (the regex cost more than all the other checks of a line). */
function isKey(k: unknown): boolean {
  if (typeof k !== 'string' || k.length !== 71 || !k.startsWith('sha256:')) return false
  for (let i = 7; i < 71; i++) {
    const c = k.charCodeAt(i)
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false
  }
  return true
}
const isOptDigest = (v: unknown) => v === undefined || isKey(v)

/**
 * Whether `v` is a model.jsonl line {@link modelCellSchema} accepts (the same set, without zod's cost).
 * @example
 * isModelCell(JSON.parse(line)) || modelCellSchema.safeParse(JSON.parse(line)).success
 */
export function isModelCell(v: unknown): boolean {
  if (!isObj(v)) return false
  const { request, response, usage, toolCalls, providerError } = v
  if (!isCount(v.seq) || !isText(v.step) || !isKey(v.key) || !(typeof v.family === 'string' && familyTables.names.has(v.family))) return false
  if (typeof v.url !== 'string' || !URL.canParse(v.url)) return false
  if (!isObj(request) || !isText(request.method) || !isText(request.path)) return false
  if (!isResponse(response)) return false
  if (!isOptText(v.model) || !isOptText(v.finishReason) || !isText(v.text) || !isOptText(v.injected)) return false
  if (
    !isObj(usage) ||
    !isNonNeg(usage.input) ||
    !isNonNeg(usage.output) ||
    !isNonNeg(usage.cacheRead) ||
    !isNonNeg(usage.cacheWrite) ||
    !isNonNeg(usage.reasoning)
  )
    return false
  if (!Array.isArray(toolCalls)) return false
  for (const c of toolCalls) if (!isObj(c) || !isText(c.id) || !isText(c.name)) return false
  if (providerError !== undefined && !(isObj(providerError) && isOptText(providerError.type) && isText(providerError.message))) return false
  if (!isTransportError(v.transportError) || !isNonNeg(v.durationMs) || typeof v.truncated !== 'boolean') return false
  if ((v.originalBytes !== undefined && !isCount(v.originalBytes)) || !isOptDigest(v.digest)) return false
  const r = response as { status: number; clientAbort?: unknown; open?: unknown }
  return r.status !== 0 || v.transportError !== undefined || r.clientAbort !== undefined || r.open === true
}

/**
 * Whether `v` is a tools.jsonl line {@link toolCellSchema} accepts (the same set, without zod's cost).
 * @example
 * isToolCell(JSON.parse(line)) || toolCellSchema.safeParse(JSON.parse(line)).success
 */
export function isToolCell(v: unknown): boolean {
  if (!isObj(v)) return false
  const { kind, error, response, rpcId } = v
  if (!isCount(v.seq) || !isText(v.step) || (kind !== 'http' && kind !== 'fn') || !isText(v.name) || !isOptText(v.callId) || !isKey(v.key)) return false
  if (error !== undefined) {
    if (!isObj(error) || !isText(error.name) || !isText(error.message)) return false
    if (error.data !== null && typeof error.data === 'object' && Object.hasOwn(error.data, '__proto__')) return false
  }
  if (response !== undefined && !isResponse(response)) return false
  if (rpcId !== undefined && typeof rpcId !== 'string' && !isNum(rpcId)) return false
  if (!isOptText(v.url) || !isTransportError(v.transportError) || !isNonNeg(v.durationMs) || typeof v.truncated !== 'boolean') return false
  if ((v.originalBytes !== undefined && !isCount(v.originalBytes)) || !isOptText(v.injected) || !isOptDigest(v.digest)) return false
  if (kind === 'fn' && (response !== undefined || (v.output !== undefined && error !== undefined))) return false
  return kind !== 'http' || response !== undefined || v.transportError !== undefined
}

const isSource = (s: unknown): boolean =>
  isObj(s) &&
  isText(s.file) &&
  isText(s.name) &&
  (s.nth === undefined || (Number.isSafeInteger(s.nth) && (s.nth as number) >= 2)) &&
  isOptText(s.project) &&
  (s.runner === undefined || isRunnerToken(s.runner))

/**
 * Whether `v` is a scenario.yaml {@link manifestSchema} accepts (the same set, without loading zod).
 * @example
 * isManifest(YAML.parse(text)) || manifestSchema.safeParse(YAML.parse(text)).success
 */
export function isManifest(v: unknown): boolean {
  if (!isObj(v)) return false
  const { source, fork } = v
  if (!isNum(v.formatVersion) || typeof v.fluxlabVersion !== 'string' || !isText(v.name) || (v.name as string).length < 1) return false
  if (source !== undefined && !isSource(source)) return false
  if (
    typeof v.recordedAt !== 'string' ||
    !isStrings(v.models) ||
    !isStrings(v.providerHosts) ||
    !isCount(v.cassetteMaxBytes) ||
    typeof v.redaction !== 'string'
  )
    return false
  if (v.keyVars !== undefined && !(isStrings(v.keyVars) && (v.keyVars as string[]).every((k) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k)))) return false
  return fork === undefined || (isObj(fork) && isText(fork.parent) && typeof fork.parentRecordedAt === 'string' && typeof fork.change === 'string')
}

import { createRequire } from 'node:module'
import type * as Zod from 'zod/mini'
import type { NormalizedUsage, ProviderFamily, RequestedToolCall } from '../providers/types.js'

/** The fixture format this version writes and the only one it reads. */
export const FORMAT_VERSION = 1

/**
 * One body chunk as it arrived: `t` is milliseconds since the request was sent.
 * `text` when the chunk is valid UTF-8 on its own, else `b64` (a multi-byte
 * character split across two chunks).
 */
export interface Chunk {
  t: number
  text?: string
  b64?: string
}

export interface RecordedResponse {
  status: number
  /** Kept headers only: lowercased, volatile ones dropped, content-encoding/length never kept (bodies are stored decoded). */
  headers: Record<string, string>
  chunks: Chunk[]
  /** The stream was still open when the run ended (an SSE stream a client keeps, like MCP's GET): replay keeps it open after the chunks. */
  open?: true
  /**
   * The client aborted the request after receiving `afterChunks` chunks (0: before the response).
   * Replay serves those chunks, then waits for the client's own abort; it is not a transport error.
   */
  clientAbort?: { afterChunks: number; t: number }
}

/** What a request is keyed by: method, path with query (secret params removed), canonical body. Host is not part (see docs/decisions/0002-key-without-host.md). */
export interface CanonicalRequest {
  method: string
  path: string
  body: unknown
}

/** A transport failure during recording (connection reset mid-stream, abort). */
export interface TransportError {
  name: string
  message: string
  code?: string
}

/** One line of `model.jsonl`. */
export interface ModelCell {
  seq: number
  step: string
  key: string
  family: ProviderFamily
  /** Full request URL, redacted (for display; not part of the key). */
  url: string
  request: CanonicalRequest
  response: RecordedResponse
  model?: string
  usage: NormalizedUsage
  finishReason?: string
  text: string
  toolCalls: RequestedToolCall[]
  /** Error body or mid-stream error event the provider sent. */
  providerError?: { type?: string; message: string }
  transportError?: TransportError
  durationMs: number
  truncated: boolean
  originalBytes?: number
}

/** One line of `tools.jsonl`: an in-process tool call (`fn`) or HTTP to a non-model host (`http`). */
export interface ToolCell {
  seq: number
  step: string
  kind: 'http' | 'fn'
  name: string
  callId?: string
  key: string
  args: unknown
  /** fn tools: the returned value. */
  output?: unknown
  /** fn tools: the thrown error, replayed as the same throw. */
  error?: { name: string; message: string; data?: unknown }
  /** http tools: the recorded response. */
  response?: RecordedResponse
  /** http tools: the JSON-RPC id the recorded request carried (its answer is re-addressed to today's id on replay). */
  rpcId?: string | number
  url?: string
  transportError?: TransportError
  durationMs: number
  truncated: boolean
  originalBytes?: number
}

export interface SourceTest {
  file: string
  name: string
  project?: string
  /** The runner that recorded it (absent in fixtures recorded before 0.1.1). */
  runner?: 'vitest' | 'jest'
}

/** `scenario.yaml`. */
export interface Manifest {
  formatVersion: number
  fluxlabVersion: string
  name: string
  source?: SourceTest
  recordedAt: string
  input?: unknown
  models: string[]
  providerHosts: string[]
  /**
   * The environment variables whose values the recorded requests carried (names only): a replay gives exactly
   * these a placeholder when unset (absent in fixtures recorded before 0.1.1: the provider hosts decide).
   */
  keyVars?: string[]
  cassetteMaxBytes: number
  redaction: string
}

export interface Fixture {
  dir: string
  manifest: Manifest
  model: ModelCell[]
  tools: ToolCell[]
  trace?: string
}

// ---- What replay reads, checked on every read (model.jsonl, tools.jsonl, journals) -----------------------
// @note issue 13: every field the replay path reads is checked here, so a fixture is either served as it says or
// rejected naming file:line and the field. Messages say what was expected; the reader adds what it found.

/** A JSON string that is well-formed UTF-16 (a lone surrogate would be written to the wire as U+FFFD, not as stored). */
const wellFormed = (s: string) => (s as string & { isWellFormed(): boolean }).isWellFormed()
/** Canonical padded base64, the only form `encodeChunk` writes: any other text would decode to other bytes, or silently drop some. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const isCanonicalBase64 = (s: string) => BASE64.test(s) && Buffer.from(s, 'base64').toString('base64') === s
/** A header name as fluxlab keeps it: a lowercase HTTP token. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/
/** A header value `Headers` passes through unchanged: visible ASCII or Latin-1, inner spaces and tabs, nothing to trim. */
const HEADER_VALUE = /^(?:[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?$/
/** Headers a stored (decoded) body never carries: serving them would describe bytes that are not there. */
const NEVER_KEPT = new Set(['content-length', 'content-encoding', 'transfer-encoding'])
/** Statuses a Response has no body for: chunks stored with them would never reach the client. */
const NULL_BODY = new Set([101, 204, 205, 304])
const KEY = /^sha256:[0-9a-f]{64}$/
const FAMILIES = ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'openai-embeddings', 'openai-media', 'bedrock', 'openai-realtime', 'gemini-live'] as const satisfies readonly ProviderFamily[]

/**
 * The zod schemas of a model.jsonl line, a tools.jsonl line and scenario.yaml, built on first use.
 * @note issue 14: zod is most of what loading the engine costs (about 75 ms in every test file's worker in
 * whole-suite mode), and the read path asks it only about a line the hand-written checks below refuse, for its
 * message. So it is loaded then (CommonJS, synchronously: the reader is synchronous), or by a caller that builds
 * on these schemas ({@link loadZod}: the same copy of zod, so the schemas compose).
 * @example
 * cellSchemas().modelCell.safeParse(JSON.parse(line)).success
 */
export const cellSchemas = () => (built ??= buildSchemas(loadZod()))

let built: ReturnType<typeof buildSchemas> | undefined
let zod: typeof Zod | undefined

/**
 * zod/mini, loaded once, synchronously.
 * @example
 * const z = loadZod(); z.looseObject({ cell: cellSchemas().modelCell })
 */
export const loadZod = (): typeof Zod => (zod ??= createRequire(import.meta.url)('zod/mini') as typeof Zod)

/** A line schema whose zod is loaded only when it is asked (see {@link cellSchemas}). */
const lazy = (pick: (s: ReturnType<typeof buildSchemas>) => { safeParse(v: unknown): ReturnType<Zod.ZodMiniType['safeParse']> }) => ({
  safeParse: (v: unknown) => pick(cellSchemas()).safeParse(v),
})

/** What a model.jsonl line must be for replay to serve it as it says. */
export const modelCellSchema = lazy((s) => s.modelCell)
/** What a tools.jsonl line must be for replay to serve it as it says. */
export const toolCellSchema = lazy((s) => s.toolCell)
/** What scenario.yaml must hold (after `formatVersion`, which is checked first with its own error). */
export const manifestSchema = lazy((s) => s.manifest)

function buildSchemas(z: typeof Zod) {
  const nonNegative = (what: string) => z.number(`expected ${what} (a number ≥ 0)`).check(z.nonnegative(`expected ${what} (a number ≥ 0)`))
  const count = (what: string) => z.int(`expected ${what} (an integer ≥ 0)`).check(z.nonnegative(`expected ${what} (an integer ≥ 0)`))
  const text = (what: string) => z.string(`expected ${what} (a string)`).check(z.refine(wellFormed, `expected ${what} to be valid Unicode (it holds a lone surrogate)`))
  const optionalText = (what: string) => z.optional(text(what))


  /** One stored body chunk: `t` plus exactly one of `text` and `b64`. */
  const chunkSchema = z
    .strictObject(
      {
        t: nonNegative('"t", milliseconds since the request'),
        text: optionalText('"text"'),
        b64: z.optional(z.string('expected "b64" (a base64 string)').check(z.refine(isCanonicalBase64, 'expected "b64" to be canonical base64 (A–Z a–z 0–9 + /, padded with =)'))),
      },
      'expected a chunk object {"t", "text"} or {"t", "b64"}',
    )
    .check(z.refine((c) => (c.text === undefined) !== (c.b64 === undefined), 'expected a chunk to hold exactly one of "text" and "b64"'))


  /** A recorded HTTP response (model cells, http tool cells). */
  const responseSchema = z
    .looseObject(
      {
        status: z.int('expected "status" (0 for no response, else 200–599)').check(
          z.refine((s) => s === 0 || (s >= 200 && s <= 599), 'expected "status" (0 for no response, else 200–599)'),
        ),
        headers: z.record(
          z.string().check(z.regex(HEADER_NAME, 'expected a lowercase header name (an HTTP token)'), z.refine((n) => !NEVER_KEPT.has(n), 'expected no content-length, content-encoding or transfer-encoding header (bodies are stored decoded)')),
          z.string('expected a header value (a string)').check(z.regex(HEADER_VALUE, 'expected a header value without line breaks, control characters or surrounding spaces')),
          'expected "headers" (an object of strings)',
        ),
        chunks: z.array(chunkSchema, 'expected "chunks" (an array)'),
        open: z.optional(z.literal(true, 'expected "open" to be true or absent')),
        clientAbort: z.optional(z.looseObject({ afterChunks: count('"afterChunks"'), t: nonNegative('"t"') }, 'expected "clientAbort" {"afterChunks", "t"}')),
      },
      'expected a "response" object {"status", "headers", "chunks"}',
    )
    .check(
      z.refine((r) => !(r.status === 0 || NULL_BODY.has(r.status)) || r.chunks.length === 0, { message: 'expected no chunks: a response with this status has no body', path: ['chunks'] }),
      z.refine((r) => r.clientAbort === undefined || r.clientAbort.afterChunks === r.chunks.length, { message: 'expected "afterChunks" to equal the number of chunks (replay serves them all, then waits for the abort)', path: ['clientAbort', 'afterChunks'] }),
    )

  const transportErrorSchema = z.optional(
    z.looseObject({ name: text('"name"'), message: text('"message"'), code: optionalText('"code"') }, 'expected "transportError" {"name", "message"}'),
  )

  const key = z.string('expected "key" (sha256:<64 hex>)').check(z.regex(KEY, 'expected "key" (sha256:<64 hex>)'))

  /** What a model.jsonl line must be for replay to serve it as it says. */
  const modelCellSchema = z
    .looseObject(
      {
        seq: count('"seq"'),
        step: text('"step"'),
        key,
        family: z.enum(FAMILIES, `expected "family" (one of ${FAMILIES.join(', ')})`),
        url: z.string('expected "url" (an absolute URL)').check(z.refine((u) => URL.canParse(u), 'expected "url" (an absolute URL)')),
        request: z.looseObject({ method: text('"method"'), path: text('"path"'), body: z.optional(z.unknown()) }, 'expected a "request" object {"method", "path", "body"}'),
        response: responseSchema,
        model: optionalText('"model"'),
        usage: z.looseObject(
          { input: nonNegative('"input"'), output: nonNegative('"output"'), cacheRead: nonNegative('"cacheRead"'), cacheWrite: nonNegative('"cacheWrite"'), reasoning: nonNegative('"reasoning"') },
          'expected "usage" {"input", "output", "cacheRead", "cacheWrite", "reasoning"}',
        ),
        finishReason: optionalText('"finishReason"'),
        text: text('"text"'),
        toolCalls: z.array(z.looseObject({ id: text('"id"'), name: text('"name"'), args: z.optional(z.unknown()) }, 'expected a tool call {"id", "name", "args"}'), 'expected "toolCalls" (an array)'),
        providerError: z.optional(z.looseObject({ type: optionalText('"type"'), message: text('"message"') }, 'expected "providerError" {"message"}')),
        transportError: transportErrorSchema,
        durationMs: nonNegative('"durationMs"'),
        truncated: z.boolean('expected "truncated" (true or false)'),
        originalBytes: z.optional(count('"originalBytes"')),
        injected: optionalText('"injected"'),
      },
      'expected a JSON object (one model call)',
    )
    .check(
      z.refine((c) => c.response.status !== 0 || c.transportError !== undefined || c.response.clientAbort !== undefined, {
        message: 'expected "transportError" or "response.clientAbort" on a call with no response (status 0)',
        path: ['response', 'status'],
      }),
    )

  /** What a tools.jsonl line must be for replay to serve it as it says. */
  const toolCellSchema = z
    .looseObject(
      {
        seq: count('"seq"'),
        step: text('"step"'),
        kind: z.enum(['http', 'fn'], 'expected "kind" to be "http" or "fn"'),
        name: text('"name"'),
        callId: optionalText('"callId"'),
        key,
        args: z.optional(z.unknown()),
        output: z.optional(z.unknown()),
        error: z.optional(
          z
            .looseObject({ name: text('"name"'), message: text('"message"'), data: z.optional(z.unknown()) }, 'expected "error" {"name", "message"}')
            .check(z.refine((e) => !(e.data !== null && typeof e.data === 'object' && Object.hasOwn(e.data, '__proto__')), { message: 'expected "data" without a "__proto__" key (it would replace the error\'s prototype)', path: ['data'] })),
        ),
        response: z.optional(responseSchema),
        rpcId: z.optional(z.union([z.string(), z.number()], 'expected "rpcId" (a string or number)')),
        url: optionalText('"url"'),
        transportError: transportErrorSchema,
        durationMs: nonNegative('"durationMs"'),
        truncated: z.boolean('expected "truncated" (true or false)'),
        originalBytes: z.optional(count('"originalBytes"')),
        injected: optionalText('"injected"'),
      },
      'expected a JSON object (one tool call)',
    )
    .check(
      z.refine((c) => c.kind !== 'fn' || c.response === undefined, { message: 'expected no "response" on an in-process (fn) tool call', path: ['response'] }),
      z.refine((c) => c.kind !== 'http' || c.response !== undefined || c.transportError !== undefined, { message: 'expected "response" (or "transportError") on an http tool call', path: ['response'] }),
      z.refine((c) => c.kind !== 'fn' || c.output === undefined || c.error === undefined, { message: 'expected "output" or "error", not both', path: ['error'] }),
    )

  const sourceSchema = z.optional(
    z.looseObject(
      { file: text('"source.file"'), name: text('"source.name"'), project: optionalText('"source.project"'), runner: z.optional(z.enum(['vitest', 'jest'], 'expected "runner" to be vitest or jest')) },
      'expected "source" {"file", "name"}',
    ),
  )

  /** What scenario.yaml must hold (after `formatVersion`, which is checked first with its own error). */
  const manifestSchema = z.looseObject(
    {
      formatVersion: z.number(),
      fluxlabVersion: z.string('expected "fluxlabVersion" (a string)'),
      name: text('"name"').check(z.minLength(1, 'expected "name" (a non-empty string)')),
      source: sourceSchema,
      recordedAt: z.string('expected "recordedAt" (an ISO date)'),
      input: z.optional(z.unknown()),
      models: z.array(z.string(), 'expected "models" (a list of strings)'),
      providerHosts: z.array(z.string(), 'expected "providerHosts" (a list of strings)'),
      keyVars: z.optional(z.array(z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected "keyVars" to list variable names')), 'expected "keyVars" (a list of variable names)')),
      cassetteMaxBytes: count('"cassetteMaxBytes"'),
      redaction: z.string('expected "redaction" (the redactor marker)'),
      fork: z.optional(z.looseObject({ parent: text('"fork.parent"'), parentRecordedAt: z.string(), change: z.string() }, 'expected "fork" {"parent", "parentRecordedAt", "change"}')),
    },
    'expected a mapping with formatVersion, name, recordedAt, …',
  )
  return { modelCell: modelCellSchema, toolCell: toolCellSchema, manifest: manifestSchema }
}

// ---- The same checks, hand-written, for the read path -------------------------------------------------------
// @note issue 14: zod took about an eighth of a fixture's first read. {@link isModelCell} and {@link isToolCell}
// accept exactly what the schemas above accept (test/engine/fixture-check.test.ts proves it on the fuzz corpus of
// bench/mutate.mjs); the reader asks zod only about a line they refuse, for its message, so a line the fast check
// refused wrongly is still read. A change to a schema above must be made here too.

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)
const isNonNeg = (v: unknown) => isNum(v) && v >= 0
const isCount = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0
const isText = (v: unknown) => typeof v === 'string' && wellFormed(v)
const isOptText = (v: unknown) => v === undefined || isText(v)
const FAMILY_SET: ReadonlySet<unknown> = new Set(FAMILIES)
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
  const { status, headers, chunks, open, clientAbort } = r
  if (!Number.isSafeInteger(status) || !((status as number) === 0 || ((status as number) >= 200 && (status as number) <= 599))) return false
  if (!isObj(headers)) return false
  for (const name of Object.keys(headers)) {
    const value = headers[name]
    if (!HEADER_NAME.test(name) || NEVER_KEPT.has(name) || typeof value !== 'string' || !HEADER_VALUE.test(value)) return false
  }
  if (!Array.isArray(chunks)) return false
  for (const c of chunks) if (!isChunk(c)) return false
  if (open !== undefined && open !== true) return false
  if (clientAbort !== undefined && !(isObj(clientAbort) && isCount(clientAbort.afterChunks) && isNonNeg(clientAbort.t))) return false
  if ((status === 0 || NULL_BODY.has(status as number)) && chunks.length !== 0) return false
  return clientAbort === undefined || (clientAbort as { afterChunks: number }).afterChunks === chunks.length
}

const isTransportError = (e: unknown) => e === undefined || (isObj(e) && isText(e.name) && isText(e.message) && isOptText(e.code))
/** {@link KEY} by hand: `sha256:` and 64 lowercase hex digits (the regex cost more than all the other checks of a line). */
function isKey(k: unknown): boolean {
  if (typeof k !== 'string' || k.length !== 71 || !k.startsWith('sha256:')) return false
  for (let i = 7; i < 71; i++) {
    const c = k.charCodeAt(i)
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false
  }
  return true
}

/**
 * Whether `v` is a model.jsonl line {@link modelCellSchema} accepts (the same set, without zod's cost).
 * @example
 * isModelCell(JSON.parse(line)) || modelCellSchema.safeParse(JSON.parse(line)).success
 */
export function isModelCell(v: unknown): boolean {
  if (!isObj(v)) return false
  const { request, response, usage, toolCalls, providerError } = v
  if (!isCount(v.seq) || !isText(v.step) || !isKey(v.key) || !FAMILY_SET.has(v.family)) return false
  if (typeof v.url !== 'string' || !URL.canParse(v.url)) return false
  if (!isObj(request) || !isText(request.method) || !isText(request.path)) return false
  if (!isResponse(response)) return false
  if (!isOptText(v.model) || !isOptText(v.finishReason) || !isText(v.text) || !isOptText(v.injected)) return false
  if (!isObj(usage) || !isNonNeg(usage.input) || !isNonNeg(usage.output) || !isNonNeg(usage.cacheRead) || !isNonNeg(usage.cacheWrite) || !isNonNeg(usage.reasoning)) return false
  if (!Array.isArray(toolCalls)) return false
  for (const c of toolCalls) if (!isObj(c) || !isText(c.id) || !isText(c.name)) return false
  if (providerError !== undefined && !(isObj(providerError) && isOptText(providerError.type) && isText(providerError.message))) return false
  if (!isTransportError(v.transportError) || !isNonNeg(v.durationMs) || typeof v.truncated !== 'boolean') return false
  if (v.originalBytes !== undefined && !isCount(v.originalBytes)) return false
  const r = response as { status: number; clientAbort?: unknown }
  return r.status !== 0 || v.transportError !== undefined || r.clientAbort !== undefined
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
  if ((v.originalBytes !== undefined && !isCount(v.originalBytes)) || !isOptText(v.injected)) return false
  if (kind === 'fn' && (response !== undefined || (v.output !== undefined && error !== undefined))) return false
  return kind !== 'http' || response !== undefined || v.transportError !== undefined
}

const isStrings = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string')

/**
 * Whether `v` is a scenario.yaml {@link manifestSchema} accepts (the same set, without loading zod).
 * @example
 * isManifest(YAML.parse(text)) || manifestSchema.safeParse(YAML.parse(text)).success
 */
export function isManifest(v: unknown): boolean {
  if (!isObj(v)) return false
  const { source, fork } = v
  if (!isNum(v.formatVersion) || typeof v.fluxlabVersion !== 'string' || !isText(v.name) || (v.name as string).length < 1) return false
  if (source !== undefined && !(isObj(source) && isText(source.file) && isText(source.name) && isOptText(source.project) && (source.runner === undefined || source.runner === 'vitest' || source.runner === 'jest'))) return false
  if (typeof v.recordedAt !== 'string' || !isStrings(v.models) || !isStrings(v.providerHosts) || !isCount(v.cassetteMaxBytes) || typeof v.redaction !== 'string') return false
  if (v.keyVars !== undefined && !(isStrings(v.keyVars) && (v.keyVars as string[]).every((k) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k)))) return false
  return fork === undefined || (isObj(fork) && isText(fork.parent) && typeof fork.parentRecordedAt === 'string' && typeof fork.change === 'string')
}

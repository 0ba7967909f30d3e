/**
 * What replay reads, checked on every read (model.jsonl, tools.jsonl, journals), as zod schemas.
 * @note issue 13: every field the replay path reads is checked here, so a fixture is either served as it says or
 * rejected naming file:line and the field. Messages say what was expected; the reader adds what it found. The read
 * path runs the same checks by hand first (src/cassette/cell-check.ts).
 */
import { createRequire } from 'node:module'
import type * as Zod from 'zod/mini'
import { familyExpected, HEADER_NAME, HEADER_VALUE, isCanonicalBase64, KEY, NEVER_KEPT, NULL_BODY, isFamily, isRunnerToken, wellFormed } from './cell-fields.js'
/**
 * The zod schemas of a model.jsonl line, a tools.jsonl line and scenario.yaml, built on first use.
 * @note issue 14: zod is most of what loading the engine costs (about 75 ms in every test file's worker in
 * whole-suite mode), and the read path asks it only about a line the hand-written checks (cell-check.ts) refuse, for its
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
  const text = (what: string) =>
    z.string(`expected ${what} (a string)`).check(z.refine(wellFormed, `expected ${what} to be valid Unicode (it holds a lone surrogate)`))
  const optionalText = (what: string) => z.optional(text(what))

  /** One stored body chunk: `t` plus exactly one of `text` and `b64`. */
  const chunkSchema = z
    .strictObject(
      {
        t: nonNegative('"t", milliseconds since the request'),
        text: optionalText('"text"'),
        b64: z.optional(
          z
            .string('expected "b64" (a base64 string)')
            .check(z.refine(isCanonicalBase64, 'expected "b64" to be canonical base64 (A–Z a–z 0–9 + /, padded with =)')),
        ),
      },
      'expected a chunk object {"t", "text"} or {"t", "b64"}',
    )
    .check(z.refine((c) => (c.text === undefined) !== (c.b64 === undefined), 'expected a chunk to hold exactly one of "text" and "b64"'))

  /** A recorded HTTP response (model cells, http tool cells). */
  const responseSchema = z
    .looseObject(
      {
        status: z
          .int('expected "status" (0 for no response, else 200–599)')
          .check(z.refine((s) => s === 0 || (s >= 200 && s <= 599), 'expected "status" (0 for no response, else 200–599)')),
        headers: z.record(
          z.string().check(
            z.regex(HEADER_NAME, 'expected a lowercase header name (an HTTP token)'),
            z.refine((n) => !NEVER_KEPT.has(n), 'expected no content-length, content-encoding or transfer-encoding header (bodies are stored decoded)'),
          ),
          z
            .string('expected a header value (a string)')
            .check(z.regex(HEADER_VALUE, 'expected a header value without line breaks, control characters or surrounding spaces')),
          'expected "headers" (an object of strings)',
        ),
        chunks: z.array(chunkSchema, 'expected "chunks" (an array)'),
        open: z.optional(z.literal(true, 'expected "open" to be true or absent')),
        clientAbort: z.optional(z.looseObject({ afterChunks: count('"afterChunks"'), t: nonNegative('"t"') }, 'expected "clientAbort" {"afterChunks", "t"}')),
        afterEnd: z.optional(z.literal(true, 'expected "afterEnd" to be true or absent')),
      },
      'expected a "response" object {"status", "headers", "chunks"}',
    )
    .check(
      z.refine((r) => !(r.status === 0 || NULL_BODY.has(r.status)) || r.chunks.length === 0, {
        message: 'expected no chunks: a response with this status has no body',
        path: ['chunks'],
      }),
      z.refine((r) => r.clientAbort === undefined || r.clientAbort.afterChunks === r.chunks.length, {
        message: 'expected "afterChunks" to equal the number of chunks (replay serves them all, then waits for the abort)',
        path: ['clientAbort', 'afterChunks'],
      }),
    )

  const transportErrorSchema = z.optional(
    z.looseObject({ name: text('"name"'), message: text('"message"'), code: optionalText('"code"') }, 'expected "transportError" {"name", "message"}'),
  )

  const key = z.string('expected "key" (sha256:<64 hex>)').check(z.regex(KEY, 'expected "key" (sha256:<64 hex>)'))
  /** The fields a model and a tool call both end with: timing, the cut of a long body, injection and the digest. */
  const cellTail = {
    durationMs: nonNegative('"durationMs"'),
    truncated: z.boolean('expected "truncated" (true or false)'),
    originalBytes: z.optional(count('"originalBytes"')),
    injected: optionalText('"injected"'),
    digest: z.optional(z.string('expected "digest" (sha256:<64 hex>)').check(z.regex(KEY, 'expected "digest" (sha256:<64 hex>)'))),
  }

  /** What a model.jsonl line must be for replay to serve it as it says. */
  const modelCellSchema = z
    .looseObject(
      {
        seq: count('"seq"'),
        step: text('"step"'),
        key,
        family: z.unknown().check(z.refine(isFamily, { error: familyExpected })),
        url: z.string('expected "url" (an absolute URL)').check(z.refine((u) => URL.canParse(u), 'expected "url" (an absolute URL)')),
        request: z.looseObject(
          { method: text('"method"'), path: text('"path"'), body: z.optional(z.unknown()) },
          'expected a "request" object {"method", "path", "body"}',
        ),
        response: responseSchema,
        model: optionalText('"model"'),
        usage: z.looseObject(
          {
            input: nonNegative('"input"'),
            output: nonNegative('"output"'),
            cacheRead: nonNegative('"cacheRead"'),
            cacheWrite: nonNegative('"cacheWrite"'),
            reasoning: nonNegative('"reasoning"'),
          },
          'expected "usage" {"input", "output", "cacheRead", "cacheWrite", "reasoning"}',
        ),
        finishReason: optionalText('"finishReason"'),
        text: text('"text"'),
        toolCalls: z.array(
          z.looseObject({ id: text('"id"'), name: text('"name"'), args: z.optional(z.unknown()) }, 'expected a tool call {"id", "name", "args"}'),
          'expected "toolCalls" (an array)',
        ),
        providerError: z.optional(z.looseObject({ type: optionalText('"type"'), message: text('"message"') }, 'expected "providerError" {"message"}')),
        transportError: transportErrorSchema,
        ...cellTail,
      },
      'expected a JSON object (one model call)',
    )
    .check(
      z.refine((c) => c.response.status !== 0 || c.transportError !== undefined || c.response.clientAbort !== undefined || c.response.open === true, {
        message: 'expected "transportError", "response.clientAbort" or "response.open" on a call with no response (status 0)',
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
          z.looseObject({ name: text('"name"'), message: text('"message"'), data: z.optional(z.unknown()) }, 'expected "error" {"name", "message"}').check(
            z.refine((e) => !(e.data !== null && typeof e.data === 'object' && Object.hasOwn(e.data, '__proto__')), {
              message: 'expected "data" without a "__proto__" key (it would replace the error\'s prototype)',
              path: ['data'],
            }),
          ),
        ),
        response: z.optional(responseSchema),
        rpcId: z.optional(z.union([z.string(), z.number()], 'expected "rpcId" (a string or number)')),
        url: optionalText('"url"'),
        transportError: transportErrorSchema,
        ...cellTail,
      },
      'expected a JSON object (one tool call)',
    )
    .check(
      z.refine((c) => c.kind !== 'fn' || c.response === undefined, { message: 'expected no "response" on an in-process (fn) tool call', path: ['response'] }),
      z.refine((c) => c.kind !== 'http' || c.response !== undefined || c.transportError !== undefined, {
        message: 'expected "response" (or "transportError") on an http tool call',
        path: ['response'],
      }),
      z.refine((c) => c.kind !== 'fn' || c.output === undefined || c.error === undefined, {
        message: 'expected "output" or "error", not both',
        path: ['error'],
      }),
    )

  const sourceSchema = z.optional(
    z.looseObject(
      {
        file: text('"source.file"'),
        name: text('"source.name"'),
        nth: z.optional(z.int('expected "source.nth" (an integer ≥ 2)').check(z.gte(2, 'expected "source.nth" (an integer ≥ 2)'))),
        project: optionalText('"source.project"'),
        runner: z.optional(
          z
            .string('expected "source.runner" (a runner\'s name)')
            .check(z.refine(isRunnerToken, 'expected "source.runner" to be a runner\'s name: lowercase letters, digits and dashes')),
        ),
      },
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
      keyVars: z.optional(
        z.array(
          z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected "keyVars" to list variable names')),
          'expected "keyVars" (a list of variable names)',
        ),
      ),
      cassetteMaxBytes: count('"cassetteMaxBytes"'),
      redaction: z.string('expected "redaction" (the redactor marker)'),
      normalize: z.optional(z.string('expected "normalize" (the normalize rules\' marker)')),
      fork: z.optional(
        z.looseObject(
          { parent: text('"fork.parent"'), parentRecordedAt: z.string(), change: z.string() },
          'expected "fork" {"parent", "parentRecordedAt", "change"}',
        ),
      ),
    },
    'expected a mapping with formatVersion, name, recordedAt, …',
  )
  return { modelCell: modelCellSchema, toolCell: toolCellSchema, manifest: manifestSchema }
}

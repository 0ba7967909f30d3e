import { canonicalRequest, requestKey, type CanonicalOptions } from '../../cassette/canonical.js'
import { redirectModeOf } from '../../sources/index.js'
import type { CanonicalRequest } from '../../cassette/cell.js'
import type { JsonDiffRow } from '../../cassette/json-diff.js'
import type { Redactor } from '../../cassette/redact.js'
import type { ModelCallCodec } from '../../providers/types.js'
import type { ProviderFamily } from '../../providers/registry.js'

/** Why the tape could not answer a call: handed on to the off-tape stage, which decides what happens next. */
export interface TapeMiss {
  why: string
  /** `; closest recorded model#2: messages[1].content differs`, or empty. */
  details: string
  closest?: string
  diff?: JsonDiffRow[]
}

interface CallBase {
  /** Position among every call of the run, both channels. */
  seq: number
  /** Position on its own channel (`model#n`, `tool#n`). */
  n: number
  key: string
  /** The step as messages name it: `model#2`, `tool#1 read`. */
  step: string
  /** The child process that sent it (its command line, redacted), when not the run's own process. */
  origin?: string
}

/** A request to a model provider. */
export interface ModelRequest extends CallBase {
  channel: 'model'
  request: Request
  url: URL
  text: string
  /** The request's body as sent (read once, by `classifyRequest`; `request`'s own body is used up). */
  bytes: Buffer
  codec: ModelCallCodec<ProviderFamily>
  /** The request parsed and redacted, as the cell stores it; `key` is its SHA-256. */
  canonical: CanonicalRequest
}

/** A request to any other host: a tool call on the tool channel. */
export interface HttpToolRequest extends CallBase {
  channel: 'tool'
  kind: 'http'
  /** The cell's step: `tool#1`. */
  id: string
  request: Request
  url: URL
  /** The request's body as sent (read once, by `classifyRequest`; `request`'s own body is used up). */
  bytes: Buffer
  name: string
  args: Record<string, unknown>
  callId?: undefined
  /** The JSON-RPC id the client sent (the key holds a placeholder instead). */
  rpcId?: string | number
  /** The key a fixture recorded before issue 28 gave this call (its MCP progress token as sent). */
  legacyKey?: string
}

/** A call of an in-process tool wrapped with `lab.tools` / `lab.tool`. */
export interface FnToolCall extends CallBase {
  channel: 'tool'
  kind: 'fn'
  id: string
  name: string
  callId?: string
  args: unknown
  /** The tool's body: called only when the call goes live. */
  run: () => unknown
}

/** One call of a run, identified once when it enters the pipeline (`classifyRequest`, `classifyToolCall`, ./index.ts) and frozen: the stages only read it. */
export type Call = Readonly<ModelRequest> | Readonly<HttpToolRequest> | Readonly<FnToolCall>

/** What a stage answers: a Response for HTTP, the tool's output or thrown error for an in-process tool. */
export type Answer = { response: Response } | { output: unknown } | { error: unknown }
/** Pass the call on to the next stage: the same call, or one a stage rewrote; with the tape's miss, if it missed. */
export type Next = (call?: Call, miss?: TapeMiss) => Promise<Answer>
/** One source in the request pipeline: answer the call, or pass it on with `next()`. `miss`: why the tape could not answer it. */
export type Stage = (call: Call, next: Next, miss?: TapeMiss) => Promise<Answer>

/** What classifying a call needs of the run's configuration. */
export interface ClassifyConfig extends CanonicalOptions {
  redactor: Redactor
  hosts: Record<string, ProviderFamily>
}

/** Counters a run keeps so every call gets its `seq` and its `n` on its channel. */
export interface Counters {
  seq: number
  model: number
  tool: number
}

/**
 * The same model request with another URL and body (a what-if's `model`/`instructions`): a new call, with its own
 * canonical form and key; the stale content-length goes.
 * @example
 * return next(rewriteCall(call, { url, text }, config))
 */
export function rewriteCall(call: Readonly<ModelRequest>, to: { url: URL; text: string }, config: CanonicalOptions): Readonly<ModelRequest> {
  const headers = new Headers(call.request.headers)
  headers.delete('content-length')
  const request = new Request(to.url, {
    method: call.request.method,
    headers,
    body: to.text,
    signal: call.request.signal,
    redirect: redirectModeOf(call.request),
  })
  const canonical = canonicalRequest(request.method, to.url, to.text, config)
  const { channel, seq, n, step, codec, origin } = call
  const bytes = Buffer.from(to.text, 'utf8')
  return Object.freeze({
    channel,
    seq,
    n,
    step,
    codec,
    ...(origin ? { origin } : {}),
    request,
    url: to.url,
    text: to.text,
    bytes,
    canonical,
    key: requestKey(canonical),
  })
}

/**
 * The body a cell's model id is read from: the canonical one, or what was sent when `normalize` rules are set (a
 * normalized body may say `gpt-4o-<date>`; pricing and the manifest want the model that was asked for).
 * @example
 * codec.parseRequest(modelIdBody(call, config), call.url).model // 'gpt-4o-2024-08-06'
 */
export function modelIdBody(call: Readonly<ModelRequest>, config: CanonicalOptions): unknown {
  if (!config.normalize?.marker) return call.canonical.body
  try {
    return JSON.parse(call.text) as unknown
  } catch {
    return call.canonical.body
  }
}

import { canonicalRequest, httpToolCall, requestKey, toolKey, type CanonicalOptions } from '../../cassette/canonical.js'
import { redirectModeOf } from '../../interceptor/index.js'
import type { CanonicalRequest } from '../../cassette/cell.js'
import type { JsonDiffRow } from '../../cassette/json-diff.js'
import type { Redactor } from '../../cassette/redact.js'
import { detectModelCall } from '../../providers/registry.js'
import type { ModelCallCodec, ProviderFamily } from '../../providers/types.js'
import { toJsonValue } from './cell-values.js'

/** Why the tape could not answer a call: the off-tape stage decides what happens next. */
interface TapeMiss {
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
  /** Set by the tape stage when it could not answer. */
  miss?: TapeMiss
}

/** A request to a model provider. */
export interface ModelRequest extends CallBase {
  channel: 'model'
  request: Request
  url: URL
  text: string
  /** The request's body as sent (read once, by `classifyRequest`; `request`'s own body is used up). */
  bytes: Buffer
  codec: ModelCallCodec
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

type ToolCall = HttpToolRequest | FnToolCall
export type Call = ModelRequest | ToolCall

/** What a stage answers: a Response for HTTP, the tool's output or thrown error for an in-process tool. */
export type Answer = { response: Response } | { output: unknown } | { error: unknown }
export type Next = () => Promise<Answer>
/** One source in the request pipeline: answer the call, or pass it on with `next()`. */
export type Stage = (call: Call, next: Next) => Promise<Answer>

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
 * Classify one intercepted request, once: a model call of a known family, or an HTTP tool call.
 * @example
 * const call = await classifyRequest(request, counters, config)
 */
const EMPTY = Buffer.alloc(0)

export async function classifyRequest(request: Request, counters: Counters, config: ClassifyConfig): Promise<ModelRequest | HttpToolRequest> {
  const url = new URL(request.url)
  const codec = detectModelCall(request.method, url, config.hosts)
  // @note issue 14: read once, no clone: the run answers every request it classifies (nothing reads this body after
  // it), and a live send reuses these bytes.
  const bytes = request.body === null ? EMPTY : Buffer.from(await request.arrayBuffer())
  const seq = ++counters.seq
  if (codec) {
    const n = ++counters.model
    // @note issue 14: the body as text, the canonical form (the body parsed and redacted) and its SHA-256 key, computed
    // on first use, once: a recording reads them only when it writes the cell, after the response streamed, so they
    // are not in front of it.
    let text: string | undefined
    let canonical: CanonicalRequest | undefined
    let key: string | undefined
    const call: ModelRequest = {
      channel: 'model',
      seq,
      n,
      step: `model#${n}`,
      request,
      url,
      get text() {
        return (text ??= bytes.toString('utf8'))
      },
      set text(v) {
        text = v
      },
      bytes,
      codec,
      get canonical() {
        return (canonical ??= canonicalRequest(request.method, url, call.text, config))
      },
      set canonical(v) {
        canonical = v
      },
      get key() {
        return (key ??= requestKey(call.canonical))
      },
      set key(v) {
        key = v
      },
    }
    return call
  }
  const text = bytes.toString('utf8')
  const mcp = request.headers.has('mcp-session-id') || request.headers.has('mcp-protocol-version')
  const { name, args, key, rpcId } = httpToolCall(request.method, url, text, { ...config, mcp })
  const n = ++counters.tool
  return { channel: 'tool', kind: 'http', seq, n, id: `tool#${n}`, step: `tool#${n} ${name}`, key, request, url, bytes, name, args, ...(rpcId !== undefined ? { rpcId } : {}) }
}

/**
 * Classify one in-process tool call (`lab.tools`): its args redacted and made JSON-safe, its key computed.
 * @example
 * const call = classifyToolCall({ name: 'read', args: { path } }, run, counters, redactor)
 */
export function classifyToolCall(call: { name: string; args: unknown; callId?: string }, run: () => unknown, counters: Counters, redactor: Redactor): FnToolCall {
  const seq = ++counters.seq
  const n = ++counters.tool
  const args = redactor.json(toJsonValue(call.args))
  return { channel: 'tool', kind: 'fn', seq, n, id: `tool#${n}`, step: `tool#${n} ${call.name}`, key: toolKey(call.name, args), name: call.name, callId: call.callId, args, run }
}

/**
 * The same model request with another URL and body (a what-if's `model`/`instructions`): a new
 * canonical form and key; the stale content-length goes.
 * @example
 * rewriteCall(call, { url, text }, config)
 */
export function rewriteCall(call: ModelRequest, to: { url: URL; text: string }, config: CanonicalOptions): void {
  const headers = new Headers(call.request.headers)
  headers.delete('content-length')
  call.request = new Request(to.url, { method: call.request.method, headers, body: to.text, signal: call.request.signal, redirect: redirectModeOf(call.request) })
  call.url = to.url
  call.text = to.text
  call.bytes = Buffer.from(to.text, 'utf8')
  call.canonical = canonicalRequest(call.request.method, to.url, to.text, config)
  call.key = requestKey(call.canonical)
}

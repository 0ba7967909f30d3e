/**
 * The wire-format plug-in interface. One folder per provider family under
 * `src/providers/<family>/` implements it, and `registry.ts` lists them.
 * Codecs are pure: no I/O, no runner, no msw.
 */
import type { FamilyFacts } from './facts.js'

/**
 * Token usage in one shape for every provider.
 * @note `input` counts every prompt token, cached or not; `cacheRead` and
 * `cacheWrite` are the parts of `input` that were read from / written to a
 * prompt cache. `output` counts every generated token; `reasoning` is the part
 * of `output` spent on hidden reasoning. So OpenAI's `cached_tokens` (already
 * inside `prompt_tokens`) maps straight across, Anthropic's cache tokens are
 * added to `input_tokens`, and Gemini's `thoughtsTokenCount` is added to
 * `candidatesTokenCount`.
 */
export interface NormalizedUsage {
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
  reasoning: number
}

/** A tool call the model asked for. `args` is the parsed JSON (or the raw string when it does not parse). */
export interface RequestedToolCall {
  id: string
  name: string
  args: unknown
}

export interface ParsedModelRequest {
  /** Model id named by the request (body field, or the URL path for Gemini). */
  model?: string
  stream: boolean
  /** System prompt / instructions text, when the request carries one. */
  system?: string
  /** Tool names the request offers to the model. */
  tools: string[]
  /**
   * Tool results the request sends back, by call id (OpenAI `tool` messages, Anthropic `tool_result`, Responses
   * `function_call_output`, Gemini `functionResponse` keyed by name).
   */
  toolResults: Array<{ id?: string; name?: string }>
}

export interface ParsedModelResponse {
  /** The assistant's visible text, concatenated (no reasoning/thinking text). */
  text: string
  toolCalls: RequestedToolCall[]
  usage: NormalizedUsage
  model?: string
  finishReason?: string
  /** Set when the response is an error body or a stream carried an error event. */
  error?: { type?: string; message: string }
}

/** What a what-if's `model()` / `instructions()` change in each outgoing model request. */
export interface RequestRewrite {
  /** The model id, in the place the family names it (a body field, or the URL path for Gemini). */
  model?: string
  /** The system prompt, in the family's own place for it. */
  instructions?: string
}

/** The wire API a judge model speaks (`Rubric.model(id, { api })`). */
export type JudgeApi = 'openai' | 'anthropic' | 'gemini'

/** Where a judge provider (the `<provider>` of `Rubric.model('<provider>/<model>')`) is served, and where its key is. */
export interface JudgeProviderDefaults {
  /** Env vars holding the key, first match wins. */
  keyVars: readonly string[]
  /** The env var that overrides `baseURL`. */
  baseVar: string
  baseURL: string
}

/** One judge question, rendered by the judge layer: the family only puts it on the wire. */
interface JudgeAsk {
  /** The model part of the rubric id (`claude-haiku-4-5`). */
  model: string
  /** The API's base URL, without a trailing slash, as the user gave it (with or without a version segment). */
  baseURL: string
  /** Absent for a server that needs none. */
  key?: string
  system: string
  user: string
  /** JSON schema of the reply object (`verdict`, `rationale`, and `score` when the rubric is scored). */
  schema: Record<string, unknown>
}

/** The HTTP request a judge question becomes (POSTed as JSON by the judge layer). */
export interface JudgeRequest {
  url: string
  /** `undefined` values are not sent. */
  headers: Record<string, string | undefined>
  body: unknown
}

/** What a judge reply carries: the reply object itself (a forced tool call's input), its text, or why it has neither. */
type JudgeAnswer = { ok: true; value: unknown } | { ok: true; text: string } | { ok: false; problem: string }

/** A family that can grade `toPassJudge` assertions: how its request is built and its reply read. */
export interface JudgeWire {
  /** The `api` option that picks this family. */
  api: JudgeApi
  /** The providers that speak it without an `api` option, with their defaults (`{ anthropic: { keyVars: ['ANTHROPIC_API_KEY'], … } }`). */
  providers: Readonly<Record<string, JudgeProviderDefaults>>
  /** The wire every other provider speaks (the OpenAI-compatible API); exactly one family sets it. */
  fallback?: true
  request(ask: JudgeAsk): JudgeRequest
  /** Read a 2xx reply (parsed JSON). Never throws. */
  reply(json: unknown): JudgeAnswer
}

/**
 * One provider family: its wire format, and every other fact about it that the layers above ask (its vendors' keys and
 * base URLs, the headers that carry a secret, the ids its API mints, how its model ids are priced). Registered once, in
 * `src/providers/registry.ts` (or, for a family of your own, with `registerFamily`); every list of families is derived
 * from there. `F` is the family's name: it is stored on every model cell, so it is part of the fixture format.
 */
export interface ModelCallCodec<F extends string = string> extends FamilyFacts {
  family: F
  /** Hosts that always belong to this family (users may add more through options). */
  hosts: readonly string[]
  /** True when a request to this method + URL is one of this family's model calls (decided by path, so proxies and 127.0.0.1 work). */
  detect(method: string, url: URL): boolean
  /** Parse a request body (already JSON-parsed; `undefined` when empty or not JSON). */
  parseRequest(body: unknown, url: URL): ParsedModelRequest
  /**
   * Parse a whole response body as received (decoded text). `contentType`
   * tells SSE (`text/event-stream`) from JSON; a streamed JSON array (Gemini
   * without `alt=sse`) is recognized from the body. Never throws: a body it
   * cannot read yields empty text and an `error`. `bytes` is the same body undecoded, for a
   * family whose responses are binary (`binaryBody`); callers that hold the bytes pass them.
   */
  parseResponse(body: string, contentType: string | undefined, status: number, url: URL, bytes?: Uint8Array): ParsedModelResponse
  /**
   * Apply a what-if's `model()` / `instructions()` to one request: the new URL
   * and body text, or `undefined` when nothing changes (the request already says
   * so, the family has no such place, or the body is not a JSON object).
   */
  rewriteRequest(url: URL, text: string, rw: RequestRewrite): { url: URL; text: string } | undefined
  /** The error type this family's API gives an HTTP status (`rate_limit_error`, `RESOURCE_EXHAUSTED`, …): stored on an injected fault's cell. */
  errorType(status: number): string
  /** The body of an injected HTTP fault on this family's model channel: the error JSON its SDKs parse for that status, carrying `message`. */
  errorBody(status: number, message: string): unknown
  /** Set when the family can be a judge (`Rubric.model`). */
  judge?: JudgeWire
  /** Set when some of the family's responses are a binary format (Bedrock's AWS event streams). */
  binaryBody?: BinaryBody
  /**
   * Set when each request is signed over its own bytes and time (AWS SigV4), so a stored request cannot be
   * sent again with a key alone: what to say instead (`fluxlab drift` skips such calls with it).
   */
  signedRequests?: string
  /**
   * Set when the family's model calls are the frames of a realtime WebSocket (one request per
   * client frame): `event` reads a frame's event type, and a frame of another type than the
   * recorded one is never served by position.
   */
  socket?: { event(body: unknown): string | undefined }
}

/**
 * A binary response format (AWS event streams): text redaction would break its framing, and a
 * viewer cannot show it as text, so the family reads it for both.
 */
export interface BinaryBody {
  /** True for a response content type in this format. */
  matches(contentType: string | undefined): boolean
  /**
   * The body redacted inside its frames by `redact` (the redactor's stream form: texts in, the same
   * texts redacted out, secrets found across them), one piece per frame, each re-encoded where it
   * changed (lengths and checksums recomputed), with the offset in `bytes` where the frame ended;
   * `undefined` when nothing changed. Bytes after the last whole frame (a cut stream) are a last
   * piece, kept only when `redact` finds nothing in them.
   */
  redact(bytes: Uint8Array, redact: (parts: readonly string[]) => string[]): Array<{ bytes: Uint8Array; end: number }> | undefined
  /** A readable view of the body: one line per frame. */
  describe(bytes: Uint8Array): string
}

export const emptyUsage = (): NormalizedUsage => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 })

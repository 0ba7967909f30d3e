/**
 * The wire-format plug-in interface. One folder per provider family under
 * `src/providers/<family>/` implements it, and `registry.ts` lists them.
 * Codecs are pure: no I/O, no runner, no msw.
 */

export type ProviderFamily = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini' | 'openai-embeddings'

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
  /** Tool results the request sends back, by call id (OpenAI `tool` messages, Anthropic `tool_result`, Responses `function_call_output`, Gemini `functionResponse` keyed by name). */
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

export interface ModelCallCodec {
  family: ProviderFamily
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
   * cannot read yields empty text and an `error`.
   */
  parseResponse(body: string, contentType: string | undefined, status: number, url: URL): ParsedModelResponse
}

export const emptyUsage = (): NormalizedUsage => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 })

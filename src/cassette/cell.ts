import type { NormalizedUsage, RequestedToolCall } from '../providers/types.js'
import type { ProviderFamily } from '../providers/registry.js'

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
  /**
   * The stream was still open when the run ended (an SSE stream a client keeps, like MCP's GET): replay keeps it open
   * after the chunks. With status 0: the call never got an answer and was still waiting when the run ended.
   */
  open?: true
  /**
   * The client aborted the request after receiving `afterChunks` chunks (0: before the response; with status 0, also
   * the time of the `notifications/cancelled` that named a call never answered).
   * Replay serves those chunks, then waits for the client's own abort; it is not a transport error.
   */
  clientAbort?: { afterChunks: number; t: number }
  /**
   * Its headers came after the run had ended (a test that raced the call against a timer and was over first): a
   * replay holds the answer until its own run ends, so the test sees what it saw, an answer that did not come in time.
   */
  afterEnd?: true
}

/**
 * What a request is keyed by: method, path with query (secret params removed), canonical body. Host is not part (see
 * docs/decisions/0002-key-without-host.md).
 */
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
  /** SHA-256 of what replay serves from the cell (servedDigest, ./handout.ts); absent in fixtures recorded before digests (issue 28): unchecked. */
  digest?: string
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
  /** SHA-256 of what replay serves from the cell (servedDigest, ./handout.ts); absent in fixtures recorded before digests (issue 28): unchecked. */
  digest?: string
}

export interface SourceTest {
  file: string
  name: string
  /** The second (third, …) test of its file with this name, in order of declaration; absent for the first. */
  nth?: number
  project?: string
  /** The runner that recorded it, an open token (`vitest`, `jest`, `playwright`, a registered one); absent before 0.1.1. */
  runner?: string
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
  /** The `normalize` rules' marker the requests were keyed under (absent: none were set). */
  normalize?: string
}

export interface Fixture {
  dir: string
  manifest: Manifest
  model: ModelCell[]
  tools: ToolCell[]
  trace?: string
}

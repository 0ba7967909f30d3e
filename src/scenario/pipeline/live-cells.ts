/**
 * The cells the live stage (live.ts) keeps of what came back: a model call's, with what its codec reads of the answer,
 * a failed one's, and an HTTP tool call's.
 */
import type { ModelCell, RecordedResponse, ToolCell, TransportError } from '../../cassette/cell.js'
import { bodyBuffer, bodyText } from '../../cassette/chunks.js'
import { socketModel } from '../../sources/realtime-socket.js'
import { emptyUsage } from '../../providers/types.js'
import { modelIdBody, type HttpToolRequest, type ModelRequest } from './call.js'
import type { RunConfig } from './config.js'

/** A live answer as kept: the recorded response, and whether its body was cut at the cap. */
export interface Stored {
  rec: RecordedResponse
  truncated: boolean
  originalBytes: number
}

/** What every model cell of `call` says about the request. */
function modelCellBase(config: RunConfig, call: ModelRequest): Pick<ModelCell, 'seq' | 'step' | 'key' | 'family' | 'url' | 'request' | 'model'> {
  const { codec, url, canonical } = call
  return {
    seq: call.seq,
    step: call.step,
    key: call.key,
    family: codec.family,
    url: config.redactor.url(url.href),
    request: canonical,
    model: codec.parseRequest(modelIdBody(call, config), url).model ?? socketModel(call.request),
  }
}

export function modelCell(
  config: RunConfig,
  call: ModelRequest,
  res: Response,
  stored: Stored,
  transportError: TransportError | undefined,
  durationMs: number,
): ModelCell {
  const base = modelCellBase(config, call)
  const parsed = call.codec.parseResponse(
    bodyText(stored.rec.chunks),
    res.headers.get('content-type') ?? undefined,
    res.status,
    call.url,
    call.codec.binaryBody ? bodyBuffer(stored.rec.chunks) : undefined,
  )
  return {
    ...base,
    response: stored.rec,
    model: parsed.model ?? base.model,
    usage: parsed.usage,
    finishReason: parsed.finishReason,
    text: parsed.text,
    toolCalls: parsed.toolCalls,
    providerError: parsed.error,
    transportError,
    durationMs,
    truncated: stored.truncated,
    ...(stored.truncated ? { originalBytes: stored.originalBytes } : {}),
  }
}

/** A model call that never got a response. */
export function failedModelCell(
  config: RunConfig,
  call: ModelRequest,
  stored: Stored,
  transportError: TransportError | undefined,
  durationMs: number,
): ModelCell {
  return { ...modelCellBase(config, call), response: stored.rec, usage: emptyUsage(), text: '', toolCalls: [], transportError, durationMs, truncated: false }
}

/** What a failed fetch says: its class, message and system error code (`ENOTFOUND`, `ECONNREFUSED`), redacted. */
export function transportErrorOf(e: unknown, config: RunConfig): TransportError {
  const err = e as Error & { code?: string; cause?: { code?: string; message?: string; name?: string } }
  const cause = err?.cause
  return {
    name: cause?.name && cause.name !== 'Error' ? cause.name : (err?.name ?? 'Error'),
    message: config.redactor.text(cause?.message ?? err?.message ?? String(e)),
    ...((cause?.code ?? err?.code) ? { code: cause?.code ?? err?.code } : {}),
  }
}

export function httpCell(config: RunConfig, call: HttpToolRequest, stored: Stored, transportError: TransportError | undefined, durationMs: number): ToolCell {
  return {
    seq: call.seq,
    step: call.id,
    kind: 'http',
    name: call.name,
    key: call.key,
    args: call.args,
    ...(call.rpcId !== undefined ? { rpcId: call.rpcId } : {}),
    response: stored.rec,
    url: config.redactor.url(call.url.href),
    transportError,
    durationMs,
    truncated: stored.truncated,
    ...(stored.truncated ? { originalBytes: stored.originalBytes } : {}),
  }
}

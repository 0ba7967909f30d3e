/** The trace cell a fault leaves: what the agent saw, stored so a fork's replay never serves it as the world's answer. */
import type { CanonicalRequest, ModelCell, RecordedResponse, ToolCell } from '../cassette/cell.js'
import { codecFor } from '../providers/registry.js'
import { emptyUsage, type ParsedModelResponse } from '../providers/types.js'
import type { ProviderFamily } from '../providers/registry.js'
import { thrownShape, type HttpAnswer } from './fault-answers.js'
import { errorText, type Fault, type FaultKind } from './faults.js'

/** The answer as a fixture stores it (one chunk). */
const answerRecord = (a: HttpAnswer): RecordedResponse => ({ status: a.status, headers: a.headers, chunks: a.body ? [{ t: 0, text: a.body }] : [] })

export interface InjectedCellBase {
  seq: number
  step: string
  key: string
  /** What injected it, e.g. `injectAt("model#2", {"status":429})`: stored on the cell so a fork's replay never serves it as the world's answer. */
  injected: string
}

/** A model cell that records an injected fault (what the agent saw), for the trace and the fork. */
export type InjectedModelCell = ModelCell & { injected: string }
export type InjectedToolCell = ToolCell & { injected: string }

/**
 * The trace cell of a model-channel fault.
 * @example
 * injectedModelCell({ seq, step: 'model#2', key, injected }, 'status', { family, url, request, model }, answer)
 */
export function injectedModelCell(
  base: InjectedCellBase,
  kind: FaultKind,
  call: { family: ProviderFamily; url: string; request: CanonicalRequest; model?: string },
  answer: HttpAnswer | undefined,
  cut?: { rec: RecordedResponse; n: number },
  /** The answer as the family's codec reads it (a substituted 200 carries text and tool calls). */
  parsed?: ParsedModelResponse,
): InjectedModelCell {
  const cell: InjectedModelCell = {
    ...base,
    ...call,
    response: { status: 0, headers: {}, chunks: [] },
    usage: emptyUsage(),
    text: '',
    toolCalls: [],
    durationMs: 0,
    truncated: false,
  }
  if (kind === 'status' && answer) {
    cell.response = answerRecord(answer)
    if (parsed) {
      Object.assign(cell, { text: parsed.text, toolCalls: parsed.toolCalls, usage: parsed.usage })
      if (parsed.model) cell.model = parsed.model
      if (parsed.finishReason) cell.finishReason = parsed.finishReason
    }
    if (answer.status >= 400) cell.providerError = { type: codecFor(call.family).errorType(answer.status), message: errorMessage(answer.body) }
  } else if (kind === 'reset')
    cell.transportError = { name: 'ConnectionReset', message: 'the connection dropped before a response (injected by fluxlab)', code: 'ECONNRESET' }
  else if (kind === 'timeout')
    cell.transportError = { name: 'Timeout', message: 'no response until the client aborted (injected by fluxlab)', code: 'ETIMEDOUT' }
  else if (kind === 'cut' && cut) {
    cell.response = { status: cut.rec.status, headers: cut.rec.headers, chunks: cut.rec.chunks.slice(0, cut.n) }
    cell.transportError = {
      name: 'TypeError',
      message: `terminated: stream cut after ${cut.n} chunk${cut.n === 1 ? '' : 's'} (injected by fluxlab)`,
      code: 'ECONNRESET',
    }
  }
  return cell
}

/**
 * The trace cell of a tool-channel fault or substitute.
 * @example
 * injectedToolCell({ seq, step, key, injected }, 'error', { kind: 'fn', name, args }, { error: 'disk full' })
 */
export function injectedToolCell(
  base: InjectedCellBase,
  kind: FaultKind,
  call: { kind: 'http' | 'fn'; name: string; callId?: string; args: unknown; url?: string },
  fault: Fault,
  answer?: HttpAnswer,
): InjectedToolCell {
  const cell: InjectedToolCell = { ...base, ...stripUndef(call), durationMs: 0, truncated: false }
  if (call.kind === 'fn') {
    if (kind === 'error') cell.error = thrownShape((fault as { error: string | { name?: string; message: string } }).error)
    else cell.output = (fault as { output: unknown }).output
    return cell
  }
  if (answer && (kind === 'status' || kind === 'output')) cell.response = answerRecord(answer)
  else {
    // @note no `response`: none arrived (the trace shows the transport error's name, a replay answers a network error)
    cell.transportError =
      kind === 'timeout'
        ? { name: 'Timeout', message: 'no response until the client aborted (injected by fluxlab)', code: 'ETIMEDOUT' }
        : {
            name: 'ConnectionReset',
            message: `the connection dropped (injected by fluxlab)${kind === 'error' ? `: ${errorText(fault)}` : ''}`,
            code: 'ECONNRESET',
          }
  }
  return cell
}

function errorMessage(text: string): string {
  try {
    const j = JSON.parse(text) as { error?: { message?: string } | string; message?: string }
    return (typeof j.error === 'string' ? j.error : j.error?.message) ?? j.message ?? text
  } catch {
    return text
  }
}

function stripUndef<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T
}

/**
 * An in-process tool call (`lab.tools`, `tools()`) as the pipeline takes it: its place in the run, its arguments redacted
 * and made JSON-safe, its key. The HTTP calls are classified in ./index.ts, which hands in its memo of identities.
 */
import { toolKey } from '../../cassette/canonical.js'
import type { Redactor } from '../../cassette/redact.js'
import type { Counters, FnToolCall } from './call.js'
import { toJsonValue } from './cell-values.js'

/** `remembered` of ./index.ts: what `make` answers for `what` under these rules, kept across runs. */
type Remember = <T extends object>(what: string, rules: { redactor: Redactor }, make: () => T) => T

/**
 * Classify one in-process tool call (`lab.tools`): its args redacted and made JSON-safe, its key computed.
 * @example
 * const call = classifyToolCall({ name: 'read', args: { path } }, run, counters, redactor, remembered)
 */
export function classifyToolCall(
  call: { name: string; args: unknown; callId?: string },
  run: () => unknown,
  counters: Counters,
  redactor: Redactor,
  remembered: Remember,
): FnToolCall {
  const seq = ++counters.seq
  const n = ++counters.tool
  // @note the arguments are keyed as JSON (`toJsonValue`), so their JSON text decides them: remembered by it
  const text = jsonText(call.args)
  const keyed = (json: unknown) => {
    const args = redactor.json(json)
    return { args, key: toolKey(call.name, args) }
  }
  const { args, key } = text === undefined ? keyed(toJsonValue(call.args)) : remembered(`fn ${call.name}\n${text}`, { redactor }, () => keyed(JSON.parse(text)))
  return Object.freeze({
    channel: 'tool',
    kind: 'fn',
    seq,
    n,
    id: `tool#${n}`,
    step: `tool#${n} ${call.name}`,
    key,
    name: call.name,
    callId: call.callId,
    args,
    run,
  })
}

/** `JSON.stringify(v)`, or `undefined` where it has no JSON text (undefined, a function, a BigInt, a cycle). */
function jsonText(v: unknown): string | undefined {
  try {
    return JSON.stringify(v)
  } catch {
    return undefined
  }
}

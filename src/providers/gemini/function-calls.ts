import type { RequestedToolCall } from '../types.js'
import { rec, str, type JsonRecord } from '../json.js'
import { stableCallId } from '../response.js'
import { applyPartialArgs } from './partial-args.js'

interface Call {
  id?: string
  name: string
  args: unknown
}

/**
 * Collects the function calls of one Gemini response, part by part across
 * chunks: whole `functionCall` parts, and Vertex's streamed ones (a part with
 * `name` + `willContinue`, then `partialArgs` pieces, ended by a final piece
 * or an empty `functionCall: {}`).
 * @note Gemini calls usually carry no id: each gets `"<name>#<n>"`, n
 * counting that name's calls in the response from 1, unless it has `id`.
 * @example
 * const calls = new FunctionCalls()
 * calls.add({ name: 'weather', args: { location: 'Paris' } })
 * calls.add({ name: 'weather', args: { location: 'Rome' } })
 * calls.result() // [{ id: 'weather#1', … }, { id: 'weather#2', name: 'weather', args: { location: 'Rome' } }]
 */
export class FunctionCalls {
  private readonly calls: Call[] = []
  private open: (Call & { args: JsonRecord }) | undefined

  add(functionCall: JsonRecord): void {
    const name = str(functionCall.name)
    const pieces = Array.isArray(functionCall.partialArgs)
    if (pieces || (name !== undefined && functionCall.willContinue === true)) {
      if (name !== undefined) {
        this.close()
        this.open = { id: str(functionCall.id), name, args: {} }
      }
      if (this.open === undefined) return
      applyPartialArgs(this.open.args, functionCall.partialArgs)
      if (pieces && isFinal(functionCall)) this.close()
    } else if (name !== undefined) {
      this.close()
      this.calls.push({ id: str(functionCall.id), name, args: functionCall.args ?? {} })
    } else if (functionCall.args === undefined) {
      this.close()
    }
  }

  result(): RequestedToolCall[] {
    this.close()
    const counts = new Map<string, number>()
    return this.calls.map((c) => ({ id: c.id ?? stableCallId(c.name, counts), name: c.name, args: c.args }))
  }

  private close(): void {
    if (this.open !== undefined) this.calls.push(this.open)
    this.open = undefined
  }
}

/** True when a streamed part and all its argument pieces say nothing more will follow. */
function isFinal(functionCall: JsonRecord): boolean {
  if (functionCall.willContinue === true) return false
  return !(functionCall.partialArgs as unknown[]).some((p) => rec(p).willContinue === true)
}

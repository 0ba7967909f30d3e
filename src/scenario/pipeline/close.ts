import type { Intervention } from '../intervention.js'
import type { RequestedToolCall } from '../../providers/types.js'
import type { RunLog, RunStep, SentResults, ToolResultRef } from './log.js'
import type { TapeStage } from './tape.js'

/**
 * The end of a replay: responses still hanging are released, a tool whose result the agent sent back to the model
 * while no tool-channel call answered it is warned about, and recorded calls never made are failures
 * (unless a counterfactual's change took the run off the parent's path).
 * @example
 * closeReplay(log, pipeline.tape, intervention, config.toolWrap)
 */
export function closeReplay(log: RunLog, tape: TapeStage | undefined, iv: Intervention | undefined, toolWrap: 'lab' | 'import' = 'lab'): void {
  iv?.releaseHangs()
  warnUnwrappedTools(log, toolWrap)
  if (iv && !iv.reportUnused()) return
  const unused = tape?.unused()
  for (const c of unused?.model ?? []) log.diverge('unused_interaction', c.step, `recorded ${c.step} (${c.model ?? c.family}) was never requested`)
  for (const c of unused?.tools ?? []) log.diverge('unused_interaction', c.step, `recorded ${c.step} ${c.name} was never called`)
}

/**
 * SPEC §3 `unwrapped_tool`: a replayed model turn asked for a tool, nothing on the tool channel answered it (no
 * wrapped call with its id, no tool call of any kind before the next model turn), and a later model request of the
 * run sent its result back: the tool ran in-process, off the tape. A call whose result never went back (a test that
 * only reads `tool_calls`, a structured-output tool, the model's last turn) ran nothing, and is not warned about.
 */
function warnUnwrappedTools(log: RunLog, toolWrap: 'lab' | 'import'): void {
  const steps = log.ordered()
  const taped = new Set(steps.flatMap((s) => (s.channel === 'tool' && s.cell.callId ? [s.cell.callId] : [])))
  const sent = [...log.sent].sort((a, b) => a.seq - b.seq)
  // @note once per tool: a loop that asks for the same unwrapped tool every turn says one thing, not ten.
  const warned = new Set<string>()
  steps.forEach((s, i) => {
    if (s.channel !== 'model' || s.cell.toolCalls.length === 0) return
    const next = steps.slice(i + 1)
    const nextModel = next.findIndex((x) => x.channel === 'model')
    const between = nextModel < 0 ? next : next.slice(0, nextModel)
    if (between.some((x) => x.channel === 'tool')) return
    for (const call of s.cell.toolCalls) {
      if (taped.has(call.id) || warned.has(call.name)) continue
      const back = sentBack(call, s, sent)
      if (!back) continue
      warned.add(call.name)
      log.diverge('unwrapped_tool', s.cell.step, unwrappedMessage(s.cell.step, call, back.step, toolWrap))
    }
  })
}

/**
 * The first model request after `asked` that carries `call`'s result: one with its id, or, where results are named
 * and not numbered (Gemini, OpenAI's legacy `function` role), one with more results of its name than the request
 * that asked for it had (a later request repeats the history before it).
 */
function sentBack(call: RequestedToolCall, asked: RunStep, sent: readonly SentResults[]): SentResults | undefined {
  const named = (results: readonly ToolResultRef[]) => results.filter((r) => r.name === call.name).length
  const own = sent.find((x) => x.seq === asked.seq)
  const before = own ? named(own.results()) : 0
  return sent.find((x) => x.seq > asked.seq && (x.results().some((r) => r.id === call.id) || named(x.results()) > before))
}

function unwrappedMessage(step: string, call: RequestedToolCall, backStep: string, toolWrap: 'lab' | 'import'): string {
  // a Gemini call with no id of its own is numbered by its name (`get_weather#1`): no id worth showing
  const id = call.id.startsWith(`${call.name}#`) ? '' : ` (${call.id})`
  const what =
    `${step} asked for \`${call.name}\`${id}; ${backStep} sent its result back, ` +
    'and no tool call on the tape answered it, so the tool ran unrecorded (in this process, or in a server it reaches outside HTTP: an MCP server over stdio)'
  if (toolWrap === 'lab')
    return (
      `${what}; wrap it with lab.tools({ ${call.name} }) or lab.tool('${call.name}', fn), or its MCP stdio transport with lab.mcp(transport), ` +
      'so replay never re-fires its side effects'
    )
  return (
    `${what}. Without editing a test: in a setup file of your config (vitest setupFiles, jest setupFilesAfterEnv), mock the module that exports it, ` +
    "or the factory that builds it (your own, or a library's such as LangChain's `tool`), with its tools passed through tools() from 'fluxlab', " +
    "or the MCP SDK's StdioClientTransport " +
    "with each transport passed through mcp() from 'fluxlab' (docs/tools.md#unwrapped-tools); " +
    `or wrap it with tools({ ${call.name} }) or tool('${call.name}', fn) from 'fluxlab' where the tools are built`
  )
}

import type { Intervention } from '../intervention.js'
import type { RunLog } from './log.js'
import type { TapeStage } from './tape.js'

/**
 * The end of a replay: responses still hanging are released, a model turn whose tools no
 * tool-channel call answered is warned about, and recorded calls never made are failures
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
 * SPEC §5: a replayed model turn asked for a tool and nothing on the tool channel answered it
 * (no wrapped call with its id, no tool call of any kind before the next model turn): the tool ran live.
 */
function warnUnwrappedTools(log: RunLog, toolWrap: 'lab' | 'import'): void {
  const steps = log.orderedSteps()
  const taped = new Set(steps.flatMap((s) => (s.channel === 'tool' && s.cell.callId ? [s.cell.callId] : [])))
  // @note once per tool: a loop that asks for the same unwrapped tool every turn says one thing, not ten.
  const warned = new Set<string>()
  steps.forEach((s, i) => {
    if (s.channel !== 'model' || s.cell.toolCalls.length === 0) return
    const next = steps.slice(i + 1)
    const nextModel = next.findIndex((x) => x.channel === 'model')
    const between = nextModel < 0 ? next : next.slice(0, nextModel)
    if (between.some((x) => x.channel === 'tool')) return
    for (const call of s.cell.toolCalls)
      if (!taped.has(call.id) && !warned.has(call.name) && warned.add(call.name))
        log.diverge(
          'unwrapped_tool',
          s.cell.step,
          `the model asked for tool "${call.name}" and no tool call on the tape answered it, so it ran live; wrap it with ${toolWrap === 'import' ? `tools({ ${call.name} }) or tool('${call.name}', fn) from 'fluxlab' where the tools are built` : `lab.tools({ ${call.name} }) or lab.tool('${call.name}', fn)`} so replay never re-fires its side effects`,
        )
  })
}

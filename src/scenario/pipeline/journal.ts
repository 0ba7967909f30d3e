import { renderDiff, type JsonDiffRow } from '../../cassette/json-diff.js'
import { ModelTape, replayResponse, ToolTape } from './tape.js'
import { FluxError } from '../../errors.js'
import type { Answer, Stage } from './call.js'
import { restoreError } from './cell-values.js'
import type { JournalHooks, RunConfig } from './config.js'
import type { RunLog } from './log.js'

/**
 * `durable()`: answer a call from an earlier run's journal, exact key only. A call the journal
 * explains differently (same request or same tool, other content, while journaled results
 * remain) is a loud divergence: the code changed between the crash and the resume.
 * @example
 * const journal = journalStage(config, log, hooks); journal.unused() // steps never asked for
 */
export function journalStage(config: RunConfig, log: RunLog, hooks: JournalHooks): Stage & { unused(): string[] } {
  const model = new ModelTape(hooks.prefix.model)
  const tools = new ToolTape(hooks.prefix.tools)
  const stage = async (call: Parameters<Stage>[0], next: Parameters<Stage>[1]): Promise<Answer> => {
    if (call.channel === 'model') {
      if (model.unused().length === 0) return next()
      const take = model.take(call.canonical, call.key, { exactOnly: true })
      if (take.kind !== 'hit') throw divergence(config, log, call.step, take.kind === 'miss' ? take.closest?.step : undefined, take.diff)
      log.journalServed++
      log.entries.push({ seq: call.seq, channel: 'model', cell: take.cell })
      return { response: replayResponse(take.cell.response, { transportError: take.cell.transportError }) }
    }
    if (tools.unused().length === 0) return next()
    const take = tools.take(call)
    if (take.kind !== 'hit') {
      // @note a call the journal never saw (new call id, or a tool with no journaled result) is the crash tail: it runs
      // live. One the journal explains differently (same id, or same tool without ids, other arguments) is a divergence.
      const known = tools.unused().some((c) => c.kind === call.kind && (call.callId ? c.callId === call.callId : c.name === call.name))
      if (!known) return next()
      throw divergence(config, log, call.step, take.closest?.step, take.diff)
    }
    log.journalServed++
    const cell = take.cell
    log.entries.push({ seq: call.seq, channel: 'tool', cell })
    if (call.kind === 'fn') return cell.error ? { error: restoreError(cell.error) } : { output: cell.output }
    return { response: cell.response ? replayResponse(cell.response, { transportError: cell.transportError }) : Response.error() }
  }
  return Object.assign(stage, {
    unused: () => [...model.unused(), ...tools.unused()].sort((a, b) => a.seq - b.seq).map((c) => c.step),
  })
}

function divergence(config: RunConfig, log: RunLog, step: string, closest: string | undefined, diff: JsonDiffRow[] | undefined): FluxError {
  return new FluxError('FLUX_DIVERGED', {
    failed: `resume durable run "${log.name}" at ${step}`,
    reason:
      `the agent now sends a request the journal did not record${closest ? ` (journaled ${closest} differs)` : ''}: the code changed between the crash ` +
      `and the resume, and resuming will not improvise`,
    fix: `Resume with the code that started the run, or discard the run by deleting ${config.dir}.`,
    details: diff?.length ? renderDiff(diff) : undefined,
  })
}

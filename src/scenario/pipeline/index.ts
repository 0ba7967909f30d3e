/**
 * The request pipeline: every call of a run, on either channel, is classified once
 * (`classifyRequest` / `classifyToolCall`) and then walks these sources top to bottom,
 * each answering it or passing it on:
 *
 *   journal     durable(): results an earlier, crashed run already journaled
 *   intervene   a what-if's change or a check's rules: halts, rewrites, faults, substitutes, policy
 *   tape        the fixture (replay)
 *   off-tape    what a call the tape could not answer does: refused, or on to live
 *   live        the real provider or tool, captured (record, check misses, what-ifs bridged live)
 *
 *   refusal     a run that can neither record nor replay: every call it takes is refused
 *
 * A run has only the stages its kind needs: record is journal? → live; replay is
 * intervene? → tape → off-tape → live (reached only when an intervention allows it); a refusal is refusal.
 */
import type { Answer, Call, Counters, Stage, TapeMiss } from './call.js'
import { interventionStage } from './intervene.js'
import { journalStage } from './journal.js'
import { liveStage } from './live.js'
import type { RunLog } from './log.js'
import { offTapeStage } from './off-tape.js'
import type { RunConfig } from './config.js'
import { refusalStage } from './refuse.js'
import { tapeStage, type TapeStage } from './tape.js'

export interface Pipeline {
  /** Answer one call. Throws only for a fluxlab error (journal divergence, FLUX_OFFLINE) or a bug. */
  dispatch(call: Call): Promise<Answer>
  /** The tape stage (replay), for the calls it never served. */
  tape?: TapeStage
  /** The journal stage (durable()), for the results nobody asked for. */
  journal?: ReturnType<typeof journalStage>
}

/**
 * The stages of one run, in order, from its configuration.
 * @example
 * const pipeline = buildPipeline(config, log, counters)
 * const answer = await pipeline.dispatch(call)
 */
export function buildPipeline(config: RunConfig, log: RunLog, counters: Counters): Pipeline {
  const { mode, fixture, intervention: iv, journal: hooks, refusal } = config
  if (refusal) {
    const refuse = refusalStage(log, refusal)
    return { dispatch: (call) => refuse(call, () => Promise.reject(new Error('a refusal has no stage after it'))) }
  }
  const stages: Stage[] = []
  const journal = hooks ? journalStage(config, log, hooks) : undefined
  let tape: TapeStage | undefined
  if (mode === 'record') {
    if (journal) stages.push(journal)
  } else {
    if (!fixture) throw new Error('a replay needs a fixture')
    if (iv) stages.push(interventionStage(log, iv, counters, config))
    stages.push((tape = tapeStage(config, log, fixture, iv)), offTapeStage(config, log, iv))
  }
  stages.push(liveStage(config, log))
  const run = (i: number, call: Call, miss?: TapeMiss): Promise<Answer> => stages[i](call, (next = call, m) => run(i + 1, next, m), miss)
  return { dispatch: (call) => run(0, call), tape, journal }
}

export { classifyRequest, classifyToolCall, type Counters } from './call.js'
export { RunLog } from './log.js'
export type { RunConfig, RunInit, RunSettings } from './config.js'
export type { Refusal } from './refuse.js'

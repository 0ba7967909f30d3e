import { basename } from 'node:path'
import type { ModelCell, ToolCell } from '../cassette/cell.js'
import { readFixture } from '../cassette/fixture.js'
import { DEFAULT_MAX_BYTES, type FluxOptions } from '../context/options.js'
import { state } from '../context/state.js'
import { FluxError } from '../errors.js'
import { readFlag } from '../golden/update-mode.js'
import type { Agent } from '../scenario/lab.js'
import { Outcome } from '../scenario/outcome.js'
import { Run, runSettings, type RunSettings } from '../scenario/run.js'
import { Journal, type CellEntry, type IntentEntry, type ResurrectReport } from '../cassette/journal.js'

export type { ResurrectReport } from '../cassette/journal.js'

export interface DurableResult<R> {
  result: R
  /** Set when this call resumed an unfinished journal. */
  resurrected?: ResurrectReport
  outcome: Outcome<R>
}

export interface DurableOptions extends FluxOptions {
  /** Resume an unfinished journal even when `FLUX_AUTO_RESURRECT=0`. */
  resume?: boolean
  /**
   * A scenario fixture directory that plays the outside world: live model and HTTP tool requests
   * are answered from its recording instead of the network (crash-cut tests). In-process tools still run.
   */
  world?: string
}

/**
 * Run an agent durably: each model response and tool result is journaled to
 * `dir` (redacted, secret-scanned, flushed to disk) before the agent sees it.
 * Called again on an unfinished journal, it resumes: journaled results are
 * served (no model call, no tool re-run), the rest runs live and keeps
 * journaling, and `resurrected` says what happened.
 * @example
 * const { result, resurrected } = await durable('./state/run-42', (lab) => runAgent(task, { tools: lab.tools(tools) }))
 * if (resurrected) console.log(`resumed: ${resurrected.servedFromJournal} from journal, at-least-once: ${resurrected.inFlight.join(', ')}`)
 */
export async function durable<R>(dir: string, agent: Agent<R>, options: DurableOptions = {}): Promise<DurableResult<Awaited<R>>> {
  const opts = { ...state.options, ...options }
  const journal = Journal.open(dir, { disable: opts.redact?.disable })
  const resume = journal.unfinished
  if (resume && !options.resume && !readAutoResurrect())
    throw new FluxError('FLUX_UNFINISHED_RUN', {
      failed: `start durable run ${dir}`,
      reason: 'an earlier run there did not finish and FLUX_AUTO_RESURRECT=0 turns automatic resume off',
      fix: `Resume it with \`durable(dir, agent, { resume: true })\` (or unset FLUX_AUTO_RESURRECT), or discard it by deleting ${dir}.`,
    })
  const prior = resume ? priorRun(journal.entries) : { model: [], tools: [], inFlight: [] }
  const tornTail = journal.tornTail
  journal.begin(resume)
  const crash = crashPoint()
  const settings = runSettings(opts, options.world ? false : readFlag('FLUX_OFFLINE'))
  const run = new Run({
    name: basename(dir),
    dir,
    mode: 'record',
    settings,
    live: options.world ? worldFrom(options.world, opts, settings) : undefined,
    journal: {
      prefix: { model: prior.model, tools: prior.tools },
      intent: (entry: IntentEntry) => journal.append(entry),
      cell: (entry: CellEntry) => {
        const step = entry.cell.step.split(' ')[0]
        if (crash?.step === step && crash.when === 'before-append') process.kill(process.pid, 'SIGKILL')
        journal.append(entry)
        if (crash?.step === step && crash.when === 'after-append') process.kill(process.pid, 'SIGKILL')
      },
    },
  })
  const { result, failure } = await run.drive(agent)
  if (failure || run.log.fatal) {
    journal.close()
    // @note a journal divergence is answered off-tape, which the agent sees as a provider error: report the cause.
    throw run.log.fatal ?? failure!.error
  }
  journal.complete()
  const outcome = new Outcome({
    scenario: basename(dir),
    mode: 'record',
    result: result as Awaited<R>,
    steps: run.orderedSteps(),
    divergences: run.log.divergences,
    modelLive: run.log.modelLive,
    pricing: opts.pricing,
  })
  const resurrected: ResurrectReport | undefined = resume
    ? {
        servedFromJournal: run.log.journalServed,
        ranLive: run.log.journalLive,
        inFlight: prior.inFlight,
        unanchored: run.journalUnused(),
        tornTail,
      }
    : undefined
  return { result: result as Awaited<R>, resurrected, outcome }
}

/** Answer "live" requests from a recorded scenario: the frozen world a crash-cut test resumes against. */
function worldFrom(dir: string, opts: FluxOptions, settings: RunSettings): (request: Request) => Promise<Response> {
  const world = new Run({
    name: basename(dir),
    dir,
    mode: 'replay',
    fixture: readFixture(dir, { disable: opts.redact?.disable }),
    settings: { ...settings, maxBytes: opts.maxBytes ?? DEFAULT_MAX_BYTES, timing: undefined, offline: true },
    live: async () => Response.error(),
  })
  return (request) => world.handle(request)
}

function priorRun(entries: ReturnType<typeof Journal.open>['entries']): { model: ModelCell[]; tools: ToolCell[]; inFlight: string[] } {
  const model: ModelCell[] = []
  const tools: ToolCell[] = []
  const done = new Set<number>()
  for (const e of entries) {
    if (e.kind !== 'cell') continue
    done.add(e.cell.seq)
    if (e.channel === 'model') model.push(e.cell)
    else tools.push(e.cell)
  }
  const inFlight = entries.flatMap((e) => (e.kind === 'intent' && !done.has(e.seq) ? [e.step] : []))
  return { model, tools, inFlight }
}

function readAutoResurrect(): boolean {
  const raw = process.env.FLUX_AUTO_RESURRECT
  return raw === undefined || raw === '' ? true : readFlag('FLUX_AUTO_RESURRECT')
}

/** Test hook for crash-cut tests: `FLUX_CRASH_AT=tool#2:before-append` kills the process at that boundary. */
function crashPoint(): { step: string; when: 'before-append' | 'after-append' } | undefined {
  const raw = process.env.FLUX_CRASH_AT
  if (!raw) return undefined
  const [step, when] = raw.split(':')
  if (when !== 'before-append' && when !== 'after-append')
    throw new FluxError('FLUX_BAD_CONFIG', {
      failed: 'read FLUX_CRASH_AT',
      reason: `"${raw}" is not <step>:before-append or <step>:after-append`,
      fix: 'Use e.g. FLUX_CRASH_AT=tool#2:after-append.',
    })
  return { step, when }
}

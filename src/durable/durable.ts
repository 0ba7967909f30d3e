import { basename } from 'node:path'
import type { ModelCell, ToolCell } from '../cassette/cell.js'
import { readFixture } from '../cassette/fixture.js'
import { createRedactor } from '../cassette/redact.js'
import { FluxError } from '../errors.js'
import { readFlag } from '../golden/update-mode.js'
import { acquireInterception, liveFetch } from '../interceptor/index.js'
import { DEFAULT_MAX_BYTES, maxBytesFromEnv, type FluxOptions } from '../scenario/options.js'
import { Outcome } from '../scenario/outcome.js'
import { Session } from '../scenario/session.js'
import { currentSession, state } from '../scenario/state.js'
import { wrapTool, wrapTools, type ToolInvoker } from '../tools/wrap.js'
import type { Lab } from '../scenario/scenario.js'
import { Journal, type CellEntry, type IntentEntry } from './journal.js'

/** What a resumed run did: never silent (SPEC §9). */
export interface ResurrectReport {
  /** Operations answered from the journal: no model call, no tool re-run. */
  servedFromJournal: number
  /** Operations the resumed run performed live. */
  ranLive: number
  /**
   * Operations that had started (their intent was journaled) but whose result
   * was not appended before the crash: they ran again on resume, so their side
   * effects may have happened twice (at-least-once).
   */
  inFlight: string[]
  /** Journaled results the resumed run never asked for (the agent took another path after a point the journal cannot anchor). */
  unanchored: string[]
  /** The journal's last line was cut mid-write by the crash and was ignored. */
  tornTail: boolean
}

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
export async function durable<R>(dir: string, agent: (lab: Lab) => R | Promise<R>, options: DurableOptions = {}): Promise<DurableResult<Awaited<R>>> {
  const opts = { ...state.options, ...options }
  const journal = Journal.open(dir)
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
  const redactor = createRedactor(opts.redact)
  const live = options.world ? worldFrom(options.world, opts, redactor) : liveFetch
  const session = new Session({
    name: basename(dir),
    dir,
    mode: 'record',
    redactor,
    ignore: opts.ignore ?? [],
    hosts: opts.hosts ?? {},
    maxBytes: opts.maxBytes ?? maxBytesFromEnv(),
    offline: options.world ? false : readFlag('FLUX_OFFLINE'),
    live,
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
  const release = acquireInterception(async (request) => currentSession()?.handle(request))
  const invoke: ToolInvoker = (call, run) => session.callTool(call, run)
  const lab: Lab = { scenario: basename(dir), mode: 'record', tools: (t) => wrapTools(t, invoke), tool: (n, t) => wrapTool(n, t, invoke) } as Lab
  let result: Awaited<R>
  try {
    result = await state.sessions.run(session, async () => await agent(lab))
    await session.settled()
  } catch (e) {
    journal.close()
    // @note a journal divergence is answered off-tape, which the agent sees as a provider error: report the cause.
    throw session.fatal ?? e
  } finally {
    release()
  }
  if (session.fatal) {
    journal.close()
    throw session.fatal
  }
  journal.complete()
  const outcome = new Outcome(basename(dir), 'record', result, session.orderedSteps(), session.divergences, session.modelLive, () => {}, undefined, opts.pricing)
  const resurrected: ResurrectReport | undefined = resume
    ? {
        servedFromJournal: session.journalServed,
        ranLive: session.journalLive,
        inFlight: prior.inFlight,
        unanchored: session.journalUnused(),
        tornTail,
      }
    : undefined
  return { result, resurrected, outcome }
}

/** Answer "live" requests from a recorded scenario: the frozen world a crash-cut test resumes against. */
function worldFrom(dir: string, opts: FluxOptions, redactor: ReturnType<typeof createRedactor>): (request: Request) => Promise<Response> {
  const world = new Session({
    name: basename(dir),
    dir,
    mode: 'replay',
    fixture: readFixture(dir, { disable: opts.redact?.disable }),
    redactor,
    ignore: opts.ignore ?? [],
    hosts: opts.hosts ?? {},
    maxBytes: opts.maxBytes ?? DEFAULT_MAX_BYTES,
    offline: true,
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

import { severityOf, type Divergence, type DivergenceCode } from '../../cassette/divergence.js'
import type { JsonDiffRow } from '../../cassette/json-diff.js'
import type { TraceStep } from '../../golden/trace.js'
import { FluxError, isFluxError } from '../../errors.js'
import { offTapeResponse } from './http.js'

/** One step as the run made it; `live` when it went to the real provider or tool. */
export type RunStep = { seq: number; live?: boolean } & TraceStep

/** One tool result a model request sends back: by call id, or by tool name where the family names results. */
export type ToolResultRef = { id?: string; name?: string }

/** A model request of a replay, by its place in the run, and the tool results it sends back (read when first asked). */
export interface SentResults {
  seq: number
  step: string
  results: () => readonly ToolResultRef[]
}

/**
 * A live call in flight, from its send until its cell is kept (`live.ts`). `done` settles then, and never rejects;
 * `stop`, when the run ends first, ends it: a call whose headers never came is stored as unanswered, a body still
 * being read is kept as open.
 */
export interface InFlight {
  readonly done: Promise<void>
  stop(): void
}

/** A model request the tape could not explain that `check` sent live. */
export interface LiveMiss {
  step: string
  closest?: string
  diff?: JsonDiffRow[]
}

/**
 * What one run observed, as its pipeline stages record it: the steps it made, the divergences
 * it hit, what went live, the recordings still reading their bodies; and the wording of what it
 * answers off tape. Stages write here; the run reads it when it ends. Its configuration is apart
 * (`RunConfig`, frozen).
 */
export class RunLog {
  readonly divergences: Divergence[] = []
  /** Steps as the run made them (recorded cells in record mode, served cells in replay), in completion order. */
  readonly entries: RunStep[] = []
  /** Model requests `check` sent live because the tape could not explain them. */
  readonly misses: LiveMiss[] = []
  modelLive = 0
  /** Model calls the app's own msw or nock listeners never saw: fluxlab answered them first (the summary says so while recording). */
  pastMocks = 0
  /** The environment variables whose values the live requests carried (names only): the manifest's `keyVars`. */
  readonly keyVars = new Set<string>()
  /** `durable()`: operations answered from the journal, and run live, by this run. */
  journalServed = 0
  journalLive = 0
  /** The first fluxlab error raised while serving a request (`FLUX_OFFLINE`, a bug of ours); the run throws it. */
  fatal?: Error
  /** Reads a test's replay answered from another fixture of its file (`shared-reads.ts`). */
  readonly shared: Array<{ step: string; from: string }> = []
  /** Replay: every model request, for the tool results it sent back (the end of the run's `unwrapped_tool` check). */
  readonly sent: SentResults[] = []
  /** MCP requests sent live and not answered yet, in the order sent, by endpoint, session and JSON-RPC id (`mcp-cancel.ts`). */
  readonly awaiting = new Map<string, number[]>()
  /** When the client cancelled a request (`notifications/cancelled`), by the request's `seq` (`mcp-cancel.ts`). */
  readonly cancelled = new Map<number, number>()
  /** Live calls not kept yet (`live.ts` adds and removes its own): the end of the run stops them and waits for them. */
  readonly inFlight = new Set<InFlight>()
  private endOfRun!: () => void
  /** Settles when the run ends (its test is over): a replayed answer that came after the end waits for it (`afterEnd`). */
  readonly ended = new Promise<void>((r) => (this.endOfRun = r))
  /** The run has ended: an answer whose headers come now is stored `afterEnd`. */
  hasEnded = false

  /** `name`: the scenario's, for messages; `command`: the exact command that runs it again under an env setting. */
  constructor(
    readonly name: string,
    private readonly command: (env: string) => string,
  ) {}

  diverge(code: DivergenceCode, step: string, message: string, extra: { diff?: JsonDiffRow[]; closest?: string } = {}): void {
    if (this.divergences.some((d) => d.code === code && d.step === step && d.message === message)) return
    this.divergences.push({ code, severity: severityOf(code), step, message, ...extra })
  }

  /**
   * The run fails with `e`: a fluxlab error as it is, anything else as a bug of ours at `step`. The
   * first one is kept (`fatal`; the run throws it when it ends); this one is returned, so each refused
   * request is answered with its own reason (issue 24: later refusals repeated the first one's).
   */
  fail(e: unknown, step: string): Error {
    const error = isFluxError(e) ? e : internalError(e, step, this.name)
    this.fatal ??= error
    return error
  }

  /**
   * The run ended: wait a moment for recordings to finish, then store the streams still open as
   * open (SPEC §3: an SSE stream a client keeps between calls never ends by itself), and the calls still
   * waiting for their answer as unanswered (./unanswered.ts).
   */
  async closeStreams(graceMs = 250): Promise<void> {
    this.hasEnded = true
    this.endOfRun()
    if (this.inFlight.size === 0) return
    await this.settledWithin(graceMs)
    // @note stops are idempotent: a call sent while the run closes (whose headers may never come) is stopped too.
    while (this.inFlight.size) {
      for (const call of this.inFlight) call.stop()
      await this.settledWithin(graceMs)
    }
  }

  private async settledWithin(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    await Promise.race([this.settled(), new Promise<void>((r) => (timer = setTimeout(r, ms)))])
    clearTimeout(timer)
  }

  /** Wait for recordings still reading their bodies. */
  async settled(): Promise<void> {
    while (this.inFlight.size) await Promise.all([...this.inFlight].map((call) => call.done))
  }

  /** Steps in run order, with their `live` flag. */
  ordered(): RunStep[] {
    return [...this.entries].sort((a, b) => a.seq - b.seq)
  }

  /** Steps in run order, as the trace shows them. */
  orderedSteps(): TraceStep[] {
    return this.ordered().map(({ channel, cell }) => ({ channel, cell }) as TraceStep)
  }

  /** The answer to a request the tape cannot explain, naming the step and the scenario. */
  offTape(step: string, why: string): Response {
    return offTapeResponse(this.offTapeText(step, why))
  }

  /** `If the change is intended, re-record: <exact command>.` */
  get rerecordHint(): string {
    return `If the change is intended, re-record: ${this.command('FLUX_GOLDEN=update')}`
  }

  offTapeText(step: string, why: string): string {
    return `[fluxlab] ${step} of scenario "${this.name}" is off tape: ${why}`
  }

  /** SPEC §3 `truncated_cell`: a cell stored cut over the cap is never served as whole. */
  refuseTruncated(cell: { step: string; originalBytes?: number }): Response {
    const rerecord = this.truncatedCommand(cell)
    this.diverge(
      'truncated_cell',
      cell.step,
      `the recorded response was ${cell.originalBytes} bytes, over the cap, and was stored cut; re-record with a larger cap: ${rerecord}`,
    )
    return this.offTape(cell.step, `the recorded response is truncated (${cell.originalBytes} bytes). Re-record with a larger cap: ${rerecord}`)
  }

  /** `truncated_cell` for an in-process tool: its output was over the cap and not stored, so it cannot be served. */
  truncatedError(cell: { step: string; name: string; originalBytes?: number }): FluxError {
    const rerecord = this.truncatedCommand(cell)
    this.diverge(
      'truncated_cell',
      cell.step,
      `the recorded output of ${cell.name} was ${cell.originalBytes} bytes, over the cap, and was not stored; re-record with a larger cap: ${rerecord}`,
    )
    return new FluxError('FLUX_DIVERGED', {
      failed: `replay ${cell.step} ${cell.name} of scenario "${this.name}"`,
      reason: `its recorded output was ${cell.originalBytes} bytes, over the cap (truncated_cell), so it was not stored; the tool was not run`,
      fix: `Re-record with a larger cap: ${rerecord}`,
    })
  }

  private truncatedCommand(cell: { originalBytes?: number }): string {
    return this.command(`FLUX_CASSETTE_MAX_BYTES=${(cell.originalBytes ?? 0) * 2} FLUX_GOLDEN=update`)
  }
}

/**
 * STYLE "Failure modes": an unexpected exception inside interception is a bug of ours. It fails
 * the run with its stack and says so; it is never answered with something an SDK retries.
 */
function internalError(e: unknown, step: string, scenario: string): FluxError {
  const err = e instanceof Error ? e : new Error(String(e))
  return new FluxError(
    'FLUX_INTERNAL',
    {
      failed: `serve ${step} of scenario "${scenario}"`,
      reason: `fluxlab hit an unexpected ${err.name} (${err.message}). This is a bug in fluxlab, not a network error`,
      fix: 'Please report it with the stack below.',
      details: (err.stack ?? '')
        .split('\n')
        .slice(1, 8)
        .map((l) => l.trim()),
    },
    { cause: err },
  )
}

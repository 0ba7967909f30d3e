/**
 * A scenario run that is not a function call: a whole process (or a tree of them) is the run.
 * `Scenario.run(fn)` scopes a run to `fn` through AsyncLocalStorage; `fluxlab record|replay`
 * instead feeds every request of the program to one run held here, and finishes it when the
 * program exits.
 *
 * It is the same `Run` as `Scenario.run`'s (src/scenario/run.ts), fed by the tree's socket (src/scenario/tree.ts)
 * instead of async context, and it writes through the same `persist.ts`.
 */
import type { Fixture } from '../cassette/cell.js'
import type { Divergence } from '../cassette/divergence.js'
import { maxBytesFromEnv, type FluxOptions } from '../context/options.js'
import { renderTrace, type TraceStep } from '../golden/trace.js'
import { refuseProviderWithoutModelCall } from '../scenario/core.js'
import { manifestFor, saveRecording, settleTrace } from '../scenario/persist.js'
import { Run, runSettings } from '../scenario/run.js'

export { maxBytesFromEnv }

export interface AttachOptions {
  name: string
  /** The fixture directory. */
  dir: string
  mode: 'record' | 'replay'
  /** The fixture, read beforehand (replay). */
  fixture?: Fixture
  options: FluxOptions
  offline: boolean
  /** Stored in scenario.yaml as `input` (redacted), e.g. the command line. */
  input?: unknown
  /** Performs a live request (record). Default: global `fetch` (the CLI process itself is not intercepted). */
  live?: (request: Request) => Promise<Response>
  /** `FLUX_GOLDEN=snapshots`: rewrite trace.snap from a faithful replay. */
  rewriteTrace?: boolean
  /** Write a missing trace.snap after a faithful replay (outside CI). */
  writeMissingTrace?: boolean
  /** The command line that records this scenario (`npx fluxlab record triage -- node agent.js`), for messages. */
  command?: string
}

export interface AttachResult {
  mode: 'record' | 'replay'
  steps: TraceStep[]
  divergences: Divergence[]
  failures: Divergence[]
  warnings: Divergence[]
  modelLive: number
  /** The first fluxlab error raised while serving a request (`FLUX_OFFLINE`, …). */
  fatal?: Error
  /** Record: whether the fixture was written. */
  saved: boolean
  /** Replay: how the run's trace compares with trace.snap. */
  trace: 'matched' | 'mismatch' | 'updated' | 'added' | 'recorded' | 'not-written'
}

export interface Attached {
  readonly run: Run
  /** Serve one request of the program: from the tape, live (recorded), or off-tape. Never throws. */
  handle(request: Request): Promise<Response>
  /** The program ended: settle recordings, close the replay (unused calls), write the fixture when recording succeeded. */
  finish(opts: { programFailed: boolean }): Promise<AttachResult>
}

/**
 * Open a run for a whole program.
 * @example
 * const run = attachScenario({ name: 'triage', dir, mode: 'replay', fixture: readFixture(dir), options: {}, offline: false })
 * // … for every request the program makes: await run.handle(request)
 * const result = await run.finish({ programFailed: exitCode !== 0 })
 */
export function attachScenario(o: AttachOptions): Attached {
  const settings = runSettings(o.options, o.offline)
  const command = o.command
  const run = new Run({
    name: o.name,
    dir: o.dir,
    mode: o.mode,
    fixture: o.fixture,
    settings,
    live: o.live ?? ((request) => fetch(request)),
    ...(command ? { command: (env: string) => `${env} ${command}` } : {}),
  })
  run.checkRedaction()
  return {
    run,
    handle: (request) => run.handle(request),
    async finish({ programFailed }) {
      await run.close()
      const steps = run.orderedSteps()
      const failures = run.log.divergences.filter((d) => d.severity === 'failure')
      const result: AttachResult = {
        mode: o.mode,
        steps,
        divergences: run.log.divergences,
        failures,
        warnings: run.log.divergences.filter((d) => d.severity === 'warning'),
        modelLive: run.log.modelLive,
        fatal: run.log.fatal,
        saved: false,
        trace: 'not-written',
      }
      run.acknowledged = true
      if (run.log.fatal) return result
      const trace = renderTrace(o.name, steps)
      if (o.mode === 'record') {
        if (programFailed || steps.length === 0) return result
        const { model, tools, keyVars } = run.recordedCells()
        try {
          refuseProviderWithoutModelCall(o.name, { model, tools }, o.options.hosts)
        } catch (e) {
          result.fatal = e as Error
          return result
        }
        const { redactor, maxBytes, normalize } = settings
        const manifest = manifestFor({
          name: o.name,
          model,
          input: o.input !== undefined ? redactor.json(o.input) : undefined,
          keyVars,
          maxBytes,
          redaction: redactor.marker,
          normalize: normalize.marker,
        })
        saveRecording({ dir: o.dir, manifest, model, tools, trace, disable: o.options.redact?.disable })
        // @note what the run's facts say (fluxlab serve's report to the Playwright summary): recorded, by this run
        run.written = true
        result.saved = true
        result.trace = 'recorded'
        return result
      }
      const rule = { rewrite: !!o.rewriteTrace, writeMissing: !!o.writeMissingTrace }
      result.trace = settleTrace({
        dir: o.dir,
        expected: o.fixture?.trace,
        trace,
        faithful: failures.length === 0 && !programFailed,
        rule,
        disable: o.options.redact?.disable,
      }).status
      return result
    },
  }
}

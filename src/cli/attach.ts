/**
 * A scenario run that is not a function call: a whole process (or a tree of them) is the run.
 * `Scenario.run(fn)` scopes a session to `fn` through AsyncLocalStorage; `fluxlab record|replay`
 * instead feeds every request of the program to one session held here, and finishes it when the
 * program exits.
 *
 * @note Candidate for the scenario layer as `Scenario.attach(): Attached` (it mirrors
 * `Scenario.run`'s session setup and `save`); it lives in src/cli until then and uses only
 * `Session` and the cassette API.
 */
import { FORMAT_VERSION, type Fixture, type Manifest } from '../cassette/cell.js'
import type { Divergence } from '../cassette/divergence.js'
import { writeFixture, writeTrace } from '../cassette/fixture.js'
import { createRedactor } from '../cassette/redact.js'
import { FluxError } from '../errors.js'
import { renderTrace, type TraceStep } from '../golden/trace.js'
import { maxBytesFromEnv, type FluxOptions } from '../scenario/options.js'

export { maxBytesFromEnv }
import { Session } from '../scenario/session.js'
import { VERSION } from '../version.js'

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
  readonly session: Session
  /** Serve one request of the program: from the tape, live (recorded), or off-tape. Never throws. */
  handle(request: Request): Promise<Response>
  /** The program ended: settle recordings, close the replay (unused calls), write the fixture when recording succeeded. */
  finish(opts: { programFailed: boolean }): Promise<AttachResult>
}

/**
 * Open a session for a whole program.
 * @example
 * const run = attachScenario({ name: 'triage', dir, mode: 'replay', fixture: readFixture(dir), options: {}, offline: false })
 * // … for every request the program makes: await run.handle(request)
 * const result = await run.finish({ programFailed: exitCode !== 0 })
 */
export function attachScenario(o: AttachOptions): Attached {
  const redactor = createRedactor(o.options.redact)
  const maxBytes = o.options.maxBytes ?? maxBytesFromEnv()
  const session = new Session({
    name: o.name,
    dir: o.dir,
    mode: o.mode,
    fixture: o.fixture,
    redactor,
    ignore: o.options.ignore ?? [],
    hosts: o.options.hosts ?? {},
    maxBytes,
    timing: o.options.timing,
    offline: o.offline,
    live: o.live ?? ((request) => fetch(request)),
  })
  if (o.fixture && o.fixture.manifest.redaction !== redactor.marker)
    session.diverge(
      'redaction_mismatch',
      'scenario.yaml',
      `the fixture was redacted with ${o.fixture.manifest.redaction}, today's redactor is ${redactor.marker}; re-record with FLUX_GOLDEN=update so the fixture matches today's rules`,
    )

  return {
    session,
    handle: (request) => session.handle(request),
    async finish({ programFailed }) {
      await session.settled()
      session.closeReplay()
      const steps = session.orderedSteps()
      const failures = session.divergences.filter((d) => d.severity === 'failure')
      const result: AttachResult = {
        mode: o.mode,
        steps,
        divergences: session.divergences,
        failures,
        warnings: session.divergences.filter((d) => d.severity === 'warning'),
        modelLive: session.modelLive,
        fatal: session.fatal,
        saved: false,
        trace: 'not-written',
      }
      session.acknowledged = true
      if (session.fatal) return result
      const trace = renderTrace(o.name, steps)
      if (o.mode === 'record') {
        if (programFailed || steps.length === 0) return result
        const { model, tools } = session.recordedCells()
        const manifest: Manifest = {
          formatVersion: FORMAT_VERSION,
          fluxlabVersion: VERSION,
          name: o.name,
          recordedAt: new Date().toISOString(),
          ...(o.input !== undefined ? { input: redactor.json(o.input) } : {}),
          models: [...new Set(model.map((c) => c.model).filter((m): m is string => !!m))].sort(),
          providerHosts: [...new Set(model.map((c) => new URL(c.url).host))].sort(),
          cassetteMaxBytes: maxBytes,
          redaction: redactor.marker,
        }
        writeFixture({ dir: o.dir, manifest, model, tools, trace }, { disable: o.options.redact?.disable })
        result.saved = true
        result.trace = 'recorded'
        return result
      }
      const expected = o.fixture?.trace
      if (expected === trace) result.trace = 'matched'
      else if (failures.length === 0 && !programFailed && (o.rewriteTrace || (expected === undefined && o.writeMissingTrace))) {
        writeTrace(o.dir, trace, { disable: o.options.redact?.disable })
        result.trace = expected === undefined ? 'added' : 'updated'
      } else result.trace = 'mismatch'
      return result
    },
  }
}



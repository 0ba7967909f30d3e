import { isAbsolute, join, relative, resolve } from 'node:path'
import type { Fixture, ModelCell, ToolCell } from '../cassette/cell.js'
import { existingFixture, fixtureExists, readFixture } from '../cassette/fixture.js'
import { rerunCommand } from '../runners/command.js'
import { DEFAULT_DIR } from '../context/options.js'
import { state } from '../context/state.js'
import { runningTestRef, testRef } from '../context/test-context.js'
import type { TestContext } from '../context/types.js'
import { FluxError } from '../errors.js'
import { isModelListRequest, providerOfHost } from '../providers/registry.js'
import type { ProviderFamily } from '../providers/registry.js'
import { decideMode, readFlag, readGolden, updateStateFromEnv, type ModeDecision, type UpdateState } from '../golden/update-mode.js'
import type { Intervention } from './intervention.js'
import type { ScenarioOptions } from './options.js'
import type { OutcomeCommands, TraceSnapshot } from './outcome.js'
import { manifestFor, saveRecording, sourceOf } from './persist.js'
import { Run, runSettings, type RunInit, type RunSettings } from './run.js'

/**
 * What one opened scenario is: its name, directory, mode and options, decided once by
 * `scenario()`. `Scenario`, what-ifs and `check` all start their runs from it.
 */
export interface ScenarioCore {
  name: string
  dir: string
  decision: ModeDecision
  options: ScenarioOptions
  settings: RunSettings
  updateState: UpdateState
  test?: TestContext
  /** The fixture (replay). */
  fixture?: Fixture
}

/**
 * Open the scenario `name` for `test` (SPEC §2): its directory, its mode from the fixture, the
 * update state and `FLUX_GOLDEN`, and the fixture it replays. `refused` when it can neither replay
 * nor record here (no fixture under CI; FLUX_OFFLINE with nothing to replay): `scenario()` throws
 * it at once, whole-suite mode only when the test makes a call.
 * @example
 * const opened = openCore('weather', options, currentTest())
 */
export function openCore(name: string, options: ScenarioOptions, test: TestContext | undefined): { core: ScenarioCore } | { refused: FluxError; dir: string } {
  checkName(name)
  const base = resolve(test?.rootDir ?? process.cwd(), options.dir ?? DEFAULT_DIR)
  const dir = join(base, ...(test?.project ? [test.project] : []), name)
  const golden = readGolden()
  const offline = readFlag('FLUX_OFFLINE')
  const updateState = test?.updateState ?? updateStateFromEnv()
  // @note FLUX_GOLDEN=update records whatever is there, so the fixture is not read
  const existing = golden === 'update' ? undefined : existingFixture(dir, { disable: options.redact?.disable, rerun: test ? testRef(test) : runningTestRef() })
  const decision = decideMode({ exists: existing !== undefined, updateState, golden })
  if (!decision) return { refused: noRecording(name, dir, test), dir }
  if (decision.mode === 'record' && offline)
    return {
      refused: new FluxError('FLUX_OFFLINE', {
        failed: `record scenario "${name}"`,
        reason:
          `FLUX_OFFLINE=1 forbids live requests and there is no fixture to replay at ` +
          `${rel(dir)}${golden === 'update' ? ' (FLUX_GOLDEN=update asks to re-record)' : ''}`,
        fix: 'Unset FLUX_OFFLINE to record, or commit the recorded fixture.',
      }),
      dir,
    }
  const fixture = decision.mode === 'replay' ? existing : undefined
  test?.opened.add(dir)
  return { core: { name, dir, decision, options, settings: runSettings(options, offline), fixture, test, updateState } }
}

/**
 * Write what a recording run captured as the scenario's fixture (refusing to clobber one that
 * appeared meanwhile, unless `FLUX_GOLDEN=update`), and mark the run as one that wrote it.
 * @example
 * const traceSnapshot = saveCore(core, run, trace)
 */
export function saveCore(core: ScenarioCore, run: Run, trace: string): TraceSnapshot {
  const cells = run.recordedCells()
  refuseProviderWithoutModelCall(core.name, cells, core.options.hosts)
  if (fixtureExists(core.dir) && readGolden() !== 'update')
    throw new FluxError('FLUX_FIXTURE_EXISTS', {
      failed: `record scenario "${core.name}"`,
      reason: `a fixture appeared at ${rel(core.dir)} while this run was recording (two tests use the same scenario name?)`,
      fix: `Give each test its own scenario name, or re-baseline on purpose: ${outcomeCommands(core).rerecord}`,
    })
  const { redactor, maxBytes, normalize } = core.settings
  const input = core.options.input !== undefined ? redactor.json(core.options.input) : undefined
  const manifest = manifestFor({
    name: core.name,
    model: cells.model,
    source: sourceOf(core.test),
    input,
    keyVars: [...cells.keyVars, ...fileKeysOf(core.test)],
    maxBytes,
    redaction: redactor.marker,
    normalize: normalize.marker,
  })
  const snapshot = saveRecording({
    dir: core.dir,
    manifest,
    model: cells.model,
    tools: cells.tools,
    trace,
    disable: core.options.redact?.disable,
    updateState: core.updateState,
  })
  run.written = true
  return snapshot
}

/** The credential-like variables the test's file read, set, while it was collected (see `state.fileKeys`). */
function fileKeysOf(test: TestContext | undefined): readonly string[] {
  const keys = state.fileKeys
  return test && keys && resolve(keys.file) === resolve(test.testFile) ? keys.names : []
}

/**
 * The scenario's recording: the fixture it replays, or (while it records) the one on disk.
 * @example
 * const parent = recordedParent(core)
 */
export function recordedParent(core: ScenarioCore): Fixture | undefined {
  return core.fixture ?? (fixtureExists(core.dir) ? readFixture(core.dir, { disable: core.options.redact?.disable }) : undefined)
}

/**
 * The exact command that runs this scenario again under `env`: its test's, else this process's.
 * @example
 * scenarioCommand(core, 'FLUX_GOLDEN=update')
 */
function scenarioCommand(core: ScenarioCore, env: string): string {
  return rerunCommand(env, core.test ? testRef(core.test) : runningTestRef())
}

/**
 * The commands an outcome of this scenario names, each built when a failure first asks for it, for the test that ran.
 * @note issue 28: both command lines were built at the end of every run, and only a failure reads them.
 */
export function outcomeCommands(core: ScenarioCore): OutcomeCommands {
  const ref = core.test ? testRef(core.test) : runningTestRef()
  let rerecord: string | undefined
  let updateTrace: string | undefined
  return {
    get rerecord() {
      return (rerecord ??= rerunCommand('FLUX_GOLDEN=update', ref))
    },
    get updateTrace() {
      return (updateTrace ??= rerunCommand('FLUX_GOLDEN=snapshots', ref))
    },
  }
}

/**
 * A run of this scenario: its settings, its test, and the agent's input (the recorded one first).
 * @example
 * const run = startRun(core, { mode: 'replay', fixture: core.fixture })
 */
export function startRun(
  core: ScenarioCore,
  o: { mode: 'record' | 'replay'; fixture?: Fixture; intervention?: Intervention; name?: string; input?: unknown } & Pick<RunInit, 'toolWrap' | 'ownServers'>,
): Run {
  return new Run({
    name: o.name ?? core.name,
    scenario: core.name,
    dir: core.dir,
    mode: o.mode,
    fixture: o.fixture,
    settings: core.settings,
    intervention: o.intervention,
    toolWrap: o.toolWrap,
    ownServers: o.ownServers,
    test: core.test,
    // @note the fixture is shared and frozen (issue 14): the agent gets its own copy of the recorded input.
    input: o.input ?? (core.fixture?.manifest.input !== undefined ? structuredClone(core.fixture.manifest.input) : core.options.input),
    command: (env) => scenarioCommand(core, env),
  })
}

/**
 * SPEC §2: a recording that reached a provider's host but saw no model call recorded the wrong
 * thing (an endpoint fluxlab does not know as a model call): an error, not an empty fixture.
 * @example
 * refuseProviderWithoutModelCall('weather', run.recordedCells())
 */
export function refuseProviderWithoutModelCall(
  name: string,
  cells: { model: readonly ModelCell[]; tools: readonly ToolCell[] },
  hosts: Record<string, ProviderFamily> = {},
): void {
  if (cells.model.length > 0) return
  // @note issue 24: a read (a model list, a health check) is recorded as it is, an HTTP cell replayed byte for byte.
  const hit = providerCells(cells.tools, hosts).find((c) => !READS.has(methodOf(c)))
  if (!hit?.url) return
  const url = new URL(hit.url)
  throw new FluxError('FLUX_RECORD_FAILED', {
    failed: `record scenario "${name}"`,
    reason:
      `the run reached ${url.host} (${providerOfHost(url.host, hosts)}) at ${hit.name.split(' ')[0]} ${url.pathname}, which fluxlab does not know as a ` +
      `model call, and made no model call it knows: the fixture would replay that provider as a plain tool`,
    fix:
      'If it is a model endpoint fluxlab should know, report it; until then map its host to the family with the `hosts` option when its path is one the ' +
      'family serves. Nothing was written.',
  })
}

/** Methods that only read: `GET /v1/models` on a provider's host is no model call fluxlab missed. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS'])
const methodOf = (c: ToolCell) => c.name.split(' ')[0]
const providerCells = (tools: readonly ToolCell[], hosts: Record<string, ProviderFamily>) =>
  tools.filter((c) => c.kind === 'http' && c.url && (providerOfHost(new URL(c.url).host, hosts) || isModelListRequest(methodOf(c), new URL(c.url))))

/**
 * Whether a whole-suite recording has something to keep: a model call, or any request that reached a host outside the
 * test's own process tree (its own servers never reach the run). SPEC §2, issue 38 item 10: a test that only calls a
 * tool API, or only lists a provider's models, writes a fixture, so an offline replay serves it and its verdict holds.
 * A test whose only calls were in-process tools reached no host and writes none.
 * @example
 * if (!reachedAHost(run.recordedCells())) return
 */
export function reachedAHost(cells: { model: readonly ModelCell[]; tools: readonly ToolCell[] }): boolean {
  return cells.model.length > 0 || cells.tools.some((c) => c.kind === 'http')
}

function checkName(name: string): void {
  const bad = name === '' || isAbsolute(name) || name.split(/[\\/]/).some((p) => p === '..' || p === '.' || p === '')
  if (bad)
    throw new FluxError('FLUX_BAD_CONFIG', {
      failed: `open scenario "${name}"`,
      reason: 'a scenario name must be a relative path without "." or ".." segments',
      fix: 'Use a name like "weather" or "billing/refund".',
    })
}

const rel = (p: string) => relative(process.cwd(), p) || p

function noRecording(name: string, dir: string, test: TestContext | undefined): FluxError {
  const ref = test ? testRef(test) : runningTestRef()
  const record = rerunCommand(undefined, ref)
  const here = rerunCommand('FLUX_GOLDEN=update', ref)
  return new FluxError('FLUX_NO_RECORDING', {
    failed: `open scenario "${name}"`,
    reason: `there is no fixture at ${rel(dir)} and recording is off here (snapshot update state "none": CI or --ci)`,
    fix:
      `Record it where provider keys are available with \`${record}\` and commit ${rel(dir)}/, or record here on purpose with \`${here}\` ` +
      '(a test that fails while recording writes no fixture: if it failed when it was recorded, make it pass first).',
  })
}

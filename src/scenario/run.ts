import type { ModelCell, ToolCell } from '../cassette/cell.js'
import { createNormalizer } from '../cassette/normalize.js'
import { createRedactor } from '../cassette/redact.js'
import { rerunCommand } from '../runners/command.js'
import { runnerAdapter } from '../runners/registry.js'
import { fillReplayKeys } from '../context/replay-keys.js'
import { keysFrom, maxBytesFromEnv, upstreamFrom, type FluxOptions } from '../context/options.js'
import { state, type RequestRoute } from '../context/state.js'
import { runningTestRef, testRef } from '../context/test-context.js'
import type { TrackedRun } from '../context/types.js'
import type { TraceStep } from '../golden/trace.js'
import { acquireInterception, liveFetch, loadInterceptors } from '../sources/index.js'
import { wrapMcpTransport } from '../sources/mcp-transport.js'
import { wrapTool, wrapTools, type ToolInvoker } from '../tools/wrap.js'
import { fixtureKeyVars } from './key-vars.js'
import type { Agent, Lab } from './lab.js'
import { buildPipeline, RunLog, type Counters, type Pipeline, type RunConfig, type RunInit, type RunSettings } from './pipeline/index.js'
import { closeReplay } from './pipeline/close.js'
import { admit } from './router.js'
import { prepareTree, unreachedChildren } from './tree.js'
import { handoffOf, type RunHandoff, type RunReturn } from './handoff.js'
import type { UsedCells } from './pipeline/takes.js'

export type { RunConfig, RunInit, RunSettings }

/**
 * The settings of runs under `options`: one redactor, the ignore paths, extra provider hosts, the cap.
 * @example
 * const settings = runSettings(options, readFlag('FLUX_OFFLINE'))
 */
export function runSettings(options: FluxOptions, offline: boolean): RunSettings {
  return {
    redactor: createRedactor(options.redact),
    ignore: options.ignore ?? [],
    normalize: createNormalizer(options.normalize),
    hosts: options.hosts ?? {},
    maxBytes: options.maxBytes ?? maxBytesFromEnv(),
    timing: options.timing,
    offline,
    upstream: upstreamFrom(options),
    keys: keysFrom(options),
  }
}

/** What a recording run captured: its cells in run order, and the names of the key variables its requests carried. */
export interface Recording {
  model: ModelCell[]
  tools: ToolCell[]
  keyVars: string[]
}

/**
 * One run of an agent against a scenario, from start to end: every request it makes goes
 * down the pipeline (src/scenario/pipeline); `drive` owns the lifecycle (interception,
 * routing by async context, placeholder keys, settling recordings, closing the replay).
 * What is written when the run ends is decided in `persist.ts`.
 * @example
 * const run = new Run({ name, dir, mode: 'replay', fixture, settings })
 * const { result, failure } = await run.drive(agent)
 */
export class Run implements TrackedRun, RequestRoute {
  /** What this run is, frozen when it is built; the stages only read it. */
  readonly config: RunConfig
  /** What it observed: steps, divergences, what went live, recordings in flight. */
  readonly log: RunLog
  acknowledged = false
  acknowledgedUpTo?: number
  /** Set when the fixture this run recorded was written. */
  written = false
  /**
   * Answer one intercepted request (`Pipeline.handle`): given its place in the run, identified once, and walked down
   * the stages. Never throws. `known`: its family, as the router found it.
   */
  readonly handle: Pipeline['handle']
  /** One in-process tool call (`lab.tools`, `tools()`): `Pipeline.callTool`. */
  readonly callTool: Pipeline['callTool']
  private readonly counters: Counters = { seq: 0, model: 0, tool: 0 }
  private readonly pipeline: Pipeline
  private closed = false
  private registered = false

  /** `start`: where a run another process handed over stands (`handoff.ts`): its counters, the cells it served. */
  constructor({ settings, live, command, scenario, start, ...init }: RunInit & { start?: { counters: Counters; used?: UsedCells } }) {
    // @note issue 28: `Object.assign`, not `{ ...settings, ...init, … }`: on Node 20 a literal that spreads one object
    // and then adds properties builds a new hidden class per call, about 15 µs for this one, every run.
    this.config = Object.freeze(
      Object.assign({}, settings, init, {
        live: live ?? liveFetch,
        command: command ?? ((env: string) => rerunCommand(env, init.test ? testRef(init.test) : runningTestRef())),
        scenario: scenario ?? init.name,
      }),
    )
    this.log = new RunLog(this.config.name, this.config.command)
    this.pipeline = buildPipeline(this.config, this.log, this.counters)
    // @note issue 25: the pipeline's own entrances, not methods that pass through: the router binds `handle` to a
    // request, so answering it enters the pipeline directly.
    this.handle = this.pipeline.handle
    this.callTool = this.pipeline.callTool
    if (start) {
      Object.assign(this.counters, start.counters)
      if (start.used) this.pipeline.tape?.markUsed(start.used)
    }
  }

  /** This run as JSON, for the holder of a child process started with `execSync` and the like (`handoff.ts`). */
  handoff(): RunHandoff {
    return handoffOf(this.config, this.counters, this.pipeline.tape?.used())
  }

  /** What this run did, as JSON: a holder's run, handed back to the run it continued. */
  returned(): RunReturn {
    const { log } = this
    return {
      counters: { ...this.counters },
      entries: log.entries,
      divergences: log.divergences,
      modelLive: log.modelLive,
      keyVars: [...log.keyVars],
      ...(this.pipeline.tape ? { used: this.pipeline.tape.used() } : {}),
      ...(log.sent.length ? { sent: log.sent.map((x) => ({ seq: x.seq, step: x.step, results: x.results() })) } : {}),
      ...(log.fatal ? { fatal: { message: log.fatal.message, code: (log.fatal as { code?: string }).code } } : {}),
    }
  }

  /** Take back what a holder's run did while this process was blocked, as if this run had made those calls. */
  absorb(r: RunReturn): void {
    Object.assign(this.counters, r.counters)
    this.log.entries.push(...r.entries)
    for (const x of r.sent ?? []) this.log.sent.push({ ...x, results: () => x.results })
    for (const d of r.divergences)
      this.log.diverge(d.code, d.step, d.message, { ...(d.diff ? { diff: d.diff } : {}), ...(d.closest ? { closest: d.closest } : {}) })
    this.log.modelLive += r.modelLive
    for (const k of r.keyVars) this.log.keyVars.add(k)
    if (r.used) this.pipeline.tape?.markUsed(r.used)
    if (r.fatal) this.log.fatal ??= Object.assign(new Error(r.fatal.message), { name: r.fatal.code ? 'FluxError' : 'Error', code: r.fatal.code })
  }

  /** The run is over (`close`): a child process of it that sends a request now is refused. */
  get ended(): boolean {
    return this.closed
  }

  /** Steps in run order, as the trace shows them. */
  orderedSteps(): TraceStep[] {
    return this.log.orderedSteps()
  }

  /** The cells this run recorded, in run order, for its fixture, and the key variables their requests carried. */
  recordedCells(): Recording {
    const sorted = this.log.ordered()
    return {
      model: sorted.flatMap((s) => (s.channel === 'model' ? [s.cell] : [])),
      tools: sorted.flatMap((s) => (s.channel === 'tool' ? [s.cell] : [])),
      keyVars: [...this.log.keyVars].sort(),
    }
  }

  /**
   * SPEC §3 `redaction_mismatch`: the fixture was redacted by other rules than today's, or its requests were keyed under
   * other `normalize` rules (scenario.yaml `normalize`, absent when none were set): either way its keys are not today's.
   */
  checkRedaction(): void {
    const { fixture, redactor, normalize } = this.config
    if (!fixture) return
    // @note issue 40 performance: the command is built only for a mismatch (it was built at every run).
    const rerun = () => `re-record so the fixture matches today's rules: ${this.config.command('FLUX_GOLDEN=update')}`
    const marker = redactor.marker
    if (fixture.manifest.redaction !== marker)
      this.log.diverge(
        'redaction_mismatch',
        'scenario.yaml',
        `the fixture was redacted with ${fixture.manifest.redaction}, today's redactor is ${marker}; ${rerun()}`,
      )
    const was = fixture.manifest.normalize
    if (was !== normalize.marker)
      this.log.diverge(
        'redaction_mismatch',
        'scenario.yaml',
        `the fixture's requests were normalized with ${was ?? 'no normalize rules'}, today's normalize rules are ${normalize.marker ?? 'none'} ` +
          `(${JSON.stringify(normalize.config.map(String))}); ${rerun()}`,
      )
  }

  /** A request refused before it reached `handle` (an undici WebSocket to a model host): the run fails with it. */
  report(error: Error): void {
    this.log.fatal ??= error
  }

  /** What the agent function receives. */
  lab(): Lab {
    const invoke: ToolInvoker = (call, run) => this.callTool(call, run)
    return {
      scenario: this.config.scenario,
      mode: this.config.mode,
      input: this.config.input,
      tools: (tools) => wrapTools(tools, invoke),
      tool: (name, tool) => wrapTool(name, tool, invoke),
      mcp: (transport, options) => wrapMcpTransport(transport, (request) => request && { preempts: false, answer: () => this.handle(request) }, options),
    }
  }

  /**
   * Run `agent` with its traffic routed here: interception on, replay keys filled, `lab` handed
   * over; then wait for recordings and close the replay. Never throws the agent's error: it is returned.
   */
  async drive<R>(agent: Agent<R>): Promise<{ result?: Awaited<R>; failure?: { error: unknown } }> {
    this.register()
    await prepareTree()
    await loadInterceptors()
    const release = acquireInterception(admit)
    // SPEC §2: a replay fills exactly the key variables its fixture's requests carried (and `keys`); a recording fills none.
    const fixture = this.config.fixture
    const releaseKeys = this.config.mode === 'replay' && fixture ? fillReplayKeys(process.env, [...fixtureKeyVars(fixture), ...this.config.keys]) : () => {}
    let result: Awaited<R> | undefined
    let failure: { error: unknown } | undefined
    try {
      const lab = this.lab()
      result = await state.runs.run(this, async () => await agent(lab))
    } catch (error) {
      failure = { error }
    } finally {
      releaseKeys()
      // @note a runner that tears a test file's environment down right after its last test (jest) has the patches go at
      // once: undoing one later touches its torn-down globals. Elsewhere they go a turn later (reused meanwhile).
      release({ now: runnerAdapter(state.runner)?.releaseAtOnce === true })
    }
    await this.close()
    return { result, failure }
  }

  /** Wait for recordings still reading their bodies. */
  settled(): Promise<void> {
    return this.log.settled()
  }

  /** Tell the test that started this run about it, once: it checks the run's divergences when it ends. */
  register(): void {
    if (this.registered) return
    this.registered = true
    this.config.test?.runs.push(this)
  }

  /** The run is over: wait for recordings, then (replay) report recorded calls never made. */
  async close(): Promise<void> {
    await this.log.closeStreams()
    if (this.closed) return
    this.closed = true
    for (const command of unreachedChildren(this)) this.log.diverge('unseen_child', 'child', unseenMessage(command))
    if (this.config.mode === 'replay') closeReplay(this.log, this.pipeline.tape, this.config.intervention, this.config.toolWrap)
  }

  /** `durable()`: journaled results the resumed run never asked for. */
  journalUnused(): string[] {
    return this.pipeline.journal?.unused() ?? []
  }
}

/** SPEC §2, the process tree: a child of the run that never reached it, named with the two ways to fix that. */
const unseenMessage = (command: string): string =>
  `the child process \`${command}\` exited without reaching fluxlab: it did not load fluxlab's preload (its NODE_OPTIONS ` +
  'was replaced, or it is not a Node program) and sent nothing through a base-URL variable, so any request it made went ' +
  'out unseen and is on no tape; keep NODE_OPTIONS in its environment (add to it, do not replace it), or set ' +
  '`childBaseUrls: true` (FLUX_CHILD_BASE_URLS=1) for a program that reads OPENAI_BASE_URL and the like (docs/process-tree.md)'

import { createHash } from 'node:crypto'
import { isAbsolute, join, relative, resolve } from 'node:path'
import { FORMAT_VERSION, type Fixture, type Manifest } from '../cassette/cell.js'
import { FILES, fixtureExists, readFixture, writeFixture, writeTrace } from '../cassette/fixture.js'
import { createRedactor, type Redactor } from '../cassette/redact.js'
import { FluxError, isFluxError } from '../errors.js'
import { decideMode, readFlag, readGolden, updateStateFromEnv, type ModeDecision, type UpdateState } from '../golden/update-mode.js'
import { renderTrace } from '../golden/trace.js'
import { acquireInterception, liveFetch } from '../interceptor/index.js'
import { wrapTool, wrapTools, type ToolInvoker } from '../tools/wrap.js'
import { assertJudgeOnTape, judgeOnTape, type Verdict } from '../judge/judge-on-tape.js'
import type { Rubric } from '../judge/rubric.js'
import { crashAt, crashMatrix, type AgentModule, type CrashReport, type CrashRow, type CrashWhen } from '../durable/crash.js'
import { VERSION } from '../version.js'
import { DEFAULT_DIR, maxBytesFromEnv, type FluxOptions } from './options.js'
import { CheckReport, runCheck } from './check.js'
import type { Fault } from './faults.js'
import type { Intervention, WhatIfSpec } from './intervention.js'
import { Outcome, type TraceSnapshot } from './outcome.js'
import { fillReplayKeys } from './replay-keys.js'
import { Session } from './session.js'
import { fixtureSteps, type StepRef } from './steps.js'
import { asStored } from './stored.js'
import { WhatIf } from './what-if.js'
import { currentSession, state } from './state.js'
import { currentTest, rejectConcurrentJest, type TestContext } from './test-context.js'

/** What the agent function receives from `Scenario.run`. */
export interface Lab {
  /** The scenario's name. */
  readonly scenario: string
  /** `record` when calls go live and are captured, `replay` when they come from the fixture. */
  readonly mode: 'record' | 'replay'
  /**
   * The agent's input as the fixture recorded it (`scenario(name, { input })`), so one agent
   * function can re-drive any recorded scenario (`s.check`, `whatIfOver`).
   */
  readonly input?: unknown
  /**
   * Put in-process tools on the tape, keeping their shape: an object keyed by
   * tool name (Vercel AI SDK `tools`, plain async functions) or an array of
   * named tools (OpenAI Agents JS, LangChain.js). In replay no tool body runs.
   * @example
   * generateText({ model, tools: lab.tools({ weather: tool({ inputSchema, execute }) }) })
   */
  tools<T>(tools: T): T
  /**
   * Put one in-process tool on the tape.
   * @example
   * const read = lab.tool('read', async ({ path }) => fs.readFile(path, 'utf8'))
   */
  tool<T>(name: string, tool: T): T
}

export interface ScenarioOptions extends FluxOptions {
  /** The agent's input, stored in `scenario.yaml` for readers of the fixture. */
  input?: unknown
}

/**
 * Open a scenario: `<dir>/<name>/` (default `tests/scenarios/<name>`). Its mode
 * follows the runner's snapshot update state and `FLUX_GOLDEN` (SPEC §2).
 * @example
 * const s = await scenario('weather')
 * const out = await s.run(() => myAgent('What is the weather in Paris?'))
 * expect(out).toReplayFaithfully()
 */
export async function scenario(name?: string, options: ScenarioOptions = {}): Promise<Scenario> {
  rejectConcurrentJest(state.jestConcurrentTest?.())
  const test = currentTest()
  const opts: ScenarioOptions = { ...state.options, ...options }
  const scenarioName = name ?? defaultName(test)
  checkName(scenarioName)
  const root = test?.rootDir ?? process.cwd()
  const base = resolve(root, opts.dir ?? DEFAULT_DIR)
  const dir = join(base, ...(test?.project ? [test.project] : []), scenarioName)
  const golden = readGolden()
  const offline = readFlag('FLUX_OFFLINE')
  const updateState = test?.updateState ?? updateStateFromEnv()
  const exists = fixtureExists(dir)
  const decision = decideMode({ exists, updateState, golden })
  if (!decision) throw noRecording(scenarioName, dir, test)
  if (decision.mode === 'record' && offline)
    throw new FluxError('FLUX_OFFLINE', {
      failed: `record scenario "${scenarioName}"`,
      reason: `FLUX_OFFLINE=1 forbids live requests and there is no fixture to replay at ${rel(dir)}${golden === 'update' ? ' (FLUX_GOLDEN=update asks to re-record)' : ''}`,
      fix: 'Unset FLUX_OFFLINE to record, or commit the recorded fixture.',
    })
  const fixture = decision.mode === 'replay' ? readFixture(dir, { disable: opts.redact?.disable }) : undefined
  test?.opened.add(dir)
  return new Scenario(scenarioName, dir, decision, opts, offline, fixture, test, updateState)
}

/**
 * A recorded (or about to be recorded) agent run. Get one with `scenario()`.
 */
export class Scenario {
  private runs = 0
  private readonly redactor: Redactor

  /** @internal use `scenario()` */
  constructor(
    readonly name: string,
    readonly dir: string,
    private readonly decision: ModeDecision,
    private readonly options: ScenarioOptions,
    private readonly offline: boolean,
    readonly fixture: Fixture | undefined,
    private readonly test: TestContext | undefined,
    private readonly updateState: UpdateState,
  ) {
    this.redactor = createRedactor(options.redact)
  }

  /** `record` or `replay`. */
  get mode(): 'record' | 'replay' {
    return this.decision.mode
  }

  /**
   * Run the agent with its traffic routed to this scenario: recorded when the
   * fixture is missing, replayed from it otherwise.
   * @example
   * const out = await s.run(() => myAgent('What is the weather in Paris?'))
   */
  async run<R>(fn: (lab: Lab) => R | Promise<R>): Promise<Outcome<Awaited<R>>> {
    if (this.mode === 'record' && this.runs > 0)
      throw new FluxError('FLUX_RECORD_FAILED', {
        failed: `run scenario "${this.name}" a second time`,
        reason: 'a scenario records one run',
        fix: 'Open another scenario (`scenario("other-name")`) for a second run.',
      })
    this.runs++
    const session = this.newSession({ mode: this.mode, fixture: this.fixture })
    if (this.fixture && this.fixture.manifest.redaction !== this.redactor.marker)
      session.diverge(
        'redaction_mismatch',
        'scenario.yaml',
        `the fixture was redacted with ${this.fixture.manifest.redaction}, today's redactor is ${this.redactor.marker}; re-record with FLUX_GOLDEN=update so the fixture matches today's rules`,
      )
    const { result, failure } = await this.drive(session, fn)
    if (session.fatal) {
      session.acknowledged = true
      throw session.fatal
    }
    const failures = session.divergences.filter((d) => d.severity === 'failure')
    if (failure) {
      // @note recorded calls left unused are a consequence of the agent stopping early, not a cause:
      // only a request the tape could not serve explains the agent's error.
      const offTape = failures.filter((d) => d.code !== 'unused_interaction')
      session.acknowledged = true
      if (offTape.length === 0 || isFluxError(failure.error)) throw failure.error
      throw new FluxError(
        'FLUX_DIVERGED',
        {
          failed: `replay scenario "${this.name}"`,
          reason: `the agent threw (${String((failure.error as Error)?.message ?? failure.error).split('\n')[0]}) after ${offTape[0].step} went off tape (${offTape[0].code})`,
          fix: 'If the agent changed on purpose, re-record with `FLUX_GOLDEN=update`; otherwise the steps below say what changed.',
          details: failures.map((d) => `${d.step} ${d.code}: ${d.message}`),
        },
        { cause: failure.error },
      )
    }
    const trace = renderTrace(this.name, this.mode === 'record' ? asStored(session.orderedSteps()) : session.orderedSteps())
    const traceSnapshot = this.mode === 'record' ? this.save(session, trace) : this.compareTrace(trace, failures.length === 0)
    return new Outcome(
      this.name,
      this.mode,
      result as Awaited<R>,
      session.orderedSteps(),
      session.divergences,
      session.modelLive,
      () => {
        session.acknowledged = true
      },
      traceSnapshot,
      this.options.pricing,
    )
  }

  /**
   * Start a what-if over this scenario's recording: one changed variable, the
   * rest of the world frozen (SPEC §7). `spec` starts from a captured one.
   * @example
   * const cf = await s.whatIf().substitute('http.request', { status: 503 }).run(agent)
   * expect(cf).toBeHermetic()
   */
  whatIf(spec: WhatIfSpec = {}): WhatIf {
    return new WhatIf(this, spec)
  }

  /**
   * A fault at a step numbered as in `trace.snap` (`3`, `'model#2'`, `'tool#1'`):
   * a tool error or output, or a model-channel fault (HTTP status, reset, timeout,
   * stream cut). Everything before it is served from tape unchanged.
   * @example
   * const cf = await s.injectAt(3, { error: 'disk full' }).run(agent)
   * expect(cf).toBeCompensatedWith('notify.send')
   */
  injectAt(step: StepRef, fault: Fault): WhatIf {
    return new WhatIf(this, {}).injectAt(step, fault)
  }

  /**
   * Re-drive today's agent against the recording (SPEC §2): model requests that
   * match are served from tape, a miss goes live through the configured provider
   * (counted in `modelLive`); the tool channel stays pinned to the tape and an
   * off-tape tool call halts. Under `FLUX_GOLDEN=update` it re-records the fixture.
   * @example
   * const report = await s.check((lab) => agent(lab.input))
   * expect(report.isClean()).toBe(true)
   */
  async check<R>(fn: (lab: Lab) => R | Promise<R>): Promise<CheckReport<Awaited<R>>> {
    return runCheck(this, fn)
  }

  /** @internal a Session over this scenario's options (a run, a what-if, a check). */
  newSession(init: { mode: 'record' | 'replay'; fixture?: Fixture; intervention?: Intervention; name?: string }): Session {
    return new Session({
      name: init.name ?? this.name,
      dir: this.dir,
      mode: init.mode,
      fixture: init.fixture,
      redactor: this.redactor,
      ignore: this.options.ignore ?? [],
      hosts: this.options.hosts ?? {},
      maxBytes: this.options.maxBytes ?? maxBytesFromEnv(),
      timing: this.options.timing,
      offline: this.offline,
      live: liveFetch,
      intervention: init.intervention,
    })
  }

  /**
   * @internal run `fn` with its traffic routed to `session`: interception on, replay keys
   * filled, `lab` handed over; waits for recordings and closes the replay. Never throws the agent's error.
   */
  async drive<R>(session: Session, fn: (lab: Lab) => R | Promise<R>, input?: unknown): Promise<{ result?: Awaited<R>; failure?: { error: unknown } }> {
    this.test?.sessions.push(session)
    const release = acquireInterception(route)
    const releaseKeys = session.mode === 'replay' ? fillReplayKeys() : () => {}
    const invoke: ToolInvoker = (call, run) => session.callTool(call, run)
    const lab: Lab = {
      scenario: this.name,
      mode: session.mode,
      input: input ?? this.fixture?.manifest.input ?? this.options.input,
      tools: (tools) => wrapTools(tools, invoke),
      tool: (name, tool) => wrapTool(name, tool, invoke),
    }
    let result: Awaited<R> | undefined
    let failure: { error: unknown } | undefined
    try {
      result = await state.sessions.run(session, async () => await fn(lab))
    } catch (error) {
      failure = { error }
    } finally {
      releaseKeys()
      release()
    }
    await session.settled()
    session.closeReplay()
    return { result, failure }
  }

  /**
   * @internal what a what-if or a check needs from this scenario: its options and mode
   * switches, and the recorded parent (read from disk when this scenario is recording).
   */
  internals(): { options: ScenarioOptions; offline: boolean; updateState: UpdateState; test?: TestContext; redaction: string; parent: () => Fixture | undefined } {
    return {
      options: this.options,
      offline: this.offline,
      updateState: this.updateState,
      test: this.test,
      redaction: this.redactor.marker,
      parent: () => this.fixture ?? (fixtureExists(this.dir) ? readFixture(this.dir, { disable: this.options.redact?.disable }) : undefined),
    }
  }

  /**
   * Crash-cut test at one boundary: run the agent (a module: a function cannot cross into a child process)
   * durably in a child process against this recording, SIGKILL it at `step`, resume it, and report what ran how often.
   * @example
   * const row = await s.crashAt('tool#1', { when: 'before-append', agent: './agent.mjs' })
   */
  crashAt(step: string, opts: { when: CrashWhen; agent: AgentModule }): Promise<CrashRow> {
    return crashAt(this.requireFixture('crash-test'), step, opts.when, opts.agent)
  }

  /**
   * `crashAt` at every step boundary of the recording, before and after each append.
   * @example
   * expect(await s.crashMatrix('./agent.mjs')).toResumeWithoutReexecution()
   */
  crashMatrix(agent: AgentModule): Promise<CrashReport> {
    return crashMatrix(this.requireFixture('crash-test'), this.name, agent)
  }

  private requireFixture(verb: string): Fixture {
    if (this.fixture) return this.fixture
    throw new FluxError('FLUX_NO_RECORDING', {
      failed: `${verb} scenario "${this.name}"`,
      reason: `there is no fixture at ${rel(this.dir)} yet`,
      fix: 'Record it first with `await s.run(agent)`, then run the crash test.',
    })
  }

  /**
   * Grade `text` against `criterion` from this scenario's judge.jsonl: PASS or FAIL, no throw on FAIL.
   * Not on tape: FLUX_JUDGE_MISS. FLUX_GOLDEN=judge (or a recording run) grades live and records.
   * @example
   * const v = await s.judge('the answer cites the refund policy', out.text, Rubric.model('openai/gpt-4.1-mini'))
   */
  judge(criterion: string, text: string, rubric: Rubric): Promise<Verdict> {
    return judgeOnTape({ dir: this.dir, scenario: this.name, mode: this.mode, redact: this.options.redact, criterion, text, rubric })
  }

  /**
   * The throwing form of `judge`: FLUX_JUDGE_FAILED with the criterion, rationale and judged text on FAIL.
   * @example
   * await s.assertJudge('the answer cites the refund policy', out.text, Rubric.model('anthropic/claude-haiku-4-5'))
   */
  assertJudge(criterion: string, text: string, rubric: Rubric): Promise<Verdict> {
    return assertJudgeOnTape({ dir: this.dir, scenario: this.name, mode: this.mode, redact: this.options.redact, criterion, text, rubric })
  }

  /**
   * The recorded run as an Outcome, from the fixture alone: no code runs, no
   * model is called, no tool body fires. For asserting on the committed artifact.
   * @example
   * expect(await s.replay()).toNeverCall('write')
   */
  async replay(): Promise<Outcome<undefined>> {
    if (!this.fixture)
      throw new FluxError('FLUX_NO_RECORDING', {
        failed: `replay scenario "${this.name}" from its fixture`,
        reason: `there is no fixture at ${rel(this.dir)} yet`,
        fix: 'Record it first with `await s.run(agent)` (or FLUX_GOLDEN=update), then call s.replay().',
      })
    const steps = fixtureSteps(this.fixture)
    const trace = renderTrace(this.name, steps)
    const expected = this.fixture.trace
    const traceSnapshot: TraceSnapshot = {
      file: join(this.dir, FILES.trace),
      status: expected === trace ? 'matched' : 'mismatch',
      expected,
      updateState: this.updateState,
    }
    return new Outcome(this.name, 'replay', undefined, steps, [], 0, () => {}, traceSnapshot, this.options.pricing)
  }

  /** Compare a replayed run's trace with trace.snap; write it under -u / FLUX_GOLDEN=snapshots, or when it is missing outside CI. */
  private compareTrace(trace: string, faithful: boolean): TraceSnapshot {
    const file = join(this.dir, FILES.trace)
    const expected = this.fixture?.trace
    const base = { file, expected, updateState: this.updateState }
    if (expected === trace) return { ...base, status: 'matched' }
    const mayWrite = faithful && (this.decision.rewriteTrace || (expected === undefined && this.updateState !== 'none'))
    if (!mayWrite) return { ...base, status: 'mismatch' }
    writeTrace(this.dir, trace, { disable: this.options.redact?.disable })
    return { ...base, status: expected === undefined ? 'added' : 'updated' }
  }

  private save(session: Session, trace: string): TraceSnapshot {
    if (fixtureExists(this.dir) && readGolden() !== 'update')
      throw new FluxError('FLUX_FIXTURE_EXISTS', {
        failed: `record scenario "${this.name}"`,
        reason: `a fixture appeared at ${rel(this.dir)} while this run was recording (two tests use the same scenario name?)`,
        fix: 'Give each test its own scenario name, or re-baseline on purpose with FLUX_GOLDEN=update.',
      })
    const { model, tools } = session.recordedCells()
    const manifest: Manifest = {
      formatVersion: FORMAT_VERSION,
      fluxlabVersion: VERSION,
      name: this.name,
      ...(this.test
        ? { source: { file: relative(this.test.rootDir, this.test.testFile), name: this.test.testName, ...(this.test.project ? { project: this.test.project } : {}) } }
        : {}),
      recordedAt: new Date().toISOString(),
      ...(this.options.input !== undefined ? { input: this.redactor.json(this.options.input) } : {}),
      models: [...new Set(model.map((c) => c.model).filter((m): m is string => !!m))].sort(),
      providerHosts: [...new Set(model.map((c) => new URL(c.url).host))].sort(),
      cassetteMaxBytes: this.options.maxBytes ?? maxBytesFromEnv(),
      redaction: this.redactor.marker,
    }
    writeFixture({ dir: this.dir, manifest, model, tools, trace }, { disable: this.options.redact?.disable })
    return { file: join(this.dir, FILES.trace), status: 'added', updateState: this.updateState }
  }
}

async function route(request: Request): Promise<Response | undefined> {
  const session = currentSession()
  if (!session) return undefined
  return session.handle(request)
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

function defaultName(test: TestContext | undefined): string {
  if (!test)
    throw new FluxError('FLUX_BAD_CONFIG', {
      failed: 'open a scenario without a name',
      reason: 'there is no running test to name it after',
      fix: 'Pass a name: `scenario("weather")`, or call it inside a vitest/jest test with the fluxlab setup installed.',
    })
  const file = relative(test.rootDir, test.testFile).replace(/\.[cm]?[jt]sx?$/, '')
  const hash = createHash('sha256').update(`${file}\0${test.testName}`).digest('hex').slice(0, 6)
  return `${slug(file)}--${slug(test.testName)}-${hash}`.slice(0, 120)
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')

const rel = (p: string) => relative(process.cwd(), p) || p

function noRecording(name: string, dir: string, test: TestContext | undefined): FluxError {
  const file = test ? relative(test.rootDir, test.testFile) : '<test file>'
  const runner = test?.runner === 'jest' ? `npx jest ${file}` : `npx vitest run ${file}`
  return new FluxError('FLUX_NO_RECORDING', {
    failed: `open scenario "${name}"`,
    reason: `there is no fixture at ${rel(dir)} and recording is off here (snapshot update state "none": CI or --ci)`,
    fix: `Record it where provider keys are available with \`${runner}\` and commit ${rel(dir)}/, or record here on purpose with \`FLUX_GOLDEN=update ${runner}\`.`,
  })
}

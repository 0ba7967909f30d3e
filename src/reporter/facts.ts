/**
 * What a test worker tells the run summary about one test: the scenarios it opened and ran.
 * vitest carries it on `task.meta.fluxlab` (serialized to the main process with the test result);
 * jest workers append it as one JSON line to the file named by `FLUX_FACTS_FILE`, which the jest
 * reporter creates and reads back when the run completes.
 */
import { resolve } from 'node:path'
import { AppendFile } from '../store/atomic.js'
import { costOf, priceFor, type PricingTable } from '../pricing/index.js'
import { DEFAULT_DIR } from '../context/options.js'
import type { TestContext, TrackedRun } from '../context/test-context.js'

/** The attachment of a Playwright test's result that carries its facts (src/playwright.ts adds it). */
export const FACTS_ATTACHMENT = 'fluxlab-facts'

/** The test name of the app server's own scenario in a Playwright run's facts (`fluxlab serve`). */
export const APP_SERVER = 'the app server'

/** Env var naming the jest facts file (set by the jest reporter in the main process, inherited by workers). */
export const FACTS_ENV = 'FLUX_FACTS_FILE'

interface DivergenceFact {
  code: string
  step: string
  message: string
}

export interface SessionFacts {
  name: string
  dir: string
  mode: 'record' | 'replay'
  /** A run that could neither record nor replay (no fixture under CI or FLUX_OFFLINE): it refused what it took. */
  refused?: true
  /** A recording run wrote its fixture. */
  written?: boolean
  modelCalls: number
  toolCalls: number
  modelLive: number
  /** Model calls the app's own msw or nock listeners never saw (fluxlab answers a model call before them). */
  pastMocks?: number
  hermetic: boolean
  failures: DivergenceFact[]
  /** A matcher (or a thrown error) already showed the failures to the test: an asserted divergence is not a failed scenario. */
  acknowledged?: boolean
  warnings: DivergenceFact[]
  /** USD of the recorded usage of its priced model calls. */
  cost: number
  /** Model ids with usage and no price. */
  unpriced: string[]
  /** Reads answered from another fixture of the test's file (a download the app cached across tests). */
  shared?: Array<{ step: string; from: string }>
}

/** What a test file's setup saw while the file was collected (the runner setups report it once per file). */
export interface FileFacts {
  /** Absolute path of the test file. */
  file: string
  /** Credential-like variables the file's code read while it was collected and found unset: what may have closed a skip gate. */
  unsetKeys: string[]
  /** The fixture root its fixtures are under (the summary looks there even when no test of the file opened a scenario). */
  base: string
  /** Its file scenario, where it had one (vitest carries it on the file's meta; jest as a facts line with `fileLevel`). */
  outside?: TestFacts
}

export interface TestFacts {
  runner: string
  file: string
  test: string
  /** Which test of its file with this name it is (from 2; SPEC §2 "Identity"), absent for a name of its own or the first. */
  nth?: number
  project?: string
  rootDir: string
  /** Fixture root of this test's scenarios (`options.dir`, resolved). */
  base: string
  /** Scenario directories the test opened. */
  opened: string[]
  sessions: SessionFacts[]
  /** Not a test: the file scenario (the calls its file made outside every test, whole-suite mode). */
  fileLevel?: true
  /** Live model calls of the test's earlier attempts (`retry`): their runs are not counted, their calls went out. */
  retriedLive?: number
}

/**
 * The facts of a test's last attempt, carrying the live model calls of the attempts before it (a `retry` runs the
 * test again; the summary counts the last attempt's runs, and every attempt's live calls).
 * @example
 * task.meta.fluxlab = afterRetry(task.meta.fluxlab, collectFacts(ctx))
 */
export function afterRetry(earlier: TestFacts | undefined, last: TestFacts): TestFacts {
  if (!earlier) return last
  const live = (earlier.retriedLive ?? 0) + earlier.sessions.reduce((n, s) => n + s.modelLive, 0)
  return live ? { ...last, retriedLive: live } : last
}

/**
 * The facts of one finished test.
 * @example
 * task.meta.fluxlab = collectFacts(ctx, { dir: state.options.dir, pricing: state.options.pricing })
 */
export function collectFacts(ctx: TestContext, opts: { dir?: string; pricing?: PricingTable } = {}): TestFacts {
  return {
    runner: ctx.runner,
    file: ctx.testFile,
    test: ctx.testName,
    ...(ctx.nth && ctx.nth > 1 ? { nth: ctx.nth } : {}),
    ...(ctx.project ? { project: ctx.project } : {}),
    rootDir: ctx.rootDir,
    base: resolve(ctx.rootDir, opts.dir ?? DEFAULT_DIR),
    opened: [...ctx.opened],
    sessions: ctx.runs.map((s) => sessionFacts(s, opts.pricing)),
    ...(ctx.fileLevel ? { fileLevel: true as const } : {}),
  }
}

function sessionFacts(s: TrackedRun, pricing?: PricingTable): SessionFacts {
  const fact = (d: { code: string; step: string; message: string }) => ({ code: d.code, step: d.step, message: d.message })
  const failures = s.log.divergences.filter((d) => d.severity === 'failure').map(fact)
  let cost = 0
  const unpriced = new Set<string>()
  let modelCalls = 0
  let toolCalls = 0
  for (const step of s.log.entries) {
    if (step.channel === 'tool') {
      toolCalls++
      continue
    }
    modelCalls++
    const { usage, model } = step.cell
    if (usage.input + usage.output + usage.cacheRead + usage.cacheWrite === 0) continue
    const price = model ? priceFor(model, pricing) : pricing?.['*']
    if (price) cost += costOf(usage, price)
    else unpriced.add(model ?? '(no model id)')
  }
  return {
    name: s.config.name,
    dir: s.config.dir,
    mode: s.config.mode,
    ...(s.config.refusal ? { refused: true as const } : {}),
    ...(s.written ? { written: true } : {}),
    modelCalls,
    toolCalls,
    modelLive: s.log.modelLive,
    ...(s.log.pastMocks ? { pastMocks: s.log.pastMocks } : {}),
    hermetic: s.config.mode === 'replay' && !s.config.refusal && s.log.modelLive === 0 && failures.length === 0 && !s.log.fatal,
    failures: s.log.fatal ? [{ code: 'fatal', step: s.config.name, message: s.log.fatal.message.split('\n')[0] }, ...failures] : failures,
    acknowledged: s.acknowledged,
    warnings: s.log.divergences.filter((d) => d.severity === 'warning').map(fact),
    cost,
    unpriced: [...unpriced],
    ...(s.log.shared?.length ? { shared: s.log.shared.map((r) => ({ step: r.step, from: r.from })) } : {}),
  }
}

/**
 * jest workers: append one test's facts (or a test file's, `{ kind: 'file', … }`) to the run's facts file, when the
 * fluxlab reporter asked for them.
 * @example
 * appendFacts(collectFacts(ctx))
 */
export function appendFacts(facts: TestFacts | ({ kind: 'file' } & FileFacts), env: NodeJS.ProcessEnv = process.env): void {
  const file = env[FACTS_ENV]
  if (!file) return
  // @note one append of one line is a single write(2): lines from parallel workers do not interleave.
  const out = new AppendFile(file)
  try {
    out.append(`${JSON.stringify(facts)}\n`)
  } finally {
    out.close()
  }
}

/**
 * `fluxlab report`: the whole suite, one entry per fixture (its steps, models, tools, tokens, cost) joined with what the
 * last run did with it (mode, result, drift, divergences: the file the reporters write, src/reporter/last-run.ts). A
 * scenario the last run ran with no fixture (refused under CI, a recording that wrote nothing) is an entry too.
 */
import { existsSync, readFileSync } from 'node:fs'
import { relative, resolve, sep } from 'node:path'
import { readFixture } from '../../cassette/fixture.js'
import { globToRegExp } from '../../context/glob.js'
import { isFluxError } from '../../errors.js'
import type { PricingTable } from '../../pricing/index.js'
import { lastRunFile, type LastRun, type LastRunScenario } from '../../reporter/last-run.js'
import { redactMessage } from '../../secrets/redact.js'
import { display, forkParent } from '../fixtures.js'
import { runView, type RunView } from '../steps.js'

export interface SuiteEntry {
  /** The scenario's name relative to the fixture root (`triage`, `billing/refund`, `triage/forks/inject-3`). */
  name: string
  dir: string
  forkOf?: string
  recordedAt?: string
  steps: number
  modelCalls: number
  toolCalls: number
  models: string[]
  tools: string[]
  tokens: { input: number; output: number }
  cost: number
  unpriced: string[]
  /** The fixture could not be read (the reason, redacted): the last run's facts are all there is. */
  unreadable?: string
  /** What the last run did with it; absent when it did not run it. */
  last?: Omit<LastRunScenario, 'dir' | 'name'>
  /** Not in JSON: the trace, for the HTML report. */
  view?: RunView
}

export interface Suite {
  root: string
  lastRun?: { file: string; runner: string; finishedAt: string }
  entries: SuiteEntry[]
}

/**
 * The last run's file, when there is one and it is one this version reads.
 * @example
 * readLastRun('node_modules/.cache/fluxlab/last-run.json')?.scenarios.length
 */
function readLastRun(file: string | undefined): LastRun | undefined {
  if (!file || !existsSync(file)) return undefined
  try {
    const doc = JSON.parse(readFileSync(file, 'utf8')) as LastRun
    return doc?.schema === 'fluxlab.last-run/v1' && Array.isArray(doc.scenarios) ? doc : undefined
  } catch {
    return undefined
  }
}

/**
 * The suite under `root`: the fixtures in `dirs` (already selected) and the last run's scenarios matching `patterns`.
 * @example
 * buildSuite(root, selectFixtures([], root, 'report'), [], { lastRun: undefined })
 */
export function buildSuite(
  root: string,
  dirs: readonly string[],
  patterns: readonly string[],
  opts: { lastRun?: string; pricing?: PricingTable; disable?: string[] },
): Suite {
  const file = opts.lastRun ? resolve(opts.lastRun) : lastRunFile(process.cwd())
  const last = readLastRun(file)
  const ran = new Map((last?.scenarios ?? []).map((s) => [resolve(s.dir), s]))
  const nameOf = (dir: string) => {
    const rel = relative(root, dir).split(sep).join('/')
    return rel && !rel.startsWith('..') ? rel : display(dir)
  }
  const entries: SuiteEntry[] = dirs.map((dir) => {
    const entry = fixtureEntry(dir, nameOf(dir), opts)
    const run = ran.get(resolve(dir))
    ran.delete(resolve(dir))
    return run ? { ...entry, last: lastOf(run) } : entry
  })
  // scenarios the last run ran that have no fixture now, when the selection names them
  const wanted = patterns.map((p) => globToRegExp(p))
  for (const [dir, run] of ran) {
    const name = nameOf(dir)
    const under = !relative(root, dir).startsWith('..')
    if (existsSync(dir) || !under || (wanted.length > 0 && !wanted.some((re) => re.test(name)))) continue
    entries.push({ ...empty(name, display(dir)), last: lastOf(run) })
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return { root: display(root), ...(last && file ? { lastRun: { file: display(file), runner: last.runner, finishedAt: last.finishedAt } } : {}), entries }
}

const lastOf = ({ dir: _d, name: _n, ...rest }: LastRunScenario): SuiteEntry['last'] => rest

function empty(name: string, dir: string): SuiteEntry {
  return { name, dir, steps: 0, modelCalls: 0, toolCalls: 0, models: [], tools: [], tokens: { input: 0, output: 0 }, cost: 0, unpriced: [] }
}

function fixtureEntry(dir: string, name: string, opts: { pricing?: PricingTable; disable?: string[] }): SuiteEntry {
  const parent = forkParent(dir)
  const base = { ...empty(name, display(dir)), ...(parent ? { forkOf: display(parent) } : {}) }
  try {
    const fx = readFixture(dir, { disable: opts.disable, rerun: false })
    const view = runView(fx, opts.pricing)
    const models = view.steps.filter((s) => s.channel === 'model')
    return {
      ...base,
      recordedAt: fx.manifest.recordedAt,
      steps: view.steps.length,
      modelCalls: models.length,
      toolCalls: view.steps.length - models.length,
      models: [...new Set(models.map((s) => s.model ?? '?'))].sort(),
      tools: [...new Set(view.steps.filter((s) => s.channel === 'tool').map((s) => s.title))].sort(),
      tokens: { input: view.usage.input, output: view.usage.output },
      cost: view.cost,
      unpriced: view.unpriced,
      view,
    }
  } catch (e) {
    if (!isFluxError(e)) throw e
    return { ...base, unreadable: redactMessage(e.message.split('\n')[0]) }
  }
}

/**
 * The run summary both reporters print: scenarios replayed / recorded / failed, hermetic count,
 * live model calls, recorded cost, drift warnings, and fixture directories no test opened.
 */
import { relative, resolve, sep } from 'node:path'
import type pc from 'picocolors'
import { readSource } from '../cassette/fixture.js'
import { findFixtures, forkParent } from '../cassette/find.js'
import type { TestFacts } from './facts.js'

export type TestState = 'passed' | 'failed' | 'skipped' | 'pending'

/** One test the runner ran (or skipped), as the reporter sees it. */
export interface RanTest {
  /** Absolute path of the test file. */
  file: string
  /** Full name (`describe > test` in vitest, space-joined in jest): what scenario.yaml's `source.name` holds. */
  name: string
  project?: string
  state: TestState
  facts?: TestFacts
}

export interface SuiteSummary {
  scenarios: number
  replayed: number
  recorded: number
  /** Of `recorded`: runs that recorded no call at all (a whole-suite test with no model call writes no fixture). */
  empty: number
  failed: number
  hermetic: number
  liveModelCalls: number
  cost: number
  unpriced: string[]
  drift: Array<{ scenario: string; step: string; code: string; message: string }>
  /** Fixture directories (absolute) that no test of this run opened although their source test file ran. */
  obsolete: string[]
  /** Tests the runner skipped. */
  skipped: number
  /** Skipped tests that have a fixture (their recording ran them): a skip-gate that behaves differently on replay. */
  skippedWithFixture: Array<{ test: string; dir: string }>
}

export interface SummaryInput {
  tests: RanTest[]
  /** Test files (absolute) that were collected without a file-level error: only their fixtures can be obsolete. */
  files: string[]
  /** The directory `scenario.yaml`'s `source.file` is relative to (vitest root, jest's working directory). */
  rootDir: string
  /** Fixture roots to look for unopened fixtures in, besides those the tests report. */
  bases: string[]
  /** False when the run was interrupted or filtered by name, so unopened fixtures say nothing. */
  checkObsolete: boolean
}

/**
 * Fold the tests' facts into one summary.
 * @example
 * summarize({ tests, files, rootDir: vitest.config.root, bases: [], checkObsolete: true }).replayed
 */
export function summarize(input: SummaryInput): SuiteSummary {
  const s: SuiteSummary = { scenarios: 0, replayed: 0, recorded: 0, empty: 0, failed: 0, hermetic: 0, liveModelCalls: 0, cost: 0, unpriced: [], drift: [], obsolete: [], skipped: 0, skippedWithFixture: [] }
  const unpriced = new Set<string>()
  const opened = new Set<string>()
  const bases = new Set(input.bases.map((b) => resolve(input.rootDir, b)))
  for (const t of input.tests) {
    if (notRun(t)) s.skipped++
    if (!t.facts) continue
    bases.add(t.facts.base)
    for (const d of t.facts.opened) opened.add(resolve(d))
    for (const run of t.facts.sessions) {
      s.scenarios++
      if (run.mode === 'replay') s.replayed++
      else s.recorded++
      if (run.mode === 'record' && run.modelCalls === 0 && run.toolCalls === 0) s.empty++
      // @note a divergence the test asserted on (`expect(cf).not.toBeHermetic()`, a denial it expects) is not a failure.
      if (t.state === 'failed' || (run.failures.length > 0 && !run.acknowledged)) s.failed++
      if (run.hermetic) s.hermetic++
      s.liveModelCalls += run.modelLive
      s.cost += run.cost
      for (const m of run.unpriced) unpriced.add(m)
      for (const w of run.warnings) if (w.code === 'model_request_drift') s.drift.push({ scenario: run.name, step: w.step, code: w.code, message: w.message })
    }
  }
  s.unpriced = [...unpriced].sort()
  const unopened = unopenedFixtures([...bases], opened, input)
  if (input.checkObsolete) s.obsolete = unopened.obsolete
  s.skippedWithFixture = unopened.skipped
  return s
}

/** Fixtures no test opened: obsolete ones (their test passed without them), and those of tests that were skipped. */
function unopenedFixtures(bases: string[], opened: Set<string>, input: SummaryInput): { obsolete: string[]; skipped: Array<{ test: string; dir: string }> } {
  const files = new Set(input.files.map((f) => resolve(f)))
  const byTest = new Map<string, RanTest>()
  for (const t of input.tests) byTest.set(testKey(resolve(t.file), t.name, t.project), t)
  const out = new Set<string>()
  const skipped: Array<{ test: string; dir: string }> = []
  for (const base of bases)
    for (const dir of findFixtures(base)) {
      // @note forks belong to their parent: they go (or stay) with it.
      if (opened.has(dir) || forkParent(dir)) continue
      const source = readSource(dir)
      if (!source) continue
      const file = resolve(input.rootDir, source.file)
      if (!files.has(file)) continue
      const test = byTest.get(testKey(file, source.name, source.project))
      if (test && notRun(test)) skipped.push({ test: `${source.file} > ${source.name}`, dir })
      // A test that was skipped, or failed before opening its scenario, says nothing about the fixture.
      if (test && test.state !== 'passed') continue
      out.add(dir)
    }
  return { obsolete: [...out].sort(), skipped: skipped.sort((a, b) => (a.dir < b.dir ? -1 : 1)) }
}

/** Skipped (vitest `skip`, jest's `pending`), or never run (`todo`). */
const notRun = (t: RanTest) => t.state === 'skipped' || t.state === 'pending'

const testKey = (file: string, name: string, project?: string) => `${file}\0${name}\0${project ?? ''}`

/**
 * The summary as printed at the end of a run.
 * @example
 * logger.log(formatSummary(summary, pc.createColors(false)))
 */
export function formatSummary(s: SuiteSummary, c: ReturnType<typeof pc.createColors>, opts: { cwd?: string; ci?: boolean } = {}): string {
  const cwd = opts.cwd ?? process.cwd()
  const rel = (p: string) => {
    const r = relative(cwd, p)
    return (r.startsWith('..') ? p : r).split(sep).join('/')
  }
  const tag = c.inverse(c.bold(' fluxlab '))
  const pad = '          '
  if (s.scenarios === 0 && s.obsolete.length === 0 && s.skippedWithFixture.length === 0) return `${tag} no scenarios ran`
  const head = [
    `${s.scenarios} scenario${s.scenarios === 1 ? '' : 's'}: ${s.replayed} replayed, ${s.recorded} recorded${s.empty ? ` (${s.empty} with no call to record)` : ''}, ${s.failed ? c.red(`${s.failed} failed`) : '0 failed'}`,
    `hermetic ${s.hermetic}/${s.replayed}`,
    `live model calls ${s.liveModelCalls ? (opts.ci ? c.red(String(s.liveModelCalls)) : c.yellow(String(s.liveModelCalls))) : '0'}`,
    `recorded cost ${usd(s.cost)}${s.unpriced.length ? c.yellow(` + no price for ${s.unpriced.join(', ')}`) : ''}`,
    `drift warnings ${s.drift.length ? c.yellow(String(s.drift.length)) : '0'}`,
    ...(s.skipped ? [`tests skipped ${s.skippedWithFixture.length ? c.yellow(String(s.skipped)) : s.skipped}`] : []),
  ]
  const lines = [`${tag} ${head.join(' · ')}`]
  lines.push(...driftLines(s.drift, c, pad))
  if (s.skippedWithFixture.length) {
    const n = s.skippedWithFixture.length
    lines.push(`${pad}${c.yellow(`⚠ ${n} skipped test${n > 1 ? 's have' : ' has'} a fixture`)}: ${n > 1 ? 'they' : 'it'} ran while recording, so a skip gate (a missing key?) tests nothing here; whole-suite mode (scenarios: 'per-test') fills provider keys for replay, and the variables you list in \`keys\`:`)
    for (const t of s.skippedWithFixture.slice(0, 10)) lines.push(`${pad}  ${t.test}`)
    if (n > 10) lines.push(`${pad}  … ${n - 10} more`)
  }
  if (s.obsolete.length) {
    lines.push(`${pad}${c.yellow(`${s.obsolete.length} fixture${s.obsolete.length > 1 ? 's' : ''} no test opened`)} (obsolete, like an obsolete snapshot):`)
    for (const d of s.obsolete.slice(0, 10)) lines.push(`${pad}  ${rel(d)}`)
    if (s.obsolete.length > 10) lines.push(`${pad}  … ${s.obsolete.length - 10} more`)
    lines.push(`${pad}remove ${s.obsolete.length > 1 ? 'them' : 'it'} with: rm -r ${s.obsolete.map((d) => quote(rel(d))).join(' ')}`)
  }
  return lines.join('\n')
}

const SERVED = 'request differs from the recording, served by position: '

/**
 * The drift warnings, each said once: warnings of one code at one place (a prompt field that
 * holds today's date drifts in every test) fold into one line with their count, and each line
 * shows what changed, not the words every drift message shares.
 */
function driftLines(drift: SuiteSummary['drift'], c: ReturnType<typeof pc.createColors>, pad: string): string[] {
  const groups = new Map<string, SuiteSummary['drift']>()
  for (const d of drift) {
    const what = d.message.startsWith(SERVED) ? d.message.slice(SERVED.length) : d.message
    const where = /^(\S+) (?:differs|added|removed)/.exec(what)?.[1] ?? what
    const key = `${d.code}\0${where}`
    const group = groups.get(key) ?? []
    if (group.length === 0) groups.set(key, group)
    group.push({ ...d, message: what })
  }
  const lines: string[] = []
  const shown = [...groups.values()].slice(0, 5)
  for (const g of shown) {
    if (g.length <= 2) {
      for (const d of g) lines.push(`${pad}${c.yellow('⚠')} ${d.scenario} ${d.step} ${d.code}: ${clip(d.message, 200)}`)
      continue
    }
    const scenarios = new Set(g.map((d) => d.scenario)).size
    const first = g[0]
    lines.push(`${pad}${c.yellow('⚠')} ${g.length}× ${first.code} in ${scenarios} scenario${scenarios === 1 ? '' : 's'}, first ${first.scenario} ${first.step}: ${clip(first.message, 200)}`)
  }
  const rest = [...groups.values()].slice(5).reduce((n, g) => n + g.length, 0)
  if (rest > 0) lines.push(`${pad}  … ${rest} more`)
  if (drift.some((d) => d.code === 'model_request_drift')) {
    lines.push(`${pad}  a prompt part that changes every run (a date, a temp path, an id) drifts on every replay: give it a placeholder with \`redact.replace\`, or leave its field out of the key with \`ignore\` (docs/configuration.md)`)
  }
  return lines
}

const quote = (p: string) => (/^[\w./@+-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`)
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s)

function usd(v: number): string {
  if (v === 0) return '$0'
  if (v >= 0.01) return `$${v.toFixed(4)}`
  return `$${v.toPrecision(3)}`
}

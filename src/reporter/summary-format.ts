/**
 * The run summary as printed at the end of a run (summary.ts gathers it): the summary line, then the lines for what
 * did not replay cleanly, was skipped with a fixture, drifted, or was made by an app server outside every test.
 */
import { relative, sep } from 'node:path'
import type pc from 'picocolors'
import { unpricedClause, usd } from './cost-text.js'
import { namesakeLines, sharedLines } from './namesakes.js'
import { driftLines } from './warning-lines.js'
import { fileFailuresPart } from './file-failures.js'
import type { SuiteSummary } from './summary.js'

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
  const codes = Object.entries(s.fluxFailures).sort(([a, n], [b, m]) => m - n || (a < b ? -1 : 1))
  const quiet = s.obsolete.length === 0 && s.skippedWithFixture.length === 0 && s.fileFailures.length === 0 && s.unloaded.length === 0
  const { passed, failed, skipped, flaky = 0 } = s.tests
  // @note a run of tests that opened no scenario still gives the runner's counts: they are what a reader checks the line by.
  if (s.scenarios === 0 && s.empty === 0 && codes.length === 0 && quiet && passed + failed + skipped + flaky === 0) return `${tag} no scenarios ran`
  const fluxOwn = codes.length ? ` (${codes.map(([code, n]) => `${n} ${code}`).join(', ')})` : ''
  const head = [
    `${s.scenarios} scenario${s.scenarios === 1 ? '' : 's'}: ${s.replayed} replayed, ${s.recorded} ` +
      `recorded${s.empty ? ` (${s.empty} test${s.empty === 1 ? '' : 's'} with no model call: nothing to record)` : ''}`,
    `tests ${passed} passed, ${flaky ? `${c.yellow(`${flaky} flaky`)}, ` : ''}${failed ? c.red(`${failed} failed${fluxOwn}`) : '0 failed'}, ` +
      `${s.skippedWithFixture.length ? c.yellow(`${skipped} skipped`) : `${skipped} skipped`}`,
    ...(s.fileFailures.length ? [c.red(fileFailuresPart(s.fileFailures))] : []),
    ...(s.unloaded.length ? [c.red(`test files that did not run ${s.unloaded.length}`)] : []),
    `hermetic ${s.hermetic}/${s.replayed}`,
    `live model calls ${s.liveModelCalls ? (opts.ci ? c.red(String(s.liveModelCalls)) : c.yellow(String(s.liveModelCalls))) : '0'}`,
    `recorded cost ${usd(s.cost)}${s.unpriced.length ? c.yellow(` + ${unpricedClause(s.unpriced)}`) : ''}`,
    `drift warnings ${s.drift.length ? c.yellow(String(s.drift.length)) : '0'}`,
    ...(s.unwrapped.length ? [c.yellow(`unwrapped tools run ${s.unwrapped.length}`)] : []),
    ...(s.unseen.length ? [c.yellow(`unseen child processes ${s.unseen.length}`)] : []),
    ...(s.unanswered.length ? [c.yellow(`calls never answered ${s.unanswered.length}`)] : []),
    ...(s.shared.length ? [`shared reads ${s.shared.length}`] : []),
  ]
  const lines = [`${tag} ${head.join(' · ')}`]
  // an unwrapped tool's line ends with its fix: shown whole
  lines.push(...driftLines(s.drift, c, pad), ...driftLines(s.unwrapped, c, pad, 900), ...unseenLines(s.unseen, c, pad), ...driftLines(s.unanswered, c, pad))
  lines.push(...notWrittenLines(s.notWritten, c, pad))
  if (s.pastMocks) lines.push(pastMocksLine(s.pastMocks, c, pad))
  for (const a of s.appServer) lines.push(appServerLine(a, c, pad))
  for (const f of s.fileFailures) lines.push(`${pad}${c.red('✗')} ${rel(f.file)}, outside its tests: ${f.message}`)
  lines.push(...unloadedLines(s.unloaded, rel, c, pad))
  if (s.skippedWithFixture.length) lines.push(...skippedLines(s.skippedWithFixture, c, pad))
  lines.push(...namesakeLines(s.duplicates, rel, pad), ...sharedLines(s.shared, pad))
  if (s.obsolete.length) {
    lines.push(`${pad}${c.yellow(`${s.obsolete.length} fixture${s.obsolete.length > 1 ? 's' : ''} no test opened`)} (obsolete, like an obsolete snapshot):`)
    for (const d of s.obsolete.slice(0, 10)) lines.push(`${pad}  ${rel(d)}`)
    if (s.obsolete.length > 10) lines.push(`${pad}  … ${s.obsolete.length - 10} more`)
    lines.push(`${pad}remove ${s.obsolete.length > 1 ? 'them' : 'it'} with: rm -r ${s.obsolete.map((d) => quote(rel(d))).join(' ')}`)
  }
  return lines.join('\n')
}

/**
 * Skipped tests that have a fixture: their recording ran them, so a skip gate closed here. Each names the unset
 * credential variables its file read while it was collected (fluxlab already fills the ones a fixture's requests
 * carried, so these are the ones that never reached the wire), with the `keys` line that opens the gate.
 */
function skippedLines(skipped: SuiteSummary['skippedWithFixture'], c: ReturnType<typeof pc.createColors>, pad: string): string[] {
  const n = skipped.length
  const lines = [
    `${pad}${c.yellow(`⚠ ${n} skipped test${n > 1 ? 's have' : ' has'} a fixture`)}: ${n > 1 ? 'they' : 'it'} ran while recording, so a skip gate closed ` +
      `here and the fixture tests nothing:`,
  ]
  for (const t of skipped.slice(0, 10)) lines.push(`${pad}  ${t.test}${t.unsetKeys.length ? ` (its file read ${t.unsetKeys.join(', ')} unset)` : ''}`)
  if (n > 10) lines.push(`${pad}  … ${n - 10} more`)
  const names = [...new Set(skipped.flatMap((t) => t.unsetKeys))].sort()
  lines.push(
    names.length
      ? `${pad}  fluxlab fills the key variables a fixture's requests carried; a gate on one that never reaches the wire opens with the \`keys\` option: ` +
          `keys: [${names.map((k) => `'${k}'`).join(', ')}] (or FLUX_KEYS=${names.join(',')})`
      : `${pad}  fluxlab fills the key variables a fixture's requests carried; a gate on another variable (a flag, or a key that never reaches the wire) ` +
          `opens with the \`keys\` option (or FLUX_KEYS), naming it`,
  )
  return lines
}

/**
 * Tests that failed while recording after making model calls: nothing of them was written, which a reader of a passing
 * summary line would not know until CI fails them with FLUX_NO_RECORDING.
 */
function notWrittenLines(tests: SuiteSummary['notWritten'], c: ReturnType<typeof pc.createColors>, pad: string): string[] {
  const n = tests.length
  if (!n) return []
  const lines = [
    `${pad}${c.yellow(`⚠ ${n} test${n === 1 ? '' : 's'} failed while recording`)}, so ${n === 1 ? 'its' : 'their'} model calls were not written ` +
      '(a failing test writes no fixture); under CI each fails with FLUX_NO_RECORDING until it passes while recording:',
  ]
  for (const t of tests.slice(0, 10)) lines.push(`${pad}  ${t.test}`)
  if (n > 10) lines.push(`${pad}  … ${n - 10} more`)
  return lines
}

/**
 * Test files the runner could not run (llm-interface, in the field corpus: a transform failed every file, and the summary
 * said only "no scenarios ran"). Files with the same error are one line.
 */
function unloadedLines(files: SuiteSummary['unloaded'], rel: (p: string) => string, c: ReturnType<typeof pc.createColors>, pad: string): string[] {
  const byError = new Map<string, string[]>()
  for (const f of files) byError.set(f.message, [...(byError.get(f.message) ?? []), rel(f.file)])
  const lines: string[] = []
  for (const [message, names] of [...byError].slice(0, 5)) {
    const which = names.length === 1 ? names[0] : `${names[0]} and ${names.length - 1} more`
    lines.push(`${pad}${c.red('✗')} ${which} did not run: ${message.length > 300 ? `${message.slice(0, 299)}…` : message}`)
  }
  if (byError.size > 5) lines.push(`${pad}  … ${byError.size - 5} more errors`)
  return lines
}

/**
 * A recording's model calls the app's own msw or nock listeners never saw (sweagent, in the field corpus, fakes the
 * providers with msw in its setup: its fakes were skipped and the calls went live, without a word).
 */
function pastMocksLine(n: number, c: ReturnType<typeof pc.createColors>, pad: string): string {
  return (
    `${pad}${c.yellow(`⚠ ${n} model call${n === 1 ? '' : 's'} went live past your own msw or nock mocks`)}: fluxlab answers a model call before ` +
    'them, so a fake of yours for a provider is not consulted in a scenario. To keep one, leave its test files out with `include` ' +
    '(docs/configuration.md, "Your own msw or nock mocks").'
  )
}

/** The child processes that never reached fluxlab: each command with its scenario, then the fix once. */
function unseenLines(unseen: SuiteSummary['drift'], c: ReturnType<typeof pc.createColors>, pad: string): string[] {
  if (!unseen.length) return []
  const n = unseen.length
  const lines = [
    `${pad}${c.yellow('⚠')} ${n} child process${n === 1 ? '' : 'es'} of a run never reached fluxlab (no preload loaded, nothing through a base-URL ` +
      `variable), so what ${n === 1 ? 'it' : 'they'} sent went out unseen and is on no tape:`,
  ]
  for (const d of unseen.slice(0, 10)) lines.push(`${pad}  \`${/`([^`]+)`/.exec(d.message)?.[1] ?? '?'}\` in ${d.scenario}`)
  if (n > 10) lines.push(`${pad}  … ${n - 10} more`)
  lines.push(
    `${pad}  keep NODE_OPTIONS in ${n === 1 ? 'its' : 'their'} environment (add to it, do not replace it), or set \`childBaseUrls: true\` ` +
      `(FLUX_CHILD_BASE_URLS=1) for a program that reads OPENAI_BASE_URL and the like (docs/process-tree.md)`,
  )
  return lines
}

const quote = (p: string) => (/^[\w./@+-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`)

/** The app server's own scenario: its calls outside every test's browser request (of each merged run's server, summed). */
function appServerLine(a: SuiteSummary['appServer'][number], c: ReturnType<typeof pc.createColors>, pad: string): string {
  const n = a.calls || a.refused
  const who = a.servers > 1 ? `the app servers of ${a.servers} merged runs` : 'the app server'
  const what = a.refused
    ? `${a.refused} refused (its own scenario ${a.scenario} has no fixture here)`
    : `${a.mode === 'replay' ? 'replayed from' : 'recorded into'} its own scenario ${a.scenario}`
  const where = "outside every test's browser request (start-up, or a browser context fluxlab/playwright did not set up)"
  return `${pad}${a.refused ? c.yellow('⚠') : '·'} ${who} made ${n} call${n === 1 ? '' : 's'} ${where}: ${what}`
}

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { APP_SERVER, FACTS_ENV, type TestFacts } from './facts.js'
import FluxlabPlaywrightReporter from './playwright-reporter.js'

/** A Playwright TestCase as the reporter API hands it over: one per test, project and repeat. */
const testCase = (title: string, o: { id: string; repeat?: number; project?: string; outcome?: 'expected' | 'unexpected' | 'skipped' | 'flaky' }) => ({
  id: o.id,
  repeatEachIndex: o.repeat ?? 0,
  titlePath: () => ['', o.project ?? 'chromium', 'chat.spec.ts', title],
  outcome: () => o.outcome ?? 'expected',
  location: { file: '/app/e2e/chat.spec.ts' },
  parent: {},
})
const facts = (test: string, mode: 'record' | 'replay'): TestFacts => ({
  runner: 'playwright',
  file: '/app/e2e/chat.spec.ts',
  test,
  rootDir: '/app/e2e',
  base: '/app/e2e/tests/scenarios',
  opened: [],
  sessions: [
    {
      name: test,
      dir: '',
      mode,
      ...(mode === 'record' ? { written: true } : {}),
      modelCalls: 1,
      toolCalls: 0,
      modelLive: mode === 'record' ? 1 : 0,
      hermetic: mode === 'replay',
      failures: [],
      warnings: [],
      cost: 0,
      unpriced: [],
    },
  ],
})
const result = (status: string, f?: TestFacts) => ({
  status,
  errors: status === 'failed' ? [{ message: 'expected Paris' }] : [],
  attachments: f ? [{ name: 'fluxlab-facts', body: Buffer.from(JSON.stringify(f)) }] : [],
})

afterEach(() => vi.restoreAllMocks())

/** Run the reporter over `ends` and return the summary it prints; `suite` is every test of the run, `ends` what ran. */
function summaryOf(
  projects: number,
  ends: Array<[ReturnType<typeof testCase>, ReturnType<typeof result>]>,
  suite?: Array<ReturnType<typeof testCase>>,
): string {
  const out: string[] = []
  vi.spyOn(process.stderr, 'write').mockImplementation((s) => (out.push(String(s)), true))
  // this suite's own CI runs on GitHub: no annotation or step summary of these made-up tests reaches it
  vi.stubEnv('GITHUB_ACTIONS', '')
  const reporter = new FluxlabPlaywrightReporter()
  reporter.onBegin({ rootDir: '/app/e2e', projects: Array.from({ length: projects }, () => ({})) }, suite && { allTests: () => suite })
  for (const [t, r] of ends) reporter.onTestEnd(t, r)
  reporter.onEnd({ status: 'passed' })
  reporter.onExit()
  vi.unstubAllEnvs()
  return out.join('')
}

describe('FluxlabPlaywrightReporter', () => {
  it('counts each repeat of --repeat-each as a test of its own, a failed repeat as failed, and names no namesake', () => {
    const text = summaryOf(1, [
      [testCase('asks France', { id: 'a-0' }), result('passed', facts('asks France', 'replay'))],
      [testCase('asks France', { id: 'a-1', repeat: 1, outcome: 'unexpected' }), result('failed', facts('asks France', 'replay'))],
      [testCase('asks France', { id: 'a-2', repeat: 2 }), result('passed', facts('asks France', 'replay'))],
    ])
    expect(text).toContain('3 scenarios: 3 replayed, 0 recorded · tests 2 passed, 1 failed, 0 skipped · hermetic 3/3')
    expect(text).not.toContain('are named')
  })

  it("folds a retry's attempts into its test, counted flaky as Playwright counts it, carrying the earlier attempt's live calls", () => {
    const flaky = testCase('asks Japan', { id: 'j-0', outcome: 'flaky' })
    const text = summaryOf(1, [
      [flaky, result('failed', facts('asks Japan', 'record'))],
      [flaky, result('passed', facts('asks Japan', 'record'))],
      [testCase('asks Peru', { id: 'p-0' }), result('passed', facts('asks Peru', 'replay'))],
    ])
    expect(text).toContain('2 scenarios: 1 replayed, 1 recorded · tests 1 passed, 1 flaky, 0 failed, 0 skipped')
    expect(text).toContain('live model calls 2')
  })

  it('counts by the outcome at the end: a test whose first attempt failed and retry passed is flaky, not failed', () => {
    let outcome: 'unexpected' | 'flaky' = 'unexpected'
    const t = { ...testCase('asks Chile', { id: 'c-0' }), outcome: () => outcome }
    const out: string[] = []
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => (out.push(String(s)), true))
    const reporter = new FluxlabPlaywrightReporter()
    reporter.onBegin({ rootDir: '/app/e2e', projects: [{}] })
    reporter.onTestEnd(t, result('failed', facts('asks Chile', 'replay')))
    outcome = 'flaky'
    reporter.onTestEnd(t, result('passed', facts('asks Chile', 'replay')))
    reporter.onEnd({ status: 'passed' })
    reporter.onExit()
    expect(out.join('')).toContain('tests 0 passed, 1 flaky, 0 failed, 0 skipped · hermetic 1/1')
  })

  it('counts a test that never ran (--max-failures) as skipped, as Playwright does', () => {
    const ran = testCase('asks Spain', { id: 's-0', outcome: 'unexpected' })
    const never = testCase('asks Chad', { id: 'c-0', outcome: 'skipped' })
    const text = summaryOf(1, [[ran, result('failed', facts('asks Spain', 'replay'))]], [ran, never])
    expect(text).toContain('tests 0 passed, 1 failed, 1 skipped')
  })

  it("names a fixture no test opened after a whole run, not after a shard's (its other tests ran in another shard)", () => {
    const root = mkdtempSync(join(tmpdir(), 'fluxlab-pw-'))
    try {
      mkdirSync(join(root, 'tests/scenarios/gone'), { recursive: true })
      writeFileSync(join(root, 'tests/scenarios/gone/scenario.yaml'), 'source:\n  file: chat.spec.ts\n  name: asks Gone\n  runner: playwright\n')
      const t = { ...testCase('asks Peru', { id: 'p-0' }), location: { file: join(root, 'chat.spec.ts') } }
      const f = { ...facts('asks Peru', 'replay'), file: join(root, 'chat.spec.ts'), rootDir: root, base: join(root, 'tests/scenarios') }
      const summaryIn = (shard: { current: number; total: number } | null, mode?: string) => {
        const out: string[] = []
        vi.spyOn(process.stderr, 'write').mockImplementation((s) => (out.push(String(s)), true))
        const reporter = new FluxlabPlaywrightReporter({ _mode: mode })
        reporter.onBegin({ rootDir: root, projects: [{}], shard })
        reporter.onTestEnd(t, result('passed', f))
        reporter.onEnd({ status: 'passed' })
        reporter.onExit()
        vi.restoreAllMocks()
        return out.join('')
      }
      expect(summaryIn(null)).toContain('1 fixture no test opened')
      expect(summaryIn({ current: 1, total: 2 })).not.toContain('no test opened')
      // merge-reports may hand over a blob's config, its shard included: the merge is the whole run
      expect(summaryIn({ current: 1, total: 2 }, 'merge')).toContain('1 fixture no test opened')
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  it("carries the app server's own scenario in each shard's blob, and merge-reports' summary says it once, over both", () => {
    const server = { ...facts(APP_SERVER, 'replay'), file: '/app/(the app server)', fileLevel: true }
    server.sessions[0] = { ...server.sessions[0], name: 'app-server' }
    const out: string[] = []
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => (out.push(String(s)), true))
    vi.stubEnv('GITHUB_ACTIONS', '')
    // each shard's run: `fluxlab serve` appends the server's facts to the file the reporter names; the blob reporter
    // writes the config's metadata (JSON.stringify) when the run ends, before the reporters' onExit
    const blobs = [1, 2].map((current) => {
      const reporter = new FluxlabPlaywrightReporter()
      const config = { rootDir: '/app/e2e', projects: [{}], shard: { current, total: 2 }, reporter: [['blob'] as [string]], metadata: {} }
      reporter.onBegin(config)
      reporter.onTestEnd(testCase(`asks ${current}`, { id: `t-${current}` }), result('passed', facts(`asks ${current}`, 'replay')))
      writeFileSync(process.env[FACTS_ENV]!, `${JSON.stringify(server)}\n`)
      reporter.onEnd({ status: 'passed' })
      const blob = JSON.parse(JSON.stringify(config.metadata)) as Record<string, unknown>
      reporter.onExit()
      return blob
    })
    expect(out.join('')).toContain("the app server made 1 call outside every test's browser request")
    out.length = 0
    // merge-reports merges the blobs' metadata key by key
    const merge = new FluxlabPlaywrightReporter({ _mode: 'merge' })
    merge.onBegin({ rootDir: '/app/e2e', projects: [{}], metadata: { ...blobs[0], ...blobs[1], actualWorkers: 4 } })
    for (const n of [1, 2]) merge.onTestEnd(testCase(`asks ${n}`, { id: `t-${n}` }), result('passed', facts(`asks ${n}`, 'replay')))
    merge.onEnd({ status: 'passed' })
    merge.onExit()
    vi.unstubAllEnvs()
    const text = out.join('')
    expect(text).toContain('4 scenarios: 4 replayed, 0 recorded · tests 2 passed, 0 failed, 0 skipped · hermetic 4/4')
    expect(text.match(/the app servers? .*made/g)).toHaveLength(1)
    expect(text).toContain("the app servers of 2 merged runs made 2 calls outside every test's browser request")
    expect(text).toContain('did not set up): replayed from its own scenario app-server')
  })

  it('writes nothing into the metadata of a run with no blob reporter', () => {
    const config = { rootDir: '/app/e2e', projects: [{}], reporter: [['json'] as [string]], metadata: {} }
    new FluxlabPlaywrightReporter().onBegin(config)
    expect(config.metadata).toEqual({})
  })

  it('keeps the same test of two projects apart, and names no namesake', () => {
    const text = summaryOf(2, [
      [testCase('asks Italy', { id: 'i-c', project: 'chromium' }), result('passed', facts('asks Italy', 'replay'))],
      [testCase('asks Italy', { id: 'i-f', project: 'firefox' }), result('passed', facts('asks Italy', 'replay'))],
    ])
    expect(text).toContain('tests 2 passed, 0 failed, 0 skipped')
    expect(text).not.toContain('are named')
  })
})

describe('FluxlabPlaywrightReporter under GITHUB_ACTIONS=true', () => {
  const diverged = (): TestFacts => {
    const f = facts('asks Rome', 'replay')
    f.sessions[0] = {
      ...f.sessions[0],
      hermetic: false,
      failures: [{ code: 'model_index_overflow', step: 'model#2', message: 'one model call more than the tape' }],
    }
    return f
  }
  /** Runs the reporter over one failed test at line 14; returns what it wrote to stdout. */
  function annotate(reporter: Array<[string, unknown?]>, env: Record<string, string>): string {
    const out: string[] = []
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    vi.spyOn(process.stdout, 'write').mockImplementation((s) => (out.push(String(s)), true))
    for (const [k, v] of Object.entries({ GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: '', ...env })) vi.stubEnv(k, v)
    const r = new FluxlabPlaywrightReporter()
    r.onBegin({ rootDir: '/app/e2e', projects: [{}], reporter })
    const t = { ...testCase('asks Rome', { id: 'r-0', outcome: 'unexpected' }), location: { file: join(process.cwd(), 'e2e/chat.spec.ts'), line: 14 } }
    r.onTestEnd(t, result('failed', diverged()))
    r.onEnd({ status: 'failed' })
    r.onExit()
    vi.unstubAllEnvs()
    return out.join('')
  }

  it("annotates a failed test at test.location, and leaves it to Playwright's own `github` reporter when that runs", () => {
    expect(annotate([['list']], {})).toMatch(
      /^::error file=e2e\/chat\.spec\.ts,line=14,title=model_index_overflow::scenario "asks Rome" model#2: model_index_overflow: .*; rerun: npx playwright test /m,
    )
    expect(annotate([['list'], ['github']], {})).toBe('')
    expect(annotate([['list']], { FLUX_GITHUB: '0' })).toBe('')
  })
})

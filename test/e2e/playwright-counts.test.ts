/**
 * Issue 39 items 3 and 4: fluxlab's run summary counts what Playwright counts, and the command it prints runs. The
 * suite (test/e2e/projects/playwright-counts) has its config in `e2e/` with two projects and one retry, and two tests
 * that ask the model through the app server; under FLAKY=1 one of them fails its first attempt. Recorded against the
 * local provider, then replayed offline (CI=1, FLUX_OFFLINE=1, a tripwire where the provider was): the summary's
 * passed, flaky, failed and skipped equal the stats of Playwright's own JSON report for the whole run, for each shard
 * of `--shard 1/2` and `--shard 2/2`, and for `merge-reports` over their blobs, which prints one summary, the app
 * server's own scenario included (the server asks the model once as it starts, and each shard's server replays it). A test whose
 * fixture is gone fails under CI with the command that records it; that command, run from the project root as
 * printed, runs that test in that project and nothing else, and records its fixture.
 */
import { cpSync, readdirSync, rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startCapitalServer } from './support/capital-server.js'
import { mergePlaywrightReports, recordPlaywrightSuite, runCommandLine, type Project, type RecordedSuite, type RunResult } from './support/project.js'
import { parseRunSummary, type RunSummary } from './support/run-summary.js'

const TIMEOUT = 240_000
const KEY = 'sk-proj-Pl4ywr1ghtC0untsRec0rdingKey0nlyF0rTh1sTest3'
const UK = 'answers the capital of UK'
const FRANCE = 'answers the capital of France'

interface Suite {
  specs?: Array<{ title: string; tests: Array<{ projectName: string; status: string; results: Array<{ status: string }> }> }>
  suites?: Suite[]
}
interface JsonReport extends Suite {
  stats: { expected: number; unexpected: number; flaky: number; skipped: number }
}

/** Playwright's own counts, from its JSON report, in the summary's words. */
function pwCounts(p: Project, file: string): NonNullable<RunSummary['tests']> {
  const { stats } = JSON.parse(p.read(file)) as JsonReport
  return { passed: stats.expected, ...(stats.flaky ? { flaky: stats.flaky } : {}), failed: stats.unexpected, skipped: stats.skipped, refusals: {} }
}

/** Every test the JSON report holds, as `project > title: outcome (attempts)`. */
function ran(p: Project, file: string): string[] {
  const out: string[] = []
  const walk = (s: Suite) => {
    for (const spec of s.specs ?? []) for (const t of spec.tests) out.push(`${t.projectName} > ${spec.title}: ${t.status} (${t.results.length})`)
    for (const child of s.suites ?? []) walk(child)
  }
  walk(JSON.parse(p.read(file)) as Suite)
  return out.sort()
}

/** The summary's test counts with fluxlab's refusals left out (Playwright's report has none). */
const counts = (s: RunSummary | undefined) => (s?.tests ? { ...s.tests, refusals: {} } : undefined)
const fixtures = (p: Project, project: string) =>
  readdirSync(p.path(`e2e/tests/scenarios/${project}`))
    .filter((d) => !d.startsWith('.'))
    .sort()

describe('fluxlab summary counts under retries, projects and shards (Playwright, config in e2e/)', () => {
  let suite: RecordedSuite
  let project: Project
  const run = (json: string, env: Record<string, string>, args: string[] = []) => suite.run(json, env, args)
  const offline = { CI: '1', FLUX_OFFLINE: '1' }
  const wire = () => suite.wire

  beforeAll(async () => {
    suite = await recordPlaywrightSuite('playwright-counts', { key: KEY, timeoutMs: TIMEOUT })
    project = suite.project
  }, TIMEOUT)
  afterAll(async () => {
    await suite?.remove()
  })

  test("recording runs each test in each project, and the summary counts 4 tests, their 4 recordings and the server's own", () => {
    const { record } = suite
    expect(record.code, record.output).toBe(0)
    expect(ran(project, 'record.json')).toEqual([
      `desktop > ${FRANCE}: expected (1)`,
      `desktop > ${UK}: expected (1)`,
      `narrow > ${FRANCE}: expected (1)`,
      `narrow > ${UK}: expected (1)`,
    ])
    const summary = parseRunSummary(record.output)
    expect(counts(summary), summary?.line ?? record.output).toEqual(pwCounts(project, 'record.json'))
    expect(summary?.recorded).toBe(5)
    expect(record.output).toContain("the app server made 3 calls outside every test's browser request")
    expect(record.output).toContain('recorded into its own scenario app-server')
    for (const p of ['desktop', 'narrow']) expect(fixtures(project, p)).toHaveLength(2)
  })

  test(
    'a retried flaky test in two projects: the summary counts passed, flaky, failed and skipped as Playwright does, and each run is hermetic',
    async () => {
      const r = await run('flaky.json', { ...offline, FLAKY: '1' })
      expect(ran(project, 'flaky.json')).toEqual([
        `desktop > ${FRANCE}: flaky (2)`,
        `desktop > ${UK}: expected (1)`,
        `narrow > ${FRANCE}: flaky (2)`,
        `narrow > ${UK}: expected (1)`,
      ])
      const summary = parseRunSummary(r.output)
      expect(counts(summary), summary?.line ?? r.output).toEqual(pwCounts(project, 'flaky.json'))
      expect(counts(summary)).toEqual({ passed: 2, flaky: 2, failed: 0, skipped: 0, refusals: {} })
      // a retried test's runs count once, by its last attempt; each project's run counts on its own; the server's own too
      expect(summary?.line).toContain('5 scenarios: 5 replayed, 0 recorded')
      expect(summary?.line).toContain('hermetic 5/5')
      expect(r.output).toContain("the app server made 3 calls outside every test's browser request")
      expect(wire().connections, 'connections to the closed provider').toBe(0)
    },
    TIMEOUT,
  )

  test(
    '--shard 1/2 and 2/2 each print their own counts, and merge-reports over their blobs prints one summary of the whole run',
    async () => {
      const blobs = project.path('blobs')
      const shards: RunResult[] = []
      // as on CI, each shard on its own (a blob reporter empties its folder when it starts), their blobs gathered after
      for (const shard of ['1/2', '2/2']) {
        shards.push(await run(`shard-${shard[0]}.json`, { ...offline, FLAKY: '1', PW_BLOB: project.path(`blob-${shard[0]}`) }, ['--shard', shard]))
        cpSync(project.path(`blob-${shard[0]}`), blobs, { recursive: true })
      }
      for (const [i, r] of shards.entries()) {
        const summary = parseRunSummary(r.output)
        expect.soft(counts(summary), `shard ${i + 1}: ${summary?.line ?? r.output}`).toEqual(pwCounts(project, `shard-${i + 1}.json`))
        expect.soft(r.output).toContain("the app server made 3 calls outside every test's browser request")
        // a shard runs part of each file: the fixtures of the other shard's tests are not obsolete
        expect.soft(r.output).not.toContain('no test opened')
      }
      expect(readdirSync(blobs).filter((f) => f.endsWith('.zip'))).toHaveLength(2)
      const merged = await mergePlaywrightReports(project, ['-c', 'e2e/playwright.config.ts', blobs], { PW_JSON: project.path('merged.json') })
      const lines = merged.output.split('\n').filter((l) => l.startsWith(' fluxlab '))
      expect(lines, merged.output).toHaveLength(1)
      const summary = parseRunSummary(merged.output)
      expect(counts(summary), summary?.line).toEqual(pwCounts(project, 'merged.json'))
      // the whole run's counts, as the unsharded run gave them; its scenarios, the shards' together (each shard's server replayed its own)
      expect(counts(summary)).toEqual(pwCounts(project, 'flaky.json'))
      expect(summary?.line).toContain('6 scenarios: 6 replayed, 0 recorded')
      expect(summary?.line).toContain('hermetic 6/6')
      expect(merged.output).toContain("the app servers of 2 merged runs made 6 calls outside every test's browser request")
      expect(merged.output).toContain('replayed from its own scenario app-server')
      expect(merged.output).not.toContain('no test opened')
      // merged with the reporter named on the command line and no config: the same one summary
      const bare = await mergePlaywrightReports(project, ['--reporter', 'fluxlab/playwright-reporter', blobs])
      expect(
        bare.output.split('\n').filter((l) => l.startsWith(' fluxlab ')),
        bare.output,
      ).toEqual([summary?.line])
      expect(bare.output).toContain("the app servers of 2 merged runs made 6 calls outside every test's browser request")
      expect(wire().connections, 'connections to the closed provider').toBe(0)
    },
    TIMEOUT,
  )

  test(
    'the command a refusal prints, run from the project root, runs that test in its project only and records it',
    async () => {
      const uk = fixtures(project, 'narrow').find((d) => d.includes('capital-of-uk'))!
      rmSync(project.path(`e2e/tests/scenarios/narrow/${uk}`), { recursive: true })
      const refused = await run('refused.json', offline)
      expect(ran(project, 'refused.json')).toEqual([
        `desktop > ${FRANCE}: expected (1)`,
        `desktop > ${UK}: expected (1)`,
        `narrow > ${FRANCE}: expected (1)`,
        `narrow > ${UK}: unexpected (2)`,
      ])
      expect(counts(parseRunSummary(refused.output))).toEqual(pwCounts(project, 'refused.json'))
      const command = /Record it where provider keys are available with `([^`]+)`/.exec(refused.output)?.[1]
      expect(command, refused.output).toBe(`npx playwright test -c e2e/playwright.config.ts tests/chat.spec.ts -g '${UK}$' --project narrow`)

      const live = await startCapitalServer()
      try {
        const env = {
          ...suite.env('rerun.json'),
          OPENAI_BASE_URL: `${live.url}/v1`,
          GEO_URL: live.url,
          OPENAI_API_KEY: KEY,
          NPM_CONFIG_UPDATE_NOTIFIER: 'false',
        }
        const r = await runCommandLine(project, command!, env, TIMEOUT)
        expect(r.code, r.output).toBe(0)
        expect(ran(project, 'rerun.json')).toEqual([`narrow > ${UK}: expected (1)`])
        expect(fixtures(project, 'narrow')).toContain(uk)
        expect(live.requests.filter((q) => q.kind === 'model')).toHaveLength(2)
        const summary = parseRunSummary(r.output)
        // the test's recording, and the server's own scenario replayed
        expect(summary?.line).toContain('2 scenarios: 1 replayed, 1 recorded')
        // a run of one test says nothing of the fixtures of the tests it left out
        expect(r.output).not.toContain('no test opened')
      } finally {
        await live.close()
      }
    },
    TIMEOUT,
  )
})

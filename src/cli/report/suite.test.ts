import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { breaches, parseFailOn } from './fail-on.js'
import { suiteHtml } from './html-suite.js'
import { suiteMarkdown } from './markdown.js'
import { buildSuite } from './suite.js'

const ROOT = resolve('examples/scenarios')
const scratch = mkdtempSync(join(tmpdir(), 'flux-report-suite-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const lastRun = join(scratch, 'last-run.json')
const problem = (code: string, step: string, message: string) => ({ code, step, message })
writeFileSync(
  lastRun,
  JSON.stringify({
    schema: 'fluxlab.last-run/v1',
    runner: 'vitest',
    finishedAt: '2026-12-06T00:00:00.000Z',
    rootDir: scratch,
    scenarios: [
      {
        dir: join(ROOT, 'capital-agent'),
        name: 'capital-agent',
        test: { file: 'test/capital.test.ts', name: 'answers', line: 4, state: 'passed' },
        mode: 'replay',
        result: 'replayed',
        modelCalls: 2,
        toolCalls: 1,
        modelLive: 0,
        failures: [],
        warnings: [problem('model_request_drift', 'model#1', 'messages[0].content differs <b>')],
        cost: 0,
      },
      {
        dir: join(ROOT, 'triage'),
        name: 'triage',
        test: { file: 'test/triage.test.ts', name: 'triages', state: 'failed' },
        mode: 'replay',
        result: 'refused',
        modelCalls: 0,
        toolCalls: 0,
        modelLive: 0,
        failures: [problem('FLUX_NO_RECORDING', 'triage', 'no fixture')],
        warnings: [],
        cost: 0,
      },
    ],
  }),
)

describe('the suite', () => {
  const dirs = [join(ROOT, 'capital-agent'), join(ROOT, 'refund-agent')]
  const suite = buildSuite(ROOT, dirs, [], { lastRun })

  test('joins every fixture with the last run, and lists a scenario the last run ran with no fixture', () => {
    expect(suite.entries.map((e) => [e.name, e.last?.result ?? 'none', e.steps])).toEqual([
      ['capital-agent', 'replayed', 3],
      ['refund-agent', 'none', 5],
      ['triage', 'refused', 0],
    ])
    const tools = ['ledger.record', 'orders.lookup', 'payments.refund']
    expect(suite.entries[1]).toMatchObject({ models: ['gpt-4o-mini-2024-07-18'], tools, modelCalls: 2, toolCalls: 3 })
    expect(suite.lastRun).toMatchObject({ runner: 'vitest', finishedAt: '2026-12-06T00:00:00.000Z' })
  })

  test('the page has a row a scenario, escaped, filterable, and a packed trace for each fixture', () => {
    const html = suiteHtml(suite, { pricesAsOf: '2026-10-24' })
    expect(html.match(/<tr data-i=/g)).toHaveLength(3)
    expect(html).toContain('data-result="replayed" data-problem="1"')
    expect(html).toContain('data-result="none" data-problem="0"')
    expect(html).toContain('data-result="refused" data-problem="1"')
    expect(html).toContain('messages[0].content differs &lt;b&gt;')
    expect(html.match(/<script type="text\/plain" id="t-\d+">/g)).toHaveLength(2)
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//)
  })

  test('the Markdown lists what did not replay cleanly; --fail-on failed and drift read the last run', () => {
    const md = suiteMarkdown(suite, [])
    expect(md).toContain('3 scenarios · 1 replayed · 1 not in last run · 1 refused')
    expect(md).toContain('| `capital-agent` | replayed | `model#1 model_request_drift: messages[0].content differs <b>` |')
    expect(md).toContain('| `triage` | refused | `triage FLUX_NO_RECORDING: no fixture` |')
    expect(breaches(parseFailOn(['failed,drift'], false), [], suite.entries)).toEqual([
      { rule: 'failed', message: 'the last run refused, diverged or failed triage' },
      { rule: 'drift', message: 'the last run warned of drift in capital-agent' },
    ])
  })
})

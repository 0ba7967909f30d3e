import { afterEach, describe, expect, it, vi } from 'vitest'
import type { TestFacts } from './facts.js'
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
  sessions: [{ name: test, dir: '', mode, ...(mode === 'record' ? { written: true } : {}), modelCalls: 1, toolCalls: 0, modelLive: mode === 'record' ? 1 : 0, hermetic: mode === 'replay', failures: [], warnings: [], cost: 0, unpriced: [] }],
})
const result = (status: string, f?: TestFacts) => ({
  status,
  errors: status === 'failed' ? [{ message: 'expected Paris' }] : [],
  attachments: f ? [{ name: 'fluxlab-facts', body: Buffer.from(JSON.stringify(f)) }] : [],
})

afterEach(() => vi.restoreAllMocks())

/** Run the reporter over `ends` and return the summary it prints. */
function summaryOf(projects: number, ends: Array<[ReturnType<typeof testCase>, ReturnType<typeof result>]>): string {
  const out: string[] = []
  vi.spyOn(process.stderr, 'write').mockImplementation((s) => (out.push(String(s)), true))
  const reporter = new FluxlabPlaywrightReporter()
  reporter.onBegin({ rootDir: '/app/e2e', projects: Array.from({ length: projects }, () => ({})) })
  for (const [t, r] of ends) reporter.onTestEnd(t, r)
  reporter.onEnd({ status: 'passed' })
  reporter.onExit()
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

  it("folds a retry's attempts into its test, carrying the earlier attempt's live calls", () => {
    const flaky = testCase('asks Japan', { id: 'j-0', outcome: 'flaky' })
    const text = summaryOf(1, [
      [flaky, result('failed', facts('asks Japan', 'record'))],
      [flaky, result('passed', facts('asks Japan', 'record'))],
    ])
    expect(text).toContain('tests 1 passed, 0 failed, 0 skipped')
    expect(text).toContain('live model calls 2')
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

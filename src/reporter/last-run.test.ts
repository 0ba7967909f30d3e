import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import type { SessionFacts, TestFacts } from './facts.js'
import { sessionFacts } from './test-facts.js'
import { lastRunFile, writeLastRun } from './last-run.js'
import type { RanTest } from './summary.js'

const dirs: string[] = []
afterEach(() => {
  delete process.env.FLUX_LAST_RUN
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const session = (over: Partial<SessionFacts>): SessionFacts => sessionFacts({ dir: '/repo/tests/scenarios/capital', cost: 0.0001, ...over })
const ran = (name: string, state: RanTest['state'], sessions: SessionFacts[]): RanTest => ({
  file: '/repo/test/a.test.ts',
  name,
  line: 7,
  state,
  facts: { runner: 'vitest', file: '/repo/test/a.test.ts', test: name, rootDir: '/repo', base: '/repo/tests/scenarios', opened: [], sessions } as TestFacts,
})

test('the last run keeps each scenario with its mode, result and redacted problems', () => {
  const root = mkdtempSync(join(tmpdir(), 'flux-last-run-'))
  dirs.push(root)
  process.env.FLUX_LAST_RUN = join(root, 'last.json')
  const secret = `sk-proj-${'Qw3rTy7uI9oP1aS5dF8gH2jK'.repeat(2)}`
  writeLastRun(
    [
      ran('replays', 'passed', [session({})]),
      ran('diverges', 'failed', [session({ name: 'b', dir: '/s/b', failures: [{ code: 'model_index_overflow', step: 'model#3', message: `+1 ${secret}` }] })]),
      ran('asserted', 'passed', [session({ name: 'c', dir: '/s/c', failures: [{ code: 'x', step: 'model#1', message: 'm' }], acknowledged: true })]),
      ran('records', 'passed', [session({ name: 'd', dir: '/s/d', mode: 'record', written: true })]),
      ran('refused', 'failed', [session({ name: 'e', dir: '/s/e', refused: true })]),
      ran('skipped', 'skipped', []),
    ],
    'vitest',
    '/repo',
  )
  const doc = JSON.parse(readFileSync(join(root, 'last.json'), 'utf8'))
  expect(doc.schema).toBe('fluxlab.last-run/v1')
  const results = doc.scenarios.map((s: { name: string; result: string }) => `${s.name} ${s.result}`)
  expect(results).toEqual(['capital replayed', 'b diverged', 'c replayed', 'd recorded', 'e refused'])
  expect(doc.scenarios[0].test).toEqual({ file: 'test/a.test.ts', name: 'replays', line: 7, state: 'passed' })
  expect(JSON.stringify(doc)).not.toContain(secret)
})

test('goes to node_modules/.cache/fluxlab/last-run.json, or where FLUX_LAST_RUN says, or nowhere', () => {
  expect(lastRunFile('/repo', {})).toBe('/repo/node_modules/.cache/fluxlab/last-run.json') // no node_modules above it
  // a config in a subfolder of a project writes where the report run from the project's root reads, and makes no node_modules
  const project = mkdtempSync(join(tmpdir(), 'flux-last-run-root-'))
  try {
    mkdirSync(join(project, 'node_modules'))
    mkdirSync(join(project, 'e2e'))
    expect(lastRunFile(join(project, 'e2e'), {})).toBe(join(project, 'node_modules/.cache/fluxlab/last-run.json'))
    expect(lastRunFile(project, {})).toBe(join(project, 'node_modules/.cache/fluxlab/last-run.json'))
  } finally {
    rmSync(project, { recursive: true, force: true })
  }
  expect(lastRunFile('/repo', { FLUX_LAST_RUN: 'out/run.json' })).toBe('/repo/out/run.json')
  expect(lastRunFile('/repo', { FLUX_LAST_RUN: '0' })).toBeUndefined()
})

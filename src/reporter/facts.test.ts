import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { appendFacts, FACTS_ENV, type TestFacts } from './facts.js'
import { readFacts } from './read-facts.js'

const dir = mkdtempSync(join(tmpdir(), 'flux-facts-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const facts = (test: string): TestFacts => ({ runner: 'jest', file: '/p/a.test.js', test, rootDir: '/p', base: '/p/tests/scenarios', opened: [], sessions: [] })

describe('readFacts', () => {
  it("reads back what workers appended, one test a line, and a test file's own lines apart", () => {
    const file = join(dir, 'facts.jsonl')
    writeFileSync(file, '')
    appendFacts(facts('one'), { [FACTS_ENV]: file })
    appendFacts({ kind: 'file', file: '/p/a.test.js', base: '/p/tests/scenarios', unsetKeys: ['FIREWORKS_API_KEY'] }, { [FACTS_ENV]: file })
    appendFacts(facts('two'), { [FACTS_ENV]: file })
    appendFacts({ kind: 'file', file: '/p/a.test.js', base: '/p/tests/scenarios', unsetKeys: ['AN_API_KEY'] }, { [FACTS_ENV]: file })
    const read = readFacts(file)
    expect(read.tests.map((f) => f.test)).toEqual(['one', 'two'])
    expect(read.files).toEqual([{ file: '/p/a.test.js', base: '/p/tests/scenarios', unsetKeys: ['AN_API_KEY', 'FIREWORKS_API_KEY'] }])
  })

  it("keeps a retried test's last attempt, with the live model calls of the attempts before it, and the file scenario apart", () => {
    // Measured on a real suite: "live model calls 95" while the provider answered 168, the rest from retried attempts.
    const file = join(dir, 'retry.jsonl')
    writeFileSync(file, '')
    const session = (mode: 'record' | 'replay', modelLive: number) => ({
      name: 'x',
      dir: '',
      mode,
      modelCalls: modelLive,
      toolCalls: 0,
      modelLive,
      hermetic: false,
      failures: [],
      warnings: [],
      cost: 0,
      unpriced: [],
    })
    appendFacts({ ...facts('flaky'), sessions: [session('record', 2)] }, { [FACTS_ENV]: file })
    appendFacts({ ...facts('flaky'), sessions: [session('record', 3)] }, { [FACTS_ENV]: file })
    appendFacts({ ...facts('flaky'), sessions: [session('record', 1)] }, { [FACTS_ENV]: file })
    appendFacts({ ...facts('(outside tests)'), fileLevel: true, sessions: [session('record', 6)] }, { [FACTS_ENV]: file })
    const read = readFacts(file)
    expect(read.tests.map((f) => [f.test, f.sessions[0].modelLive, f.retriedLive])).toEqual([['flaky', 1, 5]])
    expect(read.files.map((f) => [f.file, f.outside?.sessions[0].modelLive])).toEqual([['/p/a.test.js', 6]])
  })

  it("leaves out a line a killed worker tore, and any line that is not a test's facts", () => {
    const file = join(dir, 'torn.jsonl')
    writeFileSync(file, `${JSON.stringify(facts('one'))}\n{"file":"/p/a.test.js"}\n${JSON.stringify(facts('three')).slice(0, 30)}`)
    expect(readFacts(file).tests.map((f) => f.test)).toEqual(['one'])
  })

  it('reads nothing when the file is gone, and appends nothing without FLUX_FACTS_FILE', () => {
    expect(readFacts(join(dir, 'none.jsonl'))).toEqual({ tests: [], files: [] })
    appendFacts(facts('x'), {})
  })
})

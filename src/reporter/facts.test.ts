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

  it('leaves out a line a killed worker tore, and any line that is not a test\'s facts', () => {
    const file = join(dir, 'torn.jsonl')
    writeFileSync(file, `${JSON.stringify(facts('one'))}\n{"file":"/p/a.test.js"}\n${JSON.stringify(facts('three')).slice(0, 30)}`)
    expect(readFacts(file).tests.map((f) => f.test)).toEqual(['one'])
  })

  it('reads nothing when the file is gone, and appends nothing without FLUX_FACTS_FILE', () => {
    expect(readFacts(join(dir, 'none.jsonl'))).toEqual({ tests: [], files: [] })
    appendFacts(facts('x'), {})
  })
})

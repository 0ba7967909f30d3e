import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { useFixtureStore } from '../store/current.js'
import { memoryStore } from '../store/memory.js'
import { JOURNAL_FILE, Journal, listJournals } from './journal.js'

let store = memoryStore()
let restore = () => {}
beforeEach(() => {
  store = memoryStore()
  restore = useFixtureStore(store)
})
afterEach(() => restore())
let runs = 0
const dir = () => `/virtual/journal-${++runs}`
const readFileSync = (file: string, _: 'utf8') => Buffer.from(store.readFile(file)!).toString('utf8')
const writeFileSync = (file: string, text: string) => store.writeFile(file, text)
const appendFileSync = (file: string, text: string) => store.appendTo(file).append(text)
const intent = (seq: number) => ({ kind: 'intent' as const, seq, step: `tool#${seq}`, key: `sha256:${seq}` })

describe('Journal', () => {
  it('appends entries that a reopen reads back, and marks the run complete', () => {
    const d = dir()
    const j = Journal.open(d)
    j.begin(false)
    j.append(intent(1))
    j.append(intent(2))
    expect(Journal.open(d).unfinished).toBe(true)
    j.complete()
    const again = Journal.open(d)
    expect(again.entries).toEqual([intent(1), intent(2)])
    expect(again.unfinished).toBe(false)
    expect(again.meta?.status).toBe('complete')
  })

  it('ignores a line cut mid-write and drops it when the run resumes', () => {
    const d = dir()
    const j = Journal.open(d)
    j.begin(false)
    j.append(intent(1))
    j.close()
    appendFileSync(join(d, JOURNAL_FILE), '{"kind":"cell","channel":"tool","cell":{"seq":2,"out')
    const torn = Journal.open(d)
    expect(torn.tornTail).toBe(true)
    expect(torn.entries).toEqual([intent(1)])
    torn.begin(true)
    torn.append(intent(3))
    torn.close()
    expect(
      readFileSync(join(d, JOURNAL_FILE), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([intent(1), intent(3)])
    expect(Journal.open(d).meta?.resumes).toBe(1)
  })

  it('names file and line for a damaged line before the end', () => {
    const d = dir()
    const j = Journal.open(d)
    j.begin(false)
    j.close()
    writeFileSync(join(d, JOURNAL_FILE), `${JSON.stringify(intent(1))}\nnot json\n${JSON.stringify(intent(3))}\n`)
    expect(() => Journal.open(d)).toThrow(/journal\.jsonl:2/)
  })

  it('refuses an entry holding a secret and writes nothing', () => {
    const d = dir()
    const j = Journal.open(d)
    j.begin(false)
    const key = `sk-proj-${'A1b2'.repeat(12)}`
    expect(() => j.append({ ...intent(1), step: `tool#1 ${key}` })).toThrow(/FLUX_CREDENTIAL_FOUND/)
    j.close()
    expect(readFileSync(join(d, JOURNAL_FILE), 'utf8')).toBe('')
  })

  it("honours the redactor's disabled rules on append and on reopen, so a run that keeps such a value can resume", () => {
    const d = dir()
    const jwt = ['eyJhbGciOiJIUzI1NiJ9', 'eyJzdWIiOiIxMjM0NTY3ODkwIn0', 'dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'].join('.')
    const strict = Journal.open(d)
    strict.begin(false)
    expect(() => strict.append({ ...intent(1), key: jwt })).toThrow(/FLUX_CREDENTIAL_FOUND[\s\S]*\(jwt\)/)
    strict.close()
    const j = Journal.open(d, { disable: ['jwt'] })
    j.begin(false)
    j.append({ ...intent(1), key: jwt })
    j.close()
    expect(() => Journal.open(d)).toThrow(/FLUX_CREDENTIAL_FOUND: Failed to read journal .*journal\.jsonl: found 1 secret-looking value \(credential_found\)\./)
    expect(Journal.open(d, { disable: ['jwt'] }).entries).toEqual([{ ...intent(1), key: jwt }])
    expect(listJournals(d, { disable: ['jwt'] })).toHaveLength(1)
  })

  it('names file, line and field for an entry of the wrong shape', () => {
    const d = dir()
    writeFileSync(
      join(d, JOURNAL_FILE),
      `${JSON.stringify(intent(1))}\n${JSON.stringify({ kind: 'cell', channel: 'tool', cell: { seq: 2, name: 'x' } })}\n{"kind":"nap"}\n`,
    )
    expect(() => Journal.open(d)).toThrow(
      /Failed to read journal .*journal\.jsonl:2: expected "step" \(a string\) at cell\.step, found nothing: the field is missing\. The journal is damaged/,
    )
    writeFileSync(join(d, JOURNAL_FILE), `${JSON.stringify(intent(1))}\n{"kind":"nap"}\n`)
    expect(() => Journal.open(d)).toThrow(/journal\.jsonl:2: expected a JSON object with "kind" "intent" or "cell"/)
  })

  it('lists journals in a store, marking unfinished ones, without changing them', () => {
    const root = dir()
    const a = Journal.open(join(root, 'a'))
    a.begin(false)
    a.append(intent(1))
    a.complete()
    const b = Journal.open(join(root, 'b'))
    b.begin(false)
    b.append(intent(1))
    b.close()
    const before = readFileSync(join(root, 'b', 'journal.yaml'), 'utf8')
    expect(listJournals(root).map((j) => [j.dir.split('/').pop(), j.meta.status, j.intents])).toEqual([
      ['a', 'complete', 1],
      ['b', 'running', 1],
    ])
    expect(readFileSync(join(root, 'b', 'journal.yaml'), 'utf8')).toBe(before)
  })
})

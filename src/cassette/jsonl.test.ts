import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import * as z from 'zod/mini'
import { isFluxError } from '../errors.js'
import { useFixtureStore } from '../store/current.js'
import { memoryStore } from '../store/memory.js'
import { problemOf, refuseSecrets } from './fixture-error.js'
import { parseJsonl, readJsonl } from './jsonl.js'
import { scanText } from './scan.js'

let store = memoryStore()
let restore = () => {}
beforeEach(() => {
  store = memoryStore()
  restore = useFixtureStore(store)
})
afterEach(() => restore())
const file = (text: string) => {
  store.writeFile('/virtual/jsonl/cells.jsonl', text)
  return '/virtual/jsonl/cells.jsonl'
}
const thrown = (fn: () => unknown): Error => {
  try {
    fn()
  } catch (e) {
    return e as Error
  }
  throw new Error('expected a throw')
}

const schema = z.looseObject(
  { seq: z.number('expected a numeric "seq"'), body: z.optional(z.looseObject({ n: z.number('expected a number') })) },
  'expected a JSON object',
)
const opts = { schema, fix: 'Fix the line by hand.', scan: { fix: 'Remove the secret.' } }
/** A secret-looking value built at run time (so no scanner flags this file). */
const KEY = ['sk', 'proj', 'Q'.repeat(12) + 'w7'.repeat(12)].join('-')
const JWT = ['eyJhbGciOiJIUzI1NiJ9', 'eyJzdWIiOiIxMjM0NTY3ODkwIn0', 'dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'].join('.')

describe('readJsonl', () => {
  it('reads every non-blank line with its 1-based line number', () => {
    const f = file('{"seq":1}\n\n  \n{"seq":2,"body":{"n":3}}\n')
    expect(readJsonl(f, opts)).toEqual({
      lines: [
        { line: 1, value: { seq: 1 } },
        { line: 4, value: { seq: 2, body: { n: 3 } } },
      ],
      problems: [],
      tornTail: false,
    })
  })

  it('reads nothing from a missing file, or fails naming it when the file is required', () => {
    const missing = join('/virtual', 'flux-no-such-dir', 'model.jsonl')
    expect(readJsonl(missing, opts).lines).toEqual([])
    const e = thrown(() => readJsonl(missing, { ...opts, missing: 'Restore it.' }))
    expect(isFluxError(e, 'FLUX_FIXTURE_INVALID')).toBe(true)
    expect(e.message).toMatch(/Failed to read fixture .*model\.jsonl: the file is missing\. Restore it\.$/)
    expect(problemOf(e)).toEqual({ file: missing, reason: 'the file is missing', fix: 'Restore it.' })
  })

  it('refuses a file over 256 MiB before parsing it, with its size', () => {
    const f = '/virtual/jsonl/big.jsonl'
    const e = thrown(() => parseJsonl(new Uint8Array(256 * 1024 * 1024 + 1), f, opts)) // zero pages: never written, so never in memory
    expect(isFluxError(e, 'FLUX_FIXTURE_INVALID')).toBe(true)
    expect(e.message).toContain(`the file is ${256 * 1024 * 1024 + 1} bytes, more than the ${256 * 1024 * 1024} fluxlab reads`)
    expect(problemOf(e)).toMatchObject({ file: f })
  })

  it('fails at a line that is not JSON, carrying file and line as fields', () => {
    const f = file('{"seq":1}\n{"seq": 2, oops\n')
    const e = thrown(() => readJsonl(f, opts))
    expect(e.message).toMatch(/^\[fluxlab\] FLUX_FIXTURE_INVALID: Failed to read fixture .*cells\.jsonl:2: not valid JSON \(.*\) Fix the line by hand\.$/)
    expect(problemOf(e)).toMatchObject({ file: f, line: 2, fix: 'Fix the line by hand.' })
    expect(problemOf(e)?.reason).toMatch(/^not valid JSON/)
  })

  it('fails at a line of the wrong shape, naming the field', () => {
    const e = thrown(() => readJsonl(file('{"seq":1}\n{"seq":2,"body":{"n":"3"}}\n'), { ...opts, noun: 'journal' }))
    expect(e.message).toMatch(/Failed to read journal .*cells\.jsonl:2: expected a number at body\.n, found "3"\./)
    expect(problemOf(e)).toMatchObject({ line: 2, field: 'body.n', reason: 'expected a number at body.n, found "3"' })
    expect(problemOf(thrown(() => readJsonl(file('[1]\n'), opts)))).toMatchObject({ line: 1, reason: 'expected a JSON object, found an array of 1' })
    expect(problemOf(thrown(() => readJsonl(file('{}\n'), opts)))).toMatchObject({
      line: 1,
      field: 'seq',
      reason: 'expected a numeric "seq", found nothing: the field is missing',
    })
  })

  it('turns a line nested 100,000 deep into FLUX_FIXTURE_INVALID naming file:line, not a stack overflow', () => {
    const deep = `{"seq":2,"body":${'['.repeat(100_000)}${']'.repeat(100_000)}}`
    const f = file(`{"seq":1}\n${deep}\n`)
    const e = thrown(() => readJsonl(f, opts))
    expect(e).not.toBeInstanceOf(RangeError)
    expect(isFluxError(e, 'FLUX_FIXTURE_INVALID')).toBe(true)
    expect(e.message).toMatch(/cells\.jsonl:2: its JSON nests deeper than 1000 levels, more than fluxlab reads\./)
    expect(problemOf(e)).toMatchObject({ file: f, line: 2 })
    // the secret scan of the same text walks it without recursion
    expect(scanText(`${deep}\n`)).toEqual([])
    expect(readJsonl(file(`{"seq":1,"x":${'['.repeat(999)}${']'.repeat(999)}}\n`), opts).lines).toHaveLength(1)
  })

  it('collects every bad line instead of throwing when asked', () => {
    const { lines, problems } = readJsonl(file('{"seq":1}\nnope\n[2]\n{"seq":4}'), { ...opts, collect: true })
    expect(lines.map((l) => l.line)).toEqual([1, 4])
    expect(problems.map((p) => [p.line, p.reason.slice(0, 14)])).toEqual([
      [2, 'not valid JSON'],
      [3, 'expected a JSO'],
    ])
  })

  it('reports text after the last newline as a torn tail, never parsing it', () => {
    const torn = readJsonl(file('{"seq":1}\n{"seq":2,"bo'), { ...opts, tornTail: true })
    expect(torn).toEqual({ lines: [{ line: 1, value: { seq: 1 } }], problems: [], tornTail: true })
    expect(readJsonl(file('{"seq":1}\n'), { ...opts, tornTail: true }).tornTail).toBe(false)
  })

  it('scans the whole text for secrets first, naming line and JSON path, never the value', () => {
    const f = file(`{"seq":1}\n{"seq":"bad","body":{"note":"key ${KEY}"}}\n`)
    const e = thrown(() => readJsonl(f, opts))
    expect(isFluxError(e, 'FLUX_CREDENTIAL_FOUND')).toBe(true)
    expect(e.message).toMatch(
      /Failed to read fixture .*cells\.jsonl: found 1 secret-looking value \(credential_found\)\. Remove the secret\.\n {2}• cells\.jsonl:2 body\.note \(openai-key\)$/,
    )
    expect(e.message).not.toContain(KEY)
    expect(readJsonl(f, { ...opts, scan: false, collect: true }).problems).toHaveLength(1)
  })

  it('skips the rules the redactor disabled', () => {
    const f = file(`{"seq":1,"token":"${JWT}"}\n`)
    expect(() => readJsonl(f, opts)).toThrow(/\(jwt\)/)
    expect(readJsonl(f, { ...opts, scan: { ...opts.scan, disable: ['jwt'] } }).lines).toHaveLength(1)
  })

  it('never carries a secret in the problem it reports', () => {
    const e = thrown(() => readJsonl(file(`{"seq": "${KEY}" oops\n`), { ...opts, scan: false }))
    expect(e.message).toContain('not valid JSON')
    expect(JSON.stringify(problemOf(e))).not.toContain(KEY)
    expect(e.message).not.toContain(KEY)
  })
})

describe('problemOf', () => {
  it('is undefined for any other error', () => {
    expect(problemOf(new Error('x'))).toBeUndefined()
    expect(problemOf(undefined)).toBeUndefined()
    expect(problemOf(thrown(() => refuseSecrets([{ rule: 'jwt', line: 1 }], { failed: 'write x', fix: 'Do y.' })))).toBeUndefined()
  })

  // issue 14: a big file is read in blocks of whole lines (256 KiB); line numbers, long lines and the torn tail are as one read gives
  it('reads a file of several blocks with exact line numbers, a line longer than a block, and a torn tail', () => {
    const pad = 'p'.repeat(1000)
    const lines = Array.from({ length: 6000 }, (_, i) => JSON.stringify({ seq: i + 1, pad }))
    lines[4999] = JSON.stringify({ seq: 5000, long: 'q'.repeat(5 * 1024 * 1024) })
    lines[5499] = '{"seq": oops'
    const f = file(`${lines.join('\n')}\n{"seq":6001,"cut`)
    const read = readJsonl<{ seq: number }>(f, { ...opts, collect: true, tornTail: true })
    expect(read.lines.length).toBe(5999)
    expect(read.lines.every((l) => l.value.seq === l.line)).toBe(true)
    expect(read.problems.map((p) => p.line)).toEqual([5500])
    expect(read.tornTail).toBe(true)
    lines[5499] = JSON.stringify({ seq: 5500, body: { n: 1, k: KEY } })
    const e = thrown(() => readJsonl(file(lines.join('\n')), opts))
    expect(isFluxError(e, 'FLUX_CREDENTIAL_FOUND')).toBe(true)
    expect(e.message).toContain('cells.jsonl:5500 body.k (openai-key)')
  })
})

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  describeJudgeTapeReport,
  finishJudgeTapes,
  isJudgeEntry,
  judgeEntrySchema,
  markUsed,
  readJudgeTape,
  serializeJudgeTape,
  writeJudgeTape,
  type JudgeEntry,
} from './tape.js'

const dirs: string[] = []
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'flux-tape-'))
  dirs.push(d)
  return d
}
afterEach(() => {
  finishJudgeTapes({ prune: false, env: {} })
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const entry = (criterion: string, over: Partial<JudgeEntry> = {}): JudgeEntry => ({
  key: `sha256:${criterion.length.toString(16).padStart(64, '0')}`,
  criterion,
  model: 'openai/gpt-4.1-mini',
  verdict: 'PASS',
  rationale: 'ok',
  textDigest: 'sha256:0123456789abcdef',
  recordedAt: '2026-01-02T03:04:05.000Z',
  templateVersion: 1,
  ...over,
})

describe('serializeJudgeTape', () => {
  it('writes one verdict a line with sorted keys, ordered by criterion, judge and key', () => {
    const text = serializeJudgeTape([entry('b criterion'), entry('a', { model: 'z/judge' }), entry('a', { score: 0.5, threshold: 0.4 })])
    expect(text).toMatchInlineSnapshot(`
      "{"criterion":"a","key":"sha256:0000000000000000000000000000000000000000000000000000000000000001","model":"openai/gpt-4.1-mini","rationale":"ok","recordedAt":"2026-01-02T03:04:05.000Z","score":0.5,"templateVersion":1,"textDigest":"sha256:0123456789abcdef","threshold":0.4,"verdict":"PASS"}
      {"criterion":"a","key":"sha256:0000000000000000000000000000000000000000000000000000000000000001","model":"z/judge","rationale":"ok","recordedAt":"2026-01-02T03:04:05.000Z","templateVersion":1,"textDigest":"sha256:0123456789abcdef","verdict":"PASS"}
      {"criterion":"b criterion","key":"sha256:000000000000000000000000000000000000000000000000000000000000000b","model":"openai/gpt-4.1-mini","rationale":"ok","recordedAt":"2026-01-02T03:04:05.000Z","templateVersion":1,"textDigest":"sha256:0123456789abcdef","verdict":"PASS"}
      "
    `)
    expect(serializeJudgeTape([])).toBe('')
  })
})

describe('readJudgeTape', () => {
  it('reads nothing from a scenario without judge.jsonl', () => {
    expect(readJudgeTape(temp())).toEqual([])
  })

  it('round-trips what writeJudgeTape wrote', () => {
    const dir = temp()
    const entries = [entry('one'), entry('three', { verdict: 'FAIL', score: 0.1 })]
    writeJudgeTape(dir, entries)
    expect(readJudgeTape(dir)).toEqual(entries)
  })

  it('names the file and line of a line that is not a verdict', () => {
    const dir = temp()
    const file = join(dir, 'judge.jsonl')
    writeFileSync(file, `${JSON.stringify(entry('one'))}\n<<<<<<< HEAD\n`)
    expect(() => readJudgeTape(dir)).toThrow(/FLUX_FIXTURE_INVALID: Failed to read .*judge\.jsonl:2: not valid JSON/)
    writeFileSync(file, `${JSON.stringify({ ...entry('one'), verdict: 'MAYBE' })}\n`)
    expect(() => readJudgeTape(dir)).toThrow(/judge\.jsonl:1: expected "verdict" to be "PASS" or "FAIL"/)
    writeFileSync(file, `${JSON.stringify(entry('one'))}\n${JSON.stringify({ ...entry('one'), verdict: 'FAIL' })}\n`)
    expect(() => readJudgeTape(dir)).toThrow(/judge\.jsonl:2: the key repeats line 1 \(a merge kept both verdicts\?\); delete one of the two lines/)
  })
})

describe('readJudgeTape fixes', () => {
  it("name the command that re-grades: the scenario's source test", () => {
    const dir = temp()
    writeFileSync(
      join(dir, 'scenario.yaml'),
      'formatVersion: 1\nname: refund\nsource:\n  file: test/refund.test.ts\n  name: refund > is polite\n  runner: vitest\n',
    )
    writeFileSync(join(dir, 'judge.jsonl'), '{"key":"sha256:1"}\n')
    expect(() => readJudgeTape(dir)).toThrow(
      /judge\.jsonl:1: expected a string "criterion", found nothing: the field is missing\. Fix the line by hand, or delete it and re-grade with `FLUX_GOLDEN=judge npx vitest run test\/refund\.test\.ts -t '\^refund is polite\$'`\.$/,
    )
  })
})

describe('writeJudgeTape', () => {
  it('writes nothing when the text holds a secret, naming where and never the value', () => {
    const dir = temp()
    writeJudgeTape(dir, [entry('one')])
    const before = readFileSync(join(dir, 'judge.jsonl'), 'utf8')
    const secret = `sk-ant-api03-${'Z9y8'.repeat(12)}`
    expect(() => writeJudgeTape(dir, [entry('one'), entry('two', { rationale: `echo ${secret}` })])).toThrow(
      /FLUX_CREDENTIAL_FOUND: Failed to write .*judge\.jsonl: found 1 secret-looking value \(credential_found\)\. Nothing was written\.[\s\S]*• judge\.jsonl:2 rationale \(anthropic-key\)/,
    )
    expect(readFileSync(join(dir, 'judge.jsonl'), 'utf8')).toBe(before)
  })

  it('lets a rule the user disabled through', () => {
    const dir = temp()
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'
    expect(() => writeJudgeTape(dir, [entry('one', { rationale: jwt })])).toThrow(/\(jwt\)/)
    writeJudgeTape(dir, [entry('one', { rationale: jwt })], { disable: ['jwt'] })
    expect(readJudgeTape(dir, { disable: ['jwt'] })[0].rationale).toBe(jwt)
  })
})

describe('finishJudgeTapes', () => {
  it('reports verdicts no judge call used, without writing when the switch is off', () => {
    const dir = temp()
    const [used, unused] = [entry('used'), entry('not used any more')]
    writeJudgeTape(dir, [used, unused])
    const before = readFileSync(join(dir, 'judge.jsonl'), 'utf8')
    markUsed(dir, 'refund', used.key)
    const reports = finishJudgeTapes({ env: {} })
    expect(reports).toEqual([{ file: join(dir, 'judge.jsonl'), scenario: 'refund', unused: [unused], pruned: false }])
    expect(describeJudgeTapeReport(reports[0])).toMatch(
      /^\[fluxlab\] .*judge\.jsonl \(scenario "refund"\): 1 verdict no judge call used in this run \(FLUX_GOLDEN=judge prunes them\)\n {2}• "not used any more" by openai\/gpt-4\.1-mini \(PASS\)$/,
    )
    expect(readFileSync(join(dir, 'judge.jsonl'), 'utf8')).toBe(before)
    expect(finishJudgeTapes({ env: {} })).toEqual([])
  })

  it('prunes them under FLUX_GOLDEN=judge or update', () => {
    for (const golden of ['judge', 'update']) {
      const dir = temp()
      const [used, unused] = [entry('used'), entry('not used any more')]
      writeJudgeTape(dir, [used, unused])
      markUsed(dir, 'refund', used.key)
      const [report] = finishJudgeTapes({ env: { FLUX_GOLDEN: golden } })
      expect(report.pruned).toBe(true)
      expect(describeJudgeTapeReport(report)).toContain('pruned 1 verdict no judge call used in this run')
      expect(readJudgeTape(dir)).toEqual([used])
    }
  })

  it('never prunes a file this process did not touch', () => {
    const dir = temp()
    writeJudgeTape(dir, [entry('someone else')])
    expect(finishJudgeTapes({ env: { FLUX_GOLDEN: 'judge' } })).toEqual([])
    expect(readJudgeTape(dir)).toHaveLength(1)
  })

  it('keeps a touched file whose verdicts were all used', () => {
    const dir = temp()
    const e = entry('used')
    writeJudgeTape(dir, [e])
    markUsed(dir, 'refund', e.key)
    expect(finishJudgeTapes({ env: { FLUX_GOLDEN: 'judge' } })).toEqual([])
    expect(existsSync(join(dir, 'judge.jsonl'))).toBe(true)
  })
})

describe('isJudgeEntry', () => {
  it('accepts exactly the lines the schema accepts (the read path asks zod only about a line it refuses)', () => {
    const good = entry('one', { score: 0.5, threshold: 0.4, instructions: 'be strict' })
    const lines: unknown[] = [good, { ...good, extra: 'kept' }, entry('two'), null, [], 'x', 3, {}]
    for (const field of Object.keys(good))
      for (const value of [undefined, null, '', 'sha256:x', 'PASS', 'MAYBE', 0, 1, Infinity, Number.NaN, [], {}, true]) lines.push({ ...good, [field]: value })
    const disagree = lines.filter((v) => isJudgeEntry(v) !== judgeEntrySchema.safeParse(v).success)
    expect(disagree).toEqual([])
    expect(lines.filter((v) => isJudgeEntry(v)).length).toBeGreaterThan(10)
  })
})

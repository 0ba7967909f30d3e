import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { useFixtureStore } from '../store/current.js'
import { memoryStore } from '../store/memory.js'
import type { Manifest, ModelCell } from './cell.js'
import { existingFixture, readFixture, readFixtureLines } from './fixture.js'
import { readSource, rerecordCommand } from './fixture-source.js'
import { problemOf } from './fixture-error.js'
import { testManifest, testModelCell, writeTestFixture } from '../../test/support/fixture-cells.js'

let store = memoryStore()
let restore = () => {}
beforeEach(() => {
  store = memoryStore()
  restore = useFixtureStore(store)
})
afterEach(() => restore())
let roots = 0
const readFileSync = (file: string, _: 'utf8') => Buffer.from(store.readFile(file)!).toString('utf8')
const writeFileSync = (file: string, text: string) => store.writeFile(file, text)
const remove = (file: string) => store.writeFixture(join(file, '..'), {}, [file.split('/').pop()!])

const manifest = testManifest
const model = testModelCell

/** A fixture at `/virtual-<n>/tests/scenarios/<name>` of the store in use, written by writeFixture. */
const fixture = (m: Manifest = manifest()): string => writeTestFixture(`/virtual-${++roots}`, m)
const breakLine = (dir: string, line: number, text = '{"seq": 2, oops') => {
  const file = join(dir, 'model.jsonl')
  const lines = readFileSync(file, 'utf8').split('\n')
  lines[line - 1] = text
  writeFileSync(file, lines.join('\n'))
}
const errorOf = (fn: () => unknown): Error => {
  try {
    fn()
  } catch (e) {
    return e as Error
  }
  throw new Error('expected a throw')
}

describe('readFixtureLines', () => {
  it('gives each cell the line it was read from', () => {
    const dir = fixture()
    writeFileSync(join(dir, 'model.jsonl'), `\n${readFileSync(join(dir, 'model.jsonl'), 'utf8').replace('\n', '\n\n')}`)
    const { fixture: fx, lines } = readFixtureLines(dir)
    expect(fx.model.map((c) => c.seq)).toEqual([1, 3])
    expect(lines).toEqual({ model: [2, 4], tools: [1] })
  })
})

describe('the fix of a read error', () => {
  it('names the exact command of the test that recorded the fixture', () => {
    const dir = fixture(manifest({ source: { file: 'test/weather.test.ts', name: 'weather > answers', runner: 'vitest' } }))
    breakLine(dir, 2)
    const e = errorOf(() => readFixture(dir))
    expect(e.message).toContain('model.jsonl:2: not valid JSON')
    expect(e.message).toContain(
      "Fix the line by hand or re-record the scenario with `FLUX_GOLDEN=update npx vitest run test/weather.test.ts -t '^weather answers$'`.",
    )
    expect(problemOf(e)).toMatchObject({ file: join(dir, 'model.jsonl'), line: 2 })
  })

  it('names both runners when the manifest does not say which one recorded it', () => {
    const dir = fixture(manifest({ formatVersion: 0, source: { file: 'a.test.ts', name: 'x' } }))
    expect(() => readFixture(dir)).toThrow(
      "Re-record it with `FLUX_GOLDEN=update npx vitest run a.test.ts -t '^x$' (or FLUX_GOLDEN=update npx jest a.test.ts -t '^x$')`.",
    )
  })

  it('names the fluxlab record command of a CLI recording', () => {
    const dir = fixture(manifest({ name: 'triage', input: { command: ['node', 'agent.mjs'] } }))
    breakLine(dir, 1, '[]')
    const e = errorOf(() => readFixture(dir))
    expect(e.message).toContain('model.jsonl:1: expected a JSON object (one model call), found an array of 0. Fix the line by hand')
    expect(e.message).toMatch(/re-record the scenario with `FLUX_GOLDEN=update npx fluxlab record triage --dir \/\S+\/tests\/scenarios -- node agent\.mjs`\.$/)
  })

  it('without a source, names the test it is given, this process, or nothing', () => {
    const dir = fixture()
    breakLine(dir, 2)
    expect(errorOf(() => readFixture(dir, { rerun: { runner: 'jest', file: 't.test.js', name: 'it works' } })).message).toContain(
      "`FLUX_GOLDEN=update npx jest t.test.js -t '^it works$'`.",
    )
    expect(errorOf(() => readFixture(dir)).message).toMatch(/re-record the scenario with `FLUX_GOLDEN=update node \S+/)
    expect(errorOf(() => readFixture(dir, { rerun: false })).message).toMatch(
      /re-record the scenario with FLUX_GOLDEN=update \(scenario\.yaml names no test to run again\)\.$/,
    )
    expect(rerecordCommand(manifest(), dir)).toBeUndefined()
  })
})

describe('readFixture', () => {
  it('refuses a model.jsonl line nested 100,000 deep with FLUX_FIXTURE_INVALID naming model.jsonl and its line', () => {
    const dir = fixture()
    breakLine(
      dir,
      2,
      JSON.stringify({ ...model(3), request: { method: 'POST', path: '/', body: null } }).replace('null', `${'['.repeat(100_000)}${']'.repeat(100_000)}`),
    )
    const e = errorOf(() => readFixture(dir))
    expect(e).not.toBeInstanceOf(RangeError)
    expect(e.message).toMatch(/^\[fluxlab\] FLUX_FIXTURE_INVALID: Failed to read fixture .*model\.jsonl:2: its JSON nests deeper than 1000 levels/)
  })
})

describe('readSource', () => {
  it('reads the source test of scenario.yaml, or nothing', () => {
    const source = { file: 'test/a.test.ts', name: 'a', project: 'unit', runner: 'jest' as const }
    expect(readSource(fixture(manifest({ source })))).toEqual(source)
    expect(readSource(fixture())).toBeUndefined()
    expect(readSource('/virtual/flux-no-such-fixture')).toBeUndefined()
  })
})

describe('readFixture keeps what it read (issue 14)', () => {
  it('reads an unchanged fixture once and hands out one frozen result', () => {
    const dir = fixture()
    const a = readFixture(dir)
    expect(readFixture(dir)).toBe(a)
    expect(Object.isFrozen(a.model[0].response.chunks[0])).toBe(true)
    expect(() => (a.model as ModelCell[]).push(model(9))).toThrow(TypeError)
  })

  it('answers whether a fixture is there and what it is with one look at its files: gone once its manifest is', () => {
    const dir = fixture()
    const a = readFixture(dir)
    expect(existingFixture(dir)).toBe(a)
    remove(join(dir, 'scenario.yaml'))
    expect(existingFixture(dir)).toBeUndefined()
    expect(existingFixture('/virtual/flux-no-such-fixture')).toBeUndefined()
  })

  it('reads again under another `disable` (the secret scan depends on it)', () => {
    const dir = fixture()
    const a = readFixture(dir)
    expect(readFixture(dir, { disable: ['openai-key'] })).not.toBe(a)
  })
})

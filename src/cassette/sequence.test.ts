import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isFluxError } from '../errors.js'
import { useFixtureStore } from '../store/current.js'
import { memoryStore } from '../store/memory.js'
import { writeFixture } from './fixture-write.js'
import { sequenceGap } from './sequence.js'
import { testManifest, testToolCell } from '../../test/support/fixture-cells.js'

const store = memoryStore()
let restore = () => {}
beforeEach(() => {
  restore = useFixtureStore(store)
})
afterEach(() => restore())

const m = (seq: number, n: number) => ({ seq, step: `model#${n}` })
const t = (seq: number, n: number) => ({ seq, step: `tool#${n}` })

describe('sequenceGap', () => {
  it('finds no gap when the seqs of both files together are 1…n', () => {
    expect(sequenceGap({ model: [m(2, 1), m(5, 2)], tools: [t(1, 1), t(3, 2), t(4, 3)] })).toBeUndefined()
    expect(sequenceGap({ model: [], tools: [] })).toBeUndefined()
  })

  it('names the missing seq, and the file and step whose numbers jump over it', () => {
    expect(sequenceGap({ model: [m(1, 1), m(4, 2)], tools: [t(2, 1), t(5, 3)] })).toEqual({ seq: 3, file: 'tools.jsonl', step: 'tool#2' })
    expect(sequenceGap({ model: [m(2, 2)], tools: [] })).toEqual({ seq: 1, file: 'model.jsonl', step: 'model#1' })
  })

  it('names the seq alone when no step number says which file lost it', () => {
    expect(sequenceGap({ model: [m(1, 1)], tools: [t(3, 1)] })).toEqual({ seq: 2 })
  })
})

describe('writeFixture', () => {
  const manifest = testManifest({ name: 'gap' })
  const tool = (seq: number, n: number) => testToolCell(seq, { step: `tool#${n}`, key: `sha256:${String(seq).repeat(64).slice(0, 64)}`, output: n })

  it('refuses a fixture with a gap in its call sequence, naming the file and the missing seq, and writes nothing', () => {
    const dir = join('/virtual/seq', 'gap')
    let error: unknown
    try {
      writeFixture({ dir, manifest, model: [], tools: [tool(1, 1), tool(3, 3)] })
    } catch (e) {
      error = e
    }
    expect(isFluxError(error, 'FLUX_FIXTURE_INVALID')).toBe(true)
    expect((error as Error).message).toMatch(
      /^\[fluxlab\] FLUX_FIXTURE_INVALID: Failed to write fixture \S*gap\/tools\.jsonl: its call sequence has a gap: seq 2 \(tool#2\) is missing/,
    )
    expect(store.exists(dir)).toBe(false)
  })

  it('writes a fixture whose sequence is whole', () => {
    const dir = join('/virtual/seq', 'whole')
    writeFixture({ dir, manifest, model: [], tools: [tool(1, 1), tool(2, 2)] })
    expect(store.exists(join(dir, 'tools.jsonl'))).toBe(true)
  })
})

/**
 * Issue 14: a cold read checks the bytes (schema, secret scan) and nothing else; each model cell is checked
 * against its chunks, and frozen, when it is first handed out.
 */
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { useFixtureStore } from '../store/current.js'
import { memoryStore } from '../store/memory.js'
import { derivedMismatch } from './derived.js'
import { readFixture, readFixtureLines } from './fixture.js'
import { writeFixture } from './fixture-write.js'
import { rawCells } from './handout.js'
import { testManifest, testModelCell, testToolCell } from '../../test/support/fixture-cells.js'

vi.mock('./derived.js', async (original) => {
  const m = await original<typeof import('./derived.js')>()
  return { ...m, derivedMismatch: vi.fn(m.derivedMismatch) }
})
const checks = vi.mocked(derivedMismatch)

let restore = () => {}
beforeEach(() => {
  restore = useFixtureStore(memoryStore())
})
afterEach(() => {
  restore()
  checks.mockClear()
})

const model = testModelCell
const tool = testToolCell(4, { key: `sha256:${'9'.repeat(64)}`, output: { n: 1 } })

function fixture(cells = [model(1), model(2), model(3)]): string {
  const dir = join('/virtual/handout', 'weather')
  writeFixture({ dir, manifest: testManifest(), model: cells, tools: [{ ...tool, seq: cells.length + 1 }] })
  return dir
}

describe('a model cell is checked against its chunks when its fixture is handed out (issues 14 and 40)', () => {
  it('a read checks every cell once, for every reader of the kept read; reading a cell checks nothing more', () => {
    const dir = fixture()
    const fx = readFixture(dir)
    expect(checks).toHaveBeenCalledTimes(3)
    expect(fx.model[1].text).toBe('Sunny')
    void readFixture(dir, { rerun: false }).model[1]
    expect(fx.model.map((c) => c.seq)).toEqual([1, 2, 3])
    expect(checks).toHaveBeenCalledTimes(3)
    expect(rawCells(fx.model)!.ready).toEqual(new Uint8Array([1, 1, 1]))
  })

  it('every good cell is frozen when the fixture is handed out; a bad one stays unready and throws when read', () => {
    const fx = readFixture(fixture([model(1), { ...model(2), text: 'edited' }, model(3)]), { rerun: false })
    const { raw, ready } = rawCells(fx.model)!
    expect(Object.isFrozen(raw[0].response.chunks[0])).toBe(true)
    expect(Object.isFrozen(raw[1])).toBe(false)
    expect(ready).toEqual(new Uint8Array([1, 0, 1]))
    expect(() => (fx.model[2].usage as { input: number }).input++).toThrow(TypeError)
    expect(() => fx.model[1]).toThrow(/its stored "text" is "edited"/)
    expect(Object.isFrozen(fx.tools[0].output)).toBe(true)
  })

  it('hands out no cell another way: descriptors, spreads, JSON and iteration check each cell', () => {
    const dir = fixture([model(1), { ...model(2), text: 'edited' }])
    const fx = readFixture(dir, { rerun: false })
    const edited = /model\.jsonl:2: its stored "text" is "edited", but its response\.chunks say "Sunny"/
    expect(fx.model[0].text).toBe('Sunny')
    expect(() => fx.model[1]).toThrow(edited)
    expect(() => Object.getOwnPropertyDescriptor(fx.model, 1)).toThrow(edited)
    expect(() => [...fx.model]).toThrow(edited)
    expect(() => JSON.stringify(fx.model)).toThrow(edited)
    expect(() => fx.model.find((c) => c.seq === 2)).toThrow(edited)
    expect(() => Object.values(fx.model)).toThrow(edited)
  })

  it('readFixtureLines (fluxlab test) checks every cell up front', () => {
    const dir = fixture([model(1), { ...model(2), text: 'edited' }])
    const { problems } = readFixtureLines(dir, { rerun: false, collect: true })
    expect(checks).toHaveBeenCalledTimes(2)
    expect(problems.map((p) => [p.line, p.field])).toEqual([[2, 'text']])
  })
})

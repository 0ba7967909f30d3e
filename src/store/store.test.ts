// One contract, two stores (issue 40 item 3): what src/cassette relies on, held by the node:fs store and the in-memory one.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { memoryStore } from './memory.js'
import { nodeStore } from './node.js'
import type { FixtureStore } from './store.js'

const disk = mkdtempSync(join(tmpdir(), 'flux-store-'))
afterAll(() => rmSync(disk, { recursive: true, force: true }))

const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : Buffer.from(b).toString('utf8'))

describe.each([
  ['node', () => nodeStore(), disk],
  ['memory', () => memoryStore(), '/virtual'],
] as Array<[string, () => FixtureStore, string]>)('the %s store', (name, make, root) => {
  const store = make()
  const at = (...p: string[]) => join(root, name, ...p)
  const NAMES = ['scenario.yaml', 'model.jsonl', 'tools.jsonl']

  test('reads nothing where no fixture was written, and a written fixture whole', () => {
    expect(store.read(at('weather'), NAMES)).toBeUndefined()
    expect(store.exists(at('weather', 'scenario.yaml'))).toBe(false)
    store.writeFixture(at('weather'), { 'scenario.yaml': 'name: weather\n', 'model.jsonl': '{"seq":1}\n' })
    const read = store.read(at('weather'), NAMES)!
    expect(read.files.map(text)).toEqual(['name: weather\n', '{"seq":1}\n', undefined])
    expect(read.entries).toEqual(['model.jsonl', 'scenario.yaml'])
    expect(store.exists(at('weather', 'scenario.yaml'))).toBe(true)
    expect(store.exists(at('weather'))).toBe(true)
  })

  test('a stamp holds until a file of the read changes; a rewrite drops what it names and keeps the rest', () => {
    const dir = at('capital')
    store.writeFixture(dir, { 'scenario.yaml': 'a', 'model.jsonl': '1\n', 'tools.jsonl': 't\n', 'judge.jsonl': 'j\n' })
    const { stamp } = store.read(dir, NAMES)!
    expect(store.unchanged(dir, NAMES, stamp)).toBe(true)
    store.writeFixture(dir, { 'scenario.yaml': 'b', 'model.jsonl': '2\n' }, ['tools.jsonl'])
    expect(store.unchanged(dir, NAMES, stamp)).toBe(false)
    const again = store.read(dir, NAMES)!
    expect(again.files.map(text)).toEqual(['b', '2\n', undefined])
    expect(text(store.readFile(join(dir, 'judge.jsonl')))).toBe('j\n')
    store.writeFile(join(dir, 'model.jsonl'), '3\n')
    expect(store.unchanged(dir, NAMES, again.stamp)).toBe(false)
  })

  test('appends whole lines to a file, created when missing', () => {
    const file = at('runs', 'run-1', 'journal.jsonl')
    const out = store.appendTo(file, { durable: true })
    out.append('{"a":1}\n')
    out.append('{"b":2}\n')
    out.close()
    expect(text(store.readFile(file))).toBe('{"a":1}\n{"b":2}\n')
    expect(() => out.append('x\n')).toThrow(/closed/)
  })

  test('lists the directories holding a marker, each before what it holds', () => {
    store.writeFixture(at('list', 'b'), { 'scenario.yaml': 'b' })
    store.writeFixture(at('list', 'a'), { 'scenario.yaml': 'a' })
    store.writeFixture(at('list', 'a', 'forks', 'x'), { 'scenario.yaml': 'x' })
    store.writeFile(at('list', 'c', 'other.txt'), 'c')
    expect(store.list(at('list'), 'scenario.yaml')).toEqual([at('list', 'a'), at('list', 'a', 'forks', 'x'), at('list', 'b')])
    expect(store.list(at('nowhere'), 'scenario.yaml')).toEqual([])
  })
})

test('the memory store remembers checked contents; it keeps every byte in memory', () => {
  const store = memoryStore()
  const memo = store.checked()!
  expect(memo.has('k')).toBe(false)
  memo.add('k')
  expect(memo.has('k')).toBe(true)
  store.writeFile('/v/x', 'y')
  expect([...store.files.keys()]).toEqual(['/v/x'])
})

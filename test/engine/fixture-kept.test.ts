// The node store keeps a fixture read while its files are unchanged on disk (issue 14, src/store/stamp.ts): a swap, an
// edit in place with the same size and times, a directory swapped by hand are each read again.
import { closeSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { readFixture } from '../../src/cassette/fixture.js'
import { writeFixture } from '../../src/cassette/fixture-write.js'
import { testManifest, testModelCell, testToolCell, writeTestFixture } from '../support/fixture-cells.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** A fixture at `<tmp>/tests/scenarios/<name>`, written by writeFixture. */
function fixture(): string {
  const root = mkdtempSync(join(tmpdir(), 'flux-fixture-'))
  dirs.push(root)
  return writeTestFixture(root)
}
describe('readFixture keeps what it read from disk (issue 14)', () => {
  const T = 1_700_000_000 // a fixed file time, in seconds: stat sizes and times below are equal on purpose
  const pin = (dir: string) => {
    for (const f of ['scenario.yaml', 'model.jsonl', 'tools.jsonl', '.']) utimesSync(join(dir, f), T, T)
  }
  /** Rewrite tools.jsonl in place (same inode), same size: the tool's output 1 becomes `to`. */
  const editOutput = (dir: string, to: number) => {
    const file = join(dir, 'tools.jsonl')
    const text = readFileSync(file, 'utf8')
    const next = text.replace(/"output":\d/, `"output":${to}`)
    expect(next.length).toBe(text.length)
    const fd = openSync(file, 'r+')
    writeSync(fd, next, 0, 'utf8')
    closeSync(fd)
  }
  const outputOf = (dir: string) => readFixture(dir).tools[0].output
  /** A fixture whose tool cell has no digest (as recorded before issue 28): its edits are read, not refused as digest_mismatch. */
  const undigested = () => {
    const dir = fixture()
    const file = join(dir, 'tools.jsonl')
    writeFileSync(file, readFileSync(file, 'utf8').replace(/"digest":"sha256:[0-9a-f]{64}",/, ''))
    return dir
  }

  it('reads a re-recorded fixture (the directory swapped whole) again, even with files of the same size and times', () => {
    const dir = fixture()
    pin(dir)
    expect(outputOf(dir)).toBe(1)
    writeFixture({ dir, manifest: testManifest(), model: [testModelCell(1), testModelCell(3)], tools: [testToolCell(2, { output: 7 })] })
    pin(dir)
    expect(outputOf(dir)).toBe(7)
  })

  it('reads a file edited in place with the same size and its old mtime again', () => {
    const dir = undigested()
    pin(dir)
    expect(outputOf(dir)).toBe(1)
    editOutput(dir, 5)
    pin(dir)
    expect(outputOf(dir)).toBe(5)
  })

  it('reads a file edited in place right after the read (same size, same time tick) again', () => {
    const dir = undigested()
    for (let i = 2; i < 10; i++) {
      readFixture(dir)
      editOutput(dir, i)
      expect(outputOf(dir)).toBe(i)
      const file = join(dir, 'tools.jsonl')
      writeFileSync(file, readFileSync(file, 'utf8').replace(/"output":\d/, '"output":1'))
    }
  })

  it('reads a directory swapped in by hand (another copy with equal sizes and times) again', () => {
    const dir = fixture()
    const other = `${dir}-other`
    writeFixture({ dir: other, manifest: testManifest(), model: [testModelCell(1), testModelCell(3)], tools: [testToolCell(2, { output: 8 })] })
    pin(dir)
    pin(other)
    expect(outputOf(dir)).toBe(1)
    renameSync(dir, `${dir}-old`)
    renameSync(other, dir)
    pin(dir)
    expect(outputOf(dir)).toBe(8)
  })
})

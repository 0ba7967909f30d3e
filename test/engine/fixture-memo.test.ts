/**
 * A content read clean once is only parsed by a later read (issue 14: the checks run once per distinct content,
 * not once per open; src/cassette/verified.ts). What must hold: a later read gives the same fixture, a changed
 * byte is checked in full again (a secret added after a clean read is still refused), a content that failed a
 * check of its bytes is never remembered (and a cell is still checked against its chunks when handed out), the bytes
 * hashed are the bytes checked, small fixtures and `FLUX_CACHE_DIR=off` leave
 * nothing behind, and an unwritable memo directory changes nothing but speed.
 */
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { generateFixture } from '../../bench/gen-fixture.mjs'
import { REPO } from '../e2e/support/project.js'

const scans = vi.hoisted(() => ({ n: 0, during: undefined as (() => void) | undefined }))
vi.mock('../../src/cassette/scan.js', async (importOriginal) => {
  const orig = await importOriginal<typeof import('../../src/cassette/scan.js')>()
  const during = () => {
    const f = scans.during
    scans.during = undefined
    f?.()
  }
  return { ...orig, scanJsonl: (...a: Parameters<typeof orig.scanJsonl>) => (scans.n++, during(), orig.scanJsonl(...a)) }
})
const { readFixture } = await import('../../src/cassette/fixture.js')
const { readJsonl } = await import('../../src/cassette/jsonl.js')
const { modelCellSchema } = await import('../../src/cassette/cell-schema.js')
const { memoDirIn } = await import('../../src/store/checked-memo.js')
const { nodeStore } = await import('../../src/store/node.js')

const root = mkdtempSync(join(tmpdir(), 'fluxlab-memo-'))
const big = join(root, 'big')
let n = 0
/** A fresh copy of `from` at a path no read has seen (readFixture also keeps reads per path in the process). */
const copyOf = (from: string) => {
  const to = join(root, `copy-${++n}`)
  cpSync(from, to, { recursive: true })
  return to
}
const memoEntries = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => e.name)
    : []
// A real-looking key, built here so no key-shaped literal is committed.
const fakeKey = () => ['sk', 'proj', 'Q7'.repeat(12) + 'x9Lm'.repeat(6)].join('-')

let memo: string
const saved = process.env.FLUX_CACHE_DIR
beforeAll(() => {
  // 120 cells of the capital-agent recording, varied: about 400 KB, over the size below which nothing is remembered.
  generateFixture(big, join(REPO, 'examples/scenarios/capital-agent'), 120)
})
afterEach(() => {
  if (saved === undefined) delete process.env.FLUX_CACHE_DIR
  else process.env.FLUX_CACHE_DIR = saved
})
afterAll(() => rmSync(root, { recursive: true, force: true }))
const useMemo = () => {
  memo = mkdtempSync(join(root, 'memo-'))
  process.env.FLUX_CACHE_DIR = memo
}

describe('a content read clean once', () => {
  it('is only parsed by a later read, which gives the same fixture', () => {
    useMemo()
    scans.n = 0
    const first = readFixture(copyOf(big))
    expect(scans.n).toBeGreaterThan(0)
    expect(memoEntries(memo)).toHaveLength(1)
    scans.n = 0
    const later = readFixture(copyOf(big))
    expect(scans.n).toBe(0)
    expect(later.model).toEqual(first.model)
    expect(later.tools).toEqual(first.tools)
    expect(memoEntries(memo)).toHaveLength(1)
  })

  it('is checked in full again when one byte changes: a secret added after a clean read is refused', () => {
    useMemo()
    readFixture(copyOf(big))
    const edited = copyOf(big)
    const file = join(edited, 'model.jsonl')
    writeFileSync(file, readFileSync(file, 'utf8').replace('Country 3?', `Country 3? ${fakeKey()}`))
    scans.n = 0
    expect(() => readFixture(edited)).toThrow(/FLUX_CREDENTIAL_FOUND[\s\S]*model\.jsonl:\d+/)
    expect(scans.n).toBeGreaterThan(0)
    expect(memoEntries(memo)).toHaveLength(1)
  })

  /** A copy of the big fixture with model.jsonl line 5 edited. */
  const editedLine5 = (edit: (cell: Record<string, any>) => void) => {
    const bad = copyOf(big)
    const file = join(bad, 'model.jsonl')
    const lines = readFileSync(file, 'utf8').split('\n')
    const cell = JSON.parse(lines[4])
    edit(cell)
    lines[4] = JSON.stringify(cell)
    writeFileSync(file, lines.join('\n'))
    return bad
  }

  it('is never remembered when it failed a check of its bytes, so every read refuses it', () => {
    useMemo()
    const bad = editedLine5((cell) => (cell.response.chunks[0].t = 'x'))
    expect(() => readFixture(bad)).toThrow(/FLUX_FIXTURE_INVALID[\s\S]*model\.jsonl:5[\s\S]*response\.chunks\[0\]\.t/)
    expect(memoEntries(memo)).toEqual([])
    expect(() => readFixture(copyOf(bad))).toThrow(/FLUX_FIXTURE_INVALID[\s\S]*model\.jsonl:5/)
  })

  it('still has each cell checked against its chunks at first use: a hand-edited cell is refused on a read that only parsed', () => {
    useMemo()
    const bad = editedLine5((cell) => (cell.text = 'edited by hand'))
    const edited = /FLUX_FIXTURE_INVALID[\s\S]*model\.jsonl:5: its stored "text" is "edited by hand"/
    expect(() => readFixture(bad).model[4]).toThrow(edited)
    expect(memoEntries(memo)).toHaveLength(1) // its bytes passed the scan and the schema
    scans.n = 0
    const later = readFixture(copyOf(bad))
    expect(scans.n).toBe(0)
    expect(later.model[3].seq).toBeDefined()
    expect(() => later.model[4]).toThrow(edited)
  })

  it("is checked in full again under secret rules with other anchors: a rule's anchors decide which texts it searches", async () => {
    useMemo()
    const dir = copyOf(big)
    const contents = ['model.jsonl', 'tools.jsonl'].map((f) => readFileSync(join(dir, f)))
    const { contentMemo } = await import('../../src/cassette/verified.js')
    contentMemo(nodeStore(), contents)!.passed()
    expect(contentMemo(nodeStore(), contents)!.trusted).toBe(true)
    vi.resetModules()
    vi.doMock('../../src/secrets/rules.js', async (importOriginal) => {
      const orig = await importOriginal<typeof import('../../src/secrets/rules.js')>()
      return { ...orig, SECRET_RULES: orig.SECRET_RULES.map((r) => (r.id === 'jwt' ? { ...r, anchors: [...r.anchors, 'eyK'] } : r)) }
    })
    try {
      const other = await import('../../src/cassette/verified.js')
      expect(other.contentMemo(nodeStore(), contents)!.trusted).toBe(false)
    } finally {
      vi.doUnmock('../../src/secrets/rules.js')
      vi.resetModules()
    }
  })

  it('checks the bytes it hashed: a file rewritten while the read checks them changes neither the read nor the memo', () => {
    useMemo()
    const withKey = copyOf(big)
    const tools = join(withKey, 'tools.jsonl')
    const clean = readFileSync(tools, 'utf8')
    writeFileSync(tools, clean.replace('City 3', `City 3 ${fakeKey()}`))
    const racing = copyOf(withKey)
    // while model.jsonl is checked (the store handed both files over already), tools.jsonl is rewritten clean.
    scans.during = () => writeFileSync(join(racing, 'tools.jsonl'), clean)
    expect(() => readFixture(racing)).toThrow(/FLUX_CREDENTIAL_FOUND[\s\S]*tools\.jsonl:\d+/)
    expect(memoEntries(memo)).toEqual([])
    expect(readFixture(racing).tools.length).toBe(40)
    expect(memoEntries(memo)).toHaveLength(1)
  })

  it('leaves nothing behind for a small fixture, nor with FLUX_CACHE_DIR=off', () => {
    useMemo()
    readFixture(copyOf(join(REPO, 'examples/scenarios/capital-agent')))
    expect(memoEntries(memo)).toEqual([])
    process.env.FLUX_CACHE_DIR = 'off'
    scans.n = 0
    readFixture(copyOf(big))
    readFixture(copyOf(big))
    expect(scans.n).toBeGreaterThan(1)
  })

  it('changes nothing but speed when the memo directory cannot be written', () => {
    // a memo directory under a regular file: no one can create it, root included.
    const blocker = join(root, `file-${++n}`)
    writeFileSync(blocker, '')
    process.env.FLUX_CACHE_DIR = join(blocker, 'memo')
    expect(readFixture(copyOf(big)).model.length).toBe(80)
    scans.n = 0
    expect(readFixture(copyOf(big)).model.length).toBe(80)
    expect(scans.n).toBeGreaterThan(0)
  })
})

describe('a trusted read whose lines do not parse', () => {
  it('checks every line, as an untrusted read does', () => {
    const dir = copyOf(big)
    const file = join(dir, 'model.jsonl')
    writeFileSync(file, readFileSync(file, 'utf8').replace('"seq":1,', '"seq":1,,'))
    const read = () => readJsonl(file, { schema: modelCellSchema, fix: 'Re-record it.', scan: { fix: 'Remove it.' }, trusted: true })
    expect(read).toThrow(/FLUX_FIXTURE_INVALID[\s\S]*model\.jsonl:1[\s\S]*not valid JSON/)
  })
})

describe('where the memo lives', () => {
  const uid = process.getuid?.()

  it("is FLUX_CACHE_DIR, else the project's node_modules/.cache, else the user's own directory under the temp dir", () => {
    const project = mkdtempSync(join(root, 'project-'))
    const tmp = mkdtempSync(join(root, 'tmp-'))
    expect(memoDirIn({ FLUX_CACHE_DIR: 'memo' }, project, tmp)).toBe(join(project, 'memo'))
    expect(memoDirIn({ FLUX_CACHE_DIR: 'off' }, project, tmp)).toBeUndefined()
    expect(memoDirIn({}, project, tmp)).toBe(join(tmp, `fluxlab-cache-${uid}`, 'verified'))
    expect(statSync(join(tmp, `fluxlab-cache-${uid}`)).mode & 0o777).toBe(0o700)
    mkdirSync(join(project, 'node_modules'))
    expect(memoDirIn({}, project, tmp)).toBe(join(project, 'node_modules/.cache/fluxlab/verified'))
  })

  it('is none when the directory under the temp dir is one others may write to, or not a directory', () => {
    const project = mkdtempSync(join(root, 'project-'))
    const open = mkdtempSync(join(root, 'tmp-'))
    mkdirSync(join(open, `fluxlab-cache-${uid}`))
    chmodSync(join(open, `fluxlab-cache-${uid}`), 0o777)
    expect(memoDirIn({}, project, open)).toBeUndefined()
    const planted = mkdtempSync(join(root, 'tmp-'))
    symlinkSync(mkdtempSync(join(root, 'elsewhere-')), join(planted, `fluxlab-cache-${uid}`))
    expect(memoDirIn({}, project, planted)).toBeUndefined()
  })
})

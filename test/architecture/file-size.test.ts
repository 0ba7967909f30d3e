// STYLE "Layout shows the architecture" / issue 25: a file past ~300 lines is usually two ideas. Every source file of
// src/ (unit tests, `*.test.ts`, excepted) is at most 300 lines; a longer one fails this test, named with its size.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'

const REPO = join(dirname(fileURLToPath(import.meta.url)), '../..')
const MAX_LINES = 300

/** The source files under `root`/src longer than {@link MAX_LINES}, as `src/x.ts: 301 lines`, longest first. */
function oversized(root: string): string[] {
  const found: Array<{ file: string; lines: number }> = []
  for (const entry of readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts')) continue
    const path = join(entry.parentPath, entry.name)
    const text = readFileSync(path, 'utf8')
    // counted as `wc -l` does: a last line without its line break counts too
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
    if (lines > MAX_LINES) found.push({ file: relative(root, path).split(sep).join('/'), lines })
  }
  return found.sort((a, b) => b.lines - a.lines || (a.file < b.file ? -1 : 1)).map((f) => `${f.file}: ${f.lines} lines`)
}

test(`every source file in src/ is at most ${MAX_LINES} lines`, () => {
  // Split a file named here by responsibility (one idea a file, named after what it exports), not by line count.
  expect(oversized(REPO)).toEqual([])
})

/**
 * Issue 40 item 5: no line of src/ over 160 characters. The formatter (Biome, `npm run lint`) wraps code at 160; text it
 * cannot break (messages, regular expressions, comments, examples) is split by hand, into named parts.
 */
const MAX_WIDTH = 160

/** The lines of src/ (unit tests excepted) longer than {@link MAX_WIDTH} characters, as `src/x.ts:12`. */
function longLines(root: string): string[] {
  const found: string[] = []
  for (const entry of readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts')) continue
    const path = join(entry.parentPath, entry.name)
    readFileSync(path, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if ([...line].length > MAX_WIDTH) found.push(`${relative(root, path).split(sep).join('/')}:${i + 1}`)
      })
  }
  return found.sort()
}

test(`no src/ line over ${MAX_WIDTH} characters`, () => {
  const found = longLines(REPO)
  expect(found.length, `the lines over ${MAX_WIDTH} characters:\n${found.join('\n')}`).toEqual(0)
})

test('the check names each longer file with its size, and passes tests and files at the limit', () => {
  const root = mkdtempSync(join(tmpdir(), 'flux-file-size-'))
  try {
    const write = (file: string, lines: number, last = '\n') => {
      mkdirSync(dirname(join(root, file)), { recursive: true })
      writeFileSync(join(root, file), `${Array.from({ length: lines }, (_, i) => `export const a${i} = ${i}`).join('\n')}${last}`)
    }
    write('src/at-limit.ts', MAX_LINES)
    write('src/cassette/long.ts', MAX_LINES + 1)
    write('src/cassette/longer.ts', MAX_LINES + 40, '')
    write('src/cassette/long.test.ts', MAX_LINES * 2)
    expect(oversized(root)).toEqual([`src/cassette/longer.ts: ${MAX_LINES + 40} lines`, `src/cassette/long.ts: ${MAX_LINES + 1} lines`])
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
})

// Issue 40 item 3: the fixture store is a port. `src/cassette` parses and verifies bytes; every file it reads or writes
// goes through the store (src/store/store.ts), whose one node:fs implementation is src/store/node.ts.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { REPO } from './support/trace-example.js'

/** The files of `folder` that import node:fs (or fs), with the line. */
function fsImports(folder: string, include: (file: string) => boolean): string[] {
  const dir = join(REPO, folder)
  const found: string[] = []
  for (const file of readdirSync(dir, { recursive: true }) as string[]) {
    if (!file.endsWith('.ts') || !include(file)) continue
    readFileSync(join(dir, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (/(from|import|require\()\s*\(?['"](node:)?fs(\/promises)?['"]/.test(line)) found.push(`${folder}/${file}:${i + 1}`)
      })
  }
  return found
}

describe('the fixture store port', () => {
  test('src/cassette imports no node:fs: it reads and writes through the fixture store', () => {
    expect(fsImports('src/cassette', (f) => !f.endsWith('.test.ts'))).toEqual([])
  })

  test("src/cassette's unit tests keep their fixtures in an in-memory store; only the two that read recorded traffic read files", () => {
    // @note these read the recorded provider traffic of test/fixtures (and run a built copy of the redactor): no fixture store is involved.
    const CORPUS_READERS = ['redact.test.ts', 'scan.test.ts']
    expect(fsImports('src/cassette', (f) => f.endsWith('.test.ts') && !CORPUS_READERS.includes(f))).toEqual([])
  })

  test('the check finds an import of node:fs, fs and fs/promises', () => {
    const lines = ["import { readFileSync } from 'node:fs'", 'import * as fs from "fs"', "const p = require('fs/promises')", "import { join } from 'node:path'"]
    expect(lines.filter((l) => /(from|import|require\()\s*\(?['"](node:)?fs(\/promises)?['"]/.test(l))).toHaveLength(3)
  })
})

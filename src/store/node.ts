/**
 * The fixture store on the file system: `node:fs` for all of fluxlab's fixture files. A fixture directory is replaced
 * whole (./atomic.ts: staged beside it, swapped in with two renames), read from one version of it even while a swap is
 * under way (./staging.ts), and stamped by its files' stats (./stamp.ts) so a kept read is checked with a `stat` each.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { AppendFile, writeDirAtomic, writeFileAtomic } from './atomic.js'
import { diskMemo } from './checked-memo.js'
import { stamps, unchangedSince, type FileStamp } from './stamp.js'
import { isTempEntry, readConsistent, settleSwap } from './staging.js'
import type { FixtureStore, StoredFiles } from './store.js'

const SKIP_DIRS = new Set(['node_modules', '.git'])

/**
 * The store that keeps fixtures in files.
 * @example
 * nodeStore().read('tests/scenarios/weather', ['scenario.yaml', 'model.jsonl'])
 */
export function nodeStore(): FixtureStore {
  return {
    read: (dir, names) => readConsistent(dir, () => readDir(dir, names)),
    unchanged: (dir, names, stamp) => unchangedSince(dir, names, stamp as Array<FileStamp | undefined>),
    exists(path) {
      // @note issue 28: a directory caught in a swap has no manifest; one that has it needs no settling (one `stat`, not two).
      if (existsSync(path)) return true
      settleSwap(dirname(path))
      return existsSync(path)
    },
    readFile,
    writeFixture: (dir, files, drop) => writeDirAtomic(dir, files, { drop }),
    writeFile: writeFileAtomic,
    appendTo(file, opts) {
      mkdirSync(dirname(file), { recursive: true })
      return new AppendFile(file, opts)
    },
    list: findDirs,
    checked: diskMemo,
  }
}

function readDir(dir: string, names: readonly string[]): StoredFiles | undefined {
  let entries: string[]
  try {
    entries = readdirSync(dir).filter((e) => !isTempEntry(e))
  } catch {
    return undefined
  }
  // @note stamped before the read: a change during the read leaves a stamp older than the content, so the next use
  // reads again (never the other way round).
  const stamp = stamps(dir, names)
  return { files: names.map((n) => (entries.includes(n) ? readFile(join(dir, n)) : undefined)), entries, stamp }
}

function readFile(file: string): Buffer | undefined {
  try {
    return readFileSync(file)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw e
  }
}

/** Every directory under `root` holding `marker`, sorted so parents come before what they hold (forks). */
function findDirs(root: string, marker: string): string[] {
  const out: string[] = []
  const walk = (dir: string): void => {
    let names: string[]
    try {
      names = readdirSync(dir)
    } catch {
      return
    }
    if (names.includes(marker)) out.push(dir)
    for (const name of names.sort()) {
      if (SKIP_DIRS.has(name) || name.startsWith('.')) continue
      const full = join(dir, name)
      try {
        if (statSync(full).isDirectory()) walk(full)
      } catch {
        // a dangling link or a directory that vanished mid-walk: not a fixture
      }
    }
  }
  if (existsSync(root)) walk(root)
  return out
}

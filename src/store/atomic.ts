/**
 * How fluxlab writes: a whole directory (a fixture: staged beside it, then swapped in with two renames, see
 * {@link writeDirAtomic}), a whole file (temp file + fsync + rename, so a reader sees the old content or the
 * new, never half), and by appending lines (one write each, optionally flushed to disk).
 *
 * Every temporary entry is named `.<name>.<pid>.<8 hex>[.new|.old].flux-tmp`: hidden, ignored by every
 * fluxlab reader, matched by the `*.flux-tmp` line of a .gitignore, and removed by the next write once the
 * process named by `<pid>` is gone.
 */
import { randomBytes } from 'node:crypto'
import {
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeSync,
} from 'node:fs'
import { dirname, join, basename } from 'node:path'
import { isTempEntry, removeStale, settleSwap, tempName } from './staging.js'

/**
 * Replace directory `dir` as a whole, so a reader sees the old version or the new one, never a mix, and a
 * crash at any point leaves one of them: `files` are written (and flushed) into a staged sibling
 * `.<name>.<pid>.<tag>.new.flux-tmp`, every other entry of the current `dir` (judge.jsonl, forks/, files the
 * user keeps there) is carried over as a hard link, except the names in `drop`; then `dir` is renamed aside
 * and the staged directory renamed into its place. Leftovers of a writer that died are removed first.
 * @note POSIX cannot rename a directory over a non-empty one, so there is a moment between the two renames
 * when `dir` is missing; readers wait it out or finish a dead writer's swap ({@link settleSwap}), and a reader
 * whose directory was swapped while it read reads again (`readConsistent`).
 * @example
 * writeDirAtomic('tests/scenarios/capital', { 'scenario.yaml': manifest, 'model.jsonl': model }, { drop: ['tools.jsonl'] })
 */
export function writeDirAtomic(dir: string, files: Readonly<Record<string, string>>, opts: { drop?: readonly string[] } = {}): void {
  const parent = dirname(dir)
  const name = basename(dir)
  mkdirSync(parent, { recursive: true })
  settleSwap(dir)
  removeStale(parent, name)
  const tag = randomBytes(4).toString('hex')
  const stage = join(parent, tempName(name, tag, 'new'))
  const replaced = new Set([...Object.keys(files), ...(opts.drop ?? [])])
  const olds: string[] = []
  try {
    mkdirSync(stage)
    for (const [file, data] of Object.entries(files)) writeSynced(join(stage, file), data)
    if (existsSync(dir)) carry(dir, stage, replaced)
    syncDir(stage)
    for (let attempt = 0; ; attempt++) {
      const old = join(parent, tempName(name, attempt === 0 ? tag : randomBytes(4).toString('hex'), 'old'))
      try {
        renameSync(dir, old)
        olds.push(old)
      } catch (e) {
        if (code(e) !== 'ENOENT') throw e
      }
      try {
        renameSync(stage, dir)
        break
      } catch (e) {
        // @note another writer swapped its version in between our two renames: move that one aside too (last writer wins).
        if (attempt >= 10 || !['ENOTEMPTY', 'EEXIST'].includes(code(e))) throw e
      }
    }
  } catch (e) {
    if (!existsSync(dir) && olds.length) renameSync(olds.pop()!, dir)
    rmSync(stage, { recursive: true, force: true })
    throw e
  }
  syncDir(parent)
  for (const old of olds) {
    // @note entries written into the old directory while we staged (a judge verdict, a fork) move across.
    carryLate(old, dir, replaced)
    rmSync(old, { recursive: true, force: true })
  }
}

/** Hard-link (or copy, where links fail) every entry of `from` into `to`, recursively; temp entries and `skip` (top level) stay behind. */
function carry(from: string, to: string, skip: ReadonlySet<string> = new Set()): void {
  for (const entry of readdirSync(from)) {
    if (skip.has(entry) || isTempEntry(entry)) continue
    const src = join(from, entry)
    const dst = join(to, entry)
    const st = lstatSync(src)
    if (st.isDirectory()) {
      mkdirSync(dst)
      carry(src, dst)
    } else if (st.isSymbolicLink()) symlinkSync(readlinkSync(src), dst)
    else
      try {
        linkSync(src, dst)
      } catch {
        copyFileSync(src, dst)
      }
  }
}

/** Move into `to` what `from` holds that `to` lacks or holds as another file (written after {@link carry} ran). */
function carryLate(from: string, to: string, skip: ReadonlySet<string> = new Set()): void {
  for (const entry of readdirSync(from)) {
    if (skip.has(entry) || isTempEntry(entry)) continue
    const src = join(from, entry)
    const dst = join(to, entry)
    const st = lstatSync(src)
    const there = existsSync(dst) ? lstatSync(dst) : undefined
    if (st.isDirectory() && there?.isDirectory()) carryLate(src, dst)
    else if (!there || (!st.isDirectory() && !there.isDirectory() && there.ino !== st.ino)) renameSync(src, dst)
  }
}

/** Flush a directory's entries (the renames in it) to disk; where the platform cannot, the renames still hold. */
function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r')
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  } catch {
    // not supported here (the data files were flushed one by one)
  }
}

const code = (e: unknown) => (e as NodeJS.ErrnoException).code ?? ''

/**
 * Write a file so that a reader sees the old content or the new, never half:
 * a temp file in the same directory, fsync, rename.
 * @example
 * writeFileAtomic('tests/scenarios/x/model.jsonl', lines.join('\n'))
 */
export function writeFileAtomic(file: string, data: string): void {
  mkdirSync(dirname(file), { recursive: true })
  removeStale(dirname(file), basename(file))
  const tmp = join(dirname(file), tempName(basename(file), randomBytes(4).toString('hex')))
  try {
    writeSynced(tmp, data)
    renameSync(tmp, file)
  } catch (e) {
    rmSync(tmp, { force: true })
    throw e
  }
}

/**
 * A file opened for appending whole lines (created when missing; its directory must exist). Each
 * `append` is one write(2) of the whole text, so lines from parallel writers do not interleave; with
 * `durable`, it is also flushed to disk (fsync) before `append` returns.
 * @example
 * const out = new AppendFile(join(dir, 'journal.jsonl'), { durable: true })
 * out.append(`${JSON.stringify(entry)}\n`)
 * out.close()
 */
export class AppendFile {
  private fd: number | undefined

  constructor(
    readonly file: string,
    private readonly opts: { durable?: boolean } = {},
  ) {
    this.fd = openSync(file, 'a')
  }

  append(text: string): void {
    if (this.fd === undefined) throw new Error(`${this.file} is closed`)
    writeAll(this.fd, text)
    if (this.opts.durable) fsyncSync(this.fd)
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }
}

/** Create `file` with `data`, flushed to disk before it returns. */
function writeSynced(file: string, data: string): void {
  const fd = openSync(file, 'w')
  try {
    writeAll(fd, data)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** One write of the whole text where the kernel takes it at once (always, for a line of a regular file); the rest after. */
function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8')
  for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off)
}

/**
 * Parse once per worker (issue 14): a fixture read is kept for as long as none of its files
 * changed. A file is unchanged while its stat (dev, inode, size, mtime, ctime) is. A re-record swaps a whole new
 * directory in (./staging.ts): each of its files is new (another inode) or a hard link of the old one (the same
 * bytes), and one the new version lacks or adds is missing or present where it was not. So the files' stats tell a
 * new version; the directory's own stat adds nothing to them.
 * @note issue 28: the directory's stat was part of the stamp, one more `stat` at every `scenario()` of a kept fixture.
 *
 * @note a stat can miss an edit: file times tick coarsely (a few ms on Linux), so a file rewritten in
 * place with the same size within the tick of the read looks unchanged (git's "racy clean" problem).
 * A file whose mtime is that close to the read is stamped with a hash of its bytes as well, and checked
 * by content at every use until a check happens well after its mtime.
 */
import { createHash } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** A file changed (ctime) less than this before it was stamped is checked by content (covers coarse and 2 s FAT times). */
const RACY_NS = 2_500_000_000n
/** Fixtures kept at most (most recently used first out last). */
const MAX_ENTRIES = 64
/** Total bytes of the files of kept fixtures at most; a larger fixture is read every time. */
const MAX_BYTES = 256 * 1024 * 1024

interface FileStamp {
  stat: string
  size: number
  /** sha1 of the bytes, only for a file modified close to the stamp. */
  hash?: string
}

interface Entry<T> {
  stamps: Array<FileStamp | undefined>
  bytes: number
  value: T
}

const entries = new Map<string, Entry<unknown>>()
let total = 0

function stampOf(path: string, now: bigint): FileStamp | undefined {
  let st
  try {
    // @note issue 28: a file a fixture does not have (tools.jsonl, trace.snap) is checked at every `scenario()`: no throw.
    st = statSync(path, { bigint: true, throwIfNoEntry: false })
  } catch {
    return undefined
  }
  if (!st) return undefined
  const stamp: FileStamp = { stat: `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.isDirectory() ? 'd' : 'f'}`, size: Number(st.size) }
  // the kernel sets ctime to the current tick at every change (mtime can be set back): a ctime old enough means any later change shows.
  if (st.isFile() && now - st.ctimeNs < RACY_NS) stamp.hash = hashFile(path)
  return stamp
}

function hashFile(path: string): string {
  try {
    return createHash('sha1').update(readFileSync(path)).digest('hex')
  } catch {
    return 'unreadable'
  }
}

const nowNs = () => BigInt(Date.now()) * 1_000_000n

/** The stamps of each of `files` in `dir` (`undefined`: missing). */
function stamps(dir: string, files: readonly string[]): Array<FileStamp | undefined> {
  const now = nowNs()
  return files.map((f) => stampOf(join(dir, f), now))
}

/** Whether `kept` still describes the file at `path` (stat equal, and content equal for a racy stamp). */
function same(kept: FileStamp | undefined, path: string, now: bigint): boolean {
  const fresh = stampOf(path, now)
  if (!kept || !fresh) return kept === fresh
  if (kept.stat !== fresh.stat) return false
  if (kept.hash === undefined) return true
  if ((fresh.hash ?? hashFile(path)) !== kept.hash) return false
  // Checked by content well after its last change: from now on a change shows in its stat.
  if (fresh.hash === undefined) delete kept.hash
  return true
}

/**
 * `read()`'s result for the fixture `dir` under `key`, read again only when `dir` or one of `files` changed
 * since it was kept. What `read` throws is never kept. Callers share the value: they hand out only frozen
 * parts of it (./handout.ts freezes each cell at its first use).
 * @example
 * const fx = cachedFixture(`${dir}\0${disable}`, dir, ['scenario.yaml', 'model.jsonl'], () => parse(dir))
 */
export function cachedFixture<T extends object>(key: string, dir: string, files: readonly string[], read: () => T): T {
  const kept = keptFixture<T>(key, dir, files)
  if (kept) return kept
  // @note stamped before the read: a change during the read leaves a stamp older than the content, so the
  // next use reads again (never the other way round).
  const before = stamps(dir, files)
  const value = read()
  const bytes = before.reduce((n, s) => n + (s?.size ?? 0), 0)
  if (bytes <= MAX_BYTES) {
    entries.set(key, { stamps: before, bytes, value })
    total += bytes
    for (const [k] of entries) {
      if (entries.size <= MAX_ENTRIES && total <= MAX_BYTES) break
      forget(k)
    }
  }
  return value
}

/**
 * The kept read under `key` while every one of `files` in `dir` is as it was when it was read (a `stat` each), else
 * `undefined` (and it is forgotten).
 * @note a swap of `dir` between two of these stats cannot pass for another version: each file that passes has the kept
 * bytes (its own inode, or a hard link of it in the new directory, ./staging.ts). So a hit is the kept version without
 * `readConsistent` around it.
 * @example
 * const fx = keptFixture(key, dir, ['scenario.yaml', 'model.jsonl']) ?? readConsistent(dir, () => …)
 */
export function keptFixture<T>(key: string, dir: string, files: readonly string[]): T | undefined {
  const hit = entries.get(key)
  if (!hit) return undefined
  const now = nowNs()
  if (files.every((f, i) => same(hit.stamps[i], join(dir, f), now))) {
    entries.delete(key)
    entries.set(key, hit)
    return hit.value as T
  }
  forget(key)
  return undefined
}

function forget(key: string): void {
  const e = entries.get(key)
  if (!e) return
  total -= e.bytes
  entries.delete(key)
}

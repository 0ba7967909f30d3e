/**
 * A file's stamp, which tells whether it changed since it was read (issue 14: a fixture read is kept per process while
 * none of its files changed). A file is unchanged while its stat (dev, inode, size, mtime, ctime) is. A re-record swaps a
 * whole new directory in (./staging.ts): each of its files is new (another inode) or a hard link of the old one (the
 * same bytes), and one the new version lacks or adds is missing or present where it was not. So the files' stats tell
 * a new version; the directory's own stat adds nothing to them.
 *
 * @note a stat can miss an edit: file times tick coarsely (a few ms on Linux), so a file rewritten in place with the
 * same size within the tick of the read looks unchanged (git's "racy clean" problem). A file whose ctime is that close
 * to the read is stamped with a hash of its bytes as well, and checked by content at every use until a check happens
 * well after it.
 */
import { createHash } from 'node:crypto'
import { type BigIntStats, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** A file changed (ctime) less than this before it was stamped is checked by content (covers coarse and 2 s FAT times). */
const RACY_NS = 2_500_000_000n

/** One file's stamp. */
export interface FileStamp {
  stat: string
  /** sha1 of the bytes, only for a file changed close to the stamp. */
  hash?: string
}

function stampOf(path: string, now: bigint): FileStamp | undefined {
  let st: BigIntStats | undefined
  try {
    // @note issue 28: a file a fixture does not have (tools.jsonl, trace.snap) is checked at every `scenario()`: no throw.
    st = statSync(path, { bigint: true, throwIfNoEntry: false })
  } catch {
    return undefined
  }
  if (!st) return undefined
  const stamp: FileStamp = { stat: `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.isDirectory() ? 'd' : 'f'}` }
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

/**
 * The stamps of each of `files` in `dir` (`undefined`: missing).
 * @example
 * const before = stamps(dir, ['scenario.yaml', 'model.jsonl'])
 */
export function stamps(dir: string, files: readonly string[]): Array<FileStamp | undefined> {
  const now = nowNs()
  return files.map((f) => stampOf(join(dir, f), now))
}

/**
 * Whether `kept` (from {@link stamps}) still describes each of `files` in `dir`: stat equal, and content equal for a racy stamp.
 * @example
 * unchangedSince(dir, ['scenario.yaml'], before) // false once scenario.yaml was rewritten
 */
export function unchangedSince(dir: string, files: readonly string[], kept: ReadonlyArray<FileStamp | undefined>): boolean {
  const now = nowNs()
  return files.every((f, i) => same(kept[i], join(dir, f), now))
}

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

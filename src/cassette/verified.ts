/**
 * Contents already read clean (issue 14: "the secret scan on read … runs once per distinct content rather
 * than once per open"). A fixture's first read in a process parses every line, checks it against the
 * schema and secret-scans it: about 2.5× the cost of `JSON.parse` alone (each model cell's fields are checked
 * against its chunks at its first use, ./handout.ts, so not here). All of that depends only on the bytes of model.jsonl and tools.jsonl and on this
 * fluxlab's checks, so once a content has passed, a later process (every vitest worker, every run) that
 * finds the same bytes only parses them.
 *
 * A passed content is remembered as an empty file named by a SHA-256 over the files' bytes, the secret
 * rules as written, the disabled rules, this package's version and {@link CHECKS}. A changed byte, rule or
 * version is another name, so it is checked in full again; a content that failed is never remembered.
 * The bytes are hashed again while they are read, and a read whose bytes differ from the hashed ones
 * (a file rewritten between the two) is checked in full (./jsonl.ts). A content is remembered only when
 * no file's stat changed between its hash and the end of its checked read.
 *
 * Only fixtures of {@link MIN_BYTES} or more are remembered: a smaller one is checked in full in well
 * under a millisecond, and leaves nothing behind.
 *
 * Where: `FLUX_CACHE_DIR`, else `node_modules/.cache/fluxlab` under the working directory, else a
 * directory of this user's under the OS temp dir (only when nobody else can write to it). `FLUX_CACHE_DIR=off` turns it off. Nothing in it is needed: deleting
 * it only makes the next read of each large fixture check in full.
 */
import { createHash, type Hash } from 'node:crypto'
import { closeSync, existsSync, lstatSync, mkdirSync, openSync, readSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { SECRET_RULES } from '../secrets/rules.js'
import { VERSION } from '../version.js'

/** Bump when a read check changes in a way the secret rules and the version do not show (a dev build). 2: the fields-against-chunks check left the read. */
const CHECKS = 2
/** Fixtures (model.jsonl + tools.jsonl) smaller than this are always checked in full. */
const MIN_BYTES = 256 * 1024
const BLOCK = 1024 * 1024

/** What a read needs to trust a file: the hash it must have while it is read. */
export interface Trust {
  sha256: string
}

/** A fixture's memo: whether its content passed before, each file's hash, and how to remember that it passed. */
interface Memo {
  /** Per file given: its hash to check while reading, when the content passed before; else `undefined`. */
  trust: Array<Trust | undefined>
  /** Remember that this content passed every check (no-op when it is remembered already or cannot be written). */
  passed(): void
}

/**
 * The memo of the files `paths` (absent files count as empty), or `undefined` when there is none (turned
 * off, or the files are small).
 * @example
 * const memo = contentMemo([model, tools], disable)
 * readJsonl(model, { …, trust: memo?.trust[0] })
 */
export function contentMemo(paths: readonly string[], disable: readonly string[] = []): Memo | undefined {
  if (process.env.FLUX_CACHE_DIR === 'off') return undefined
  // sizes first: a small fixture is never hashed (its bytes are read once, by the reader).
  if (paths.reduce((n, p) => n + sizeOf(p), 0) < MIN_BYTES) return undefined
  const dir = memoDir()
  if (!dir) return undefined
  // @note stat before the hash, and again before remembering: a file rewritten in between (a re-record swapping the
  // directory included) had other bytes checked than the ones hashed, so that content is not remembered.
  const stamps = paths.map(statOf)
  const hashed = paths.map(hashFile)
  const key = createHash('sha256')
    .update(`${CHECKS}\0${VERSION}\0${[...new Set(disable)].sort().join(',')}\0`)
    .update(RULES_SOURCE)
    .update(hashed.map((h) => h.sha256).join('\0'))
    .digest('hex')
  const file = join(dir, key.slice(0, 2), key.slice(2))
  const known = existsSync(file)
  return {
    trust: hashed.map((h) => (known ? { sha256: h.sha256 } : undefined)),
    passed() {
      if (known || paths.some((p, i) => statOf(p) !== stamps[i])) return
      try {
        mkdirSync(join(dir, key.slice(0, 2)), { recursive: true })
        const tmp = `${file}.${process.pid}.tmp`
        writeFileSync(tmp, '')
        renameSync(tmp, file)
      } catch {
        // a read-only or full disk: the content is checked in full next time, nothing else changes.
      }
    },
  }
}

/** A running SHA-256 for a read that checks its bytes are the trusted ones. */
export function trustHash(): Hash {
  return createHash('sha256')
}

// @note a rule's anchors decide which texts it searches, so they are part of what a content passed.
const RULES_SOURCE = SECRET_RULES.map((r) => `${r.id}:${r.pattern.source}:${r.pattern.flags}:${r.anchors.join('\0')}`).join('\n')

function memoDir(): string | undefined {
  return memoDirIn(process.env, process.cwd(), tmpdir())
}

/**
 * Where the memo lives for this environment, working directory and temp dir (see the module comment).
 * @note the temp dir is shared with every local user: its `fluxlab-cache-<uid>` directory is used only when it is a
 * real directory of this user that nobody else may write to (made so, 0700, when missing). Otherwise another user
 * who knew a fixture's exact bytes could plant an entry that skips its checks; then there is no memo.
 * @example
 * memoDirIn({}, '/repo', '/tmp') // '/repo/node_modules/.cache/fluxlab/verified' when /repo/node_modules exists
 */
export function memoDirIn(env: NodeJS.ProcessEnv, cwd: string, tmp: string): string | undefined {
  const v = env.FLUX_CACHE_DIR
  if (v === 'off') return undefined
  if (v) return resolve(cwd, v)
  const nm = join(cwd, 'node_modules')
  if (existsSync(nm)) return join(nm, '.cache', 'fluxlab', 'verified')
  const uid = process.getuid?.()
  const top = join(tmp, `fluxlab-cache-${uid ?? 'user'}`)
  try {
    mkdirSync(top, { mode: 0o700 })
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return undefined
  }
  // No uid (Windows): the temp dir is the user's own.
  if (uid === undefined) return join(top, 'verified')
  try {
    const st = lstatSync(top)
    if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o022) !== 0) return undefined
  } catch {
    return undefined
  }
  return join(top, 'verified')
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

/** A file's identity and change times (`absent` when it is missing). */
function statOf(path: string): string {
  try {
    const st = statSync(path, { bigint: true })
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`
  } catch {
    return 'absent'
  }
}

function hashFile(path: string): { sha256: string; size: number } {
  const h = createHash('sha256')
  let size = 0
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return { sha256: 'absent', size: 0 }
  }
  try {
    const buf = Buffer.allocUnsafe(BLOCK)
    for (let n; (n = readSync(fd, buf, 0, BLOCK, null)) > 0; size += n) h.update(buf.subarray(0, n))
  } finally {
    closeSync(fd)
  }
  return { sha256: h.digest('hex'), size }
}

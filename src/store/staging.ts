/**
 * The temporary entries of fluxlab's atomic writes, and what readers do about a swap in flight.
 * Names: `.<name>.<pid>.<tag>.flux-tmp` (a file being written), `.<name>.<pid>.<tag>.new.flux-tmp` (a fixture
 * directory being staged) and `.<name>.<pid>.<tag>.old.flux-tmp` (the fixture it replaced, until removed).
 * A name says which process made it, so a later write can tell a dead writer's leftovers from a live one's.
 */
import { readdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'

/** What every temporary entry's name ends with (one `.gitignore` line: `*.flux-tmp`). */
const TEMP_SUFFIX = '.flux-tmp'

const TEMP = /^\.(.+)\.(\d+)\.([0-9a-f]{8})(?:\.(new|old))?\.flux-tmp$/
/** Temp files of fluxlab ≤ 0.1.0 (`.trace.snap.20947.4e2d1328.tmp`): removed like the current ones. */
const LEGACY = /^\.(.+)\.(\d+)\.([0-9a-f]{8})\.tmp$/

/**
 * The name of a temporary entry for `name` (`.model.jsonl.4242.a1b2c3d4.flux-tmp`).
 * @example
 * tempName('capital', 'a1b2c3d4', 'new') // '.capital.4242.a1b2c3d4.new.flux-tmp'
 */
export function tempName(name: string, tag: string, role?: 'new' | 'old', pid = process.pid): string {
  return `.${name}.${pid}.${tag}${role ? `.${role}` : ''}${TEMP_SUFFIX}`
}

interface TempEntry {
  /** The entry's own name. */
  entry: string
  /** The file or directory it stands in for. */
  of: string
  pid: number
  tag: string
  role?: 'new' | 'old'
}

/**
 * Whether `entry` is one of fluxlab's temporary entries (current or legacy naming): never a fixture file.
 * @example
 * isTempEntry('.trace.snap.20947.4e2d1328.tmp') // true
 */
export function isTempEntry(entry: string): boolean {
  return parseTemp(entry) !== undefined
}

function parseTemp(entry: string): TempEntry | undefined {
  const m = TEMP.exec(entry) ?? LEGACY.exec(entry)
  return m ? { entry, of: m[1], pid: Number(m[2]), tag: m[3], ...(m[4] ? { role: m[4] as 'new' | 'old' } : {}) } : undefined
}

/**
 * Whether the process that made a temp entry may still be writing it: it is running (or is this process,
 * whose other threads may be). A reused pid keeps an entry one more write; it is never removed early.
 */
function writerAlive(pid: number): boolean {
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

const temps = (dir: string, of: string): TempEntry[] => {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return []
  }
  return names.map(parseTemp).filter((t): t is TempEntry => t !== undefined && t.of === of)
}

/**
 * Remove the temporary entries for `of` in `dir` whose writer is gone (a process killed mid-write).
 * @example
 * removeStale('tests/scenarios', 'capital') // after a kill -9 during a recording of capital
 */
export function removeStale(dir: string, of: string): void {
  for (const t of temps(dir, of)) if (!writerAlive(t.pid)) rmSync(join(dir, t.entry), { recursive: true, force: true })
}

/** How long a reader waits for a live writer between its two renames (they are microseconds apart). */
const SWAP_WAIT_MS = 2000

/**
 * Make sure `dir` is not caught between the two renames of a swap ({@link writeDirAtomic}): when it is
 * missing while a staged replacement is complete (its `.old` twin exists), wait for a live writer to
 * finish, or finish the swap of a dead one (one rename), so a reader never takes the fixture for missing.
 * @example
 * settleSwap('tests/scenarios/capital')
 */
export function settleSwap(dir: string): void {
  const parent = dirname(dir)
  const name = basename(dir)
  for (const start = Date.now(); !exists(dir); ) {
    const olds = temps(parent, name).filter((t) => t.role === 'old')
    if (olds.length === 0) return
    const dead = olds.find((t) => !writerAlive(t.pid))
    if (dead) {
      const staged = join(parent, tempName(name, dead.tag, 'new', dead.pid))
      // @note the staged directory is complete once the old one was moved aside: finish the swap; without it
      // (the user removed the fixture meanwhile) put the old one back. Another reader doing the same wins the race.
      try {
        renameSync(exists(staged) ? staged : join(parent, dead.entry), dir)
      } catch (e) {
        if (!['ENOENT', 'ENOTEMPTY', 'EEXIST'].includes((e as NodeJS.ErrnoException).code ?? '')) throw e
      }
      continue
    }
    if (Date.now() - start > SWAP_WAIT_MS) return
    sleep(5)
  }
}

/**
 * Run `read` on `dir` so that everything it read came from one version of the directory: a swap during the
 * read (the directory's identity changed) makes it read again. Each version of a fixture directory is a new
 * directory, never rewritten in place, so an unchanged identity means an unchanged version.
 * @example
 * const fixture = readConsistent(dir, () => readAllFiles(dir))
 */
export function readConsistent<T>(dir: string, read: () => T): T {
  for (let attempt = 0; ; attempt++) {
    settleSwap(dir)
    const before = identity(dir)
    let result: T
    try {
      result = read()
    } catch (e) {
      if (attempt < 20 && identity(dir) !== before) continue
      throw e
    }
    if (attempt < 20 && identity(dir) !== before) continue
    return result
  }
}

function identity(dir: string): string {
  try {
    const st = statSync(dir, { bigint: true })
    return `${st.dev}:${st.ino}:${st.birthtimeNs}:${st.ctimeNs}`
  } catch {
    return 'missing'
  }
}

function exists(p: string): boolean {
  try {
    statSync(p)
    return true
  } catch {
    return false
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4))
const sleep = (ms: number) => Atomics.wait(sleeper, 0, 0, ms)

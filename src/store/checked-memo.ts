/**
 * Where the node store remembers contents that passed every check of their bytes (src/cassette/verified.ts says what
 * a key covers): an empty file named by the key. Nothing in it is needed: deleting it only makes the next read of each
 * large fixture check in full.
 *
 * Where: `FLUX_CACHE_DIR`, else `node_modules/.cache/fluxlab` under the working directory, else a directory of this
 * user's under the OS temp dir (only when nobody else can write to it). `FLUX_CACHE_DIR=off` turns it off.
 */
import { existsSync, lstatSync, mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { CheckedMemo } from './store.js'

/**
 * The memo for this process's environment and working directory now, or `undefined` when there is none.
 * @example
 * diskMemo()?.has(key)
 */
export function diskMemo(): CheckedMemo | undefined {
  const dir = memoDirIn(process.env, process.cwd(), tmpdir())
  if (!dir) return undefined
  const file = (key: string) => join(dir, key.slice(0, 2), key.slice(2))
  return {
    has: (key) => existsSync(file(key)),
    add(key) {
      try {
        mkdirSync(join(dir, key.slice(0, 2)), { recursive: true })
        const tmp = `${file(key)}.${process.pid}.tmp`
        writeFileSync(tmp, '')
        renameSync(tmp, file(key))
      } catch {
        // a read-only or full disk: the content is checked in full next time, nothing else changes.
      }
    },
  }
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

/**
 * Parse once per worker (issue 14): a fixture read is kept for as long as none of its files changed, which the store
 * that read them answers from the stamp of that read (src/store: for the node store, each file's stat, and a hash of
 * a file changed close to the read).
 */
import type { FixtureStore } from '../store/store.js'

/** Fixtures kept at most (most recently used first out last). */
const MAX_ENTRIES = 64
/** Total bytes of the files of kept fixtures at most; a larger fixture is read every time. */
const MAX_BYTES = 256 * 1024 * 1024

interface Entry<T> {
  store: FixtureStore
  stamp: unknown
  bytes: number
  value: T
}

const entries = new Map<string, Entry<unknown>>()
let total = 0

/**
 * Keep `value`, read from `store` with `stamp` (the stamp of the read its `bytes` came from), under `key`.
 * Callers share the value: they hand out only frozen parts of it (./handout.ts freezes each cell).
 * @example
 * keepFixture(key, store, read.stamp, 1024, parsed)
 */
export function keepFixture<T>(key: string, store: FixtureStore, stamp: unknown, bytes: number, value: T): T {
  if (bytes > MAX_BYTES) return value
  forget(key)
  entries.set(key, { store, stamp, bytes, value })
  total += bytes
  for (const [k] of entries) {
    if (entries.size <= MAX_ENTRIES && total <= MAX_BYTES) break
    forget(k)
  }
  return value
}

/**
 * The kept read under `key` while `store` says every one of `files` in `dir` is as it was when it was read, else
 * `undefined` (and it is forgotten).
 * @note for the node store a swap of `dir` between two of its stats cannot pass for another version: each file that
 * passes has the kept bytes (its own inode, or a hard link of it in the new directory). So a hit is the kept version.
 * @example
 * const fx = keptFixture(key, store, dir, ['scenario.yaml', 'model.jsonl']) ?? readAgain()
 */
export function keptFixture<T>(key: string, store: FixtureStore, dir: string, files: readonly string[]): T | undefined {
  const hit = entries.get(key)
  if (!hit) return undefined
  if (hit.store === store && store.unchanged(dir, files, hit.stamp)) {
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

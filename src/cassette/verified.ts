/**
 * Contents already read clean (issue 14: "the secret scan on read … runs once per distinct content rather
 * than once per open"). A fixture's first read in a process parses every line, checks it against the
 * schema and secret-scans it: about 2.5× the cost of `JSON.parse` alone (each model cell's fields are checked
 * against its chunks when the fixture is handed out, ./handout.ts, so not here). All of that depends only on the bytes
 * of model.jsonl and tools.jsonl and on this fluxlab's checks, so once a content has passed, a later process (every
 * vitest worker, every run) that finds the same bytes only parses them.
 *
 * A passed content is remembered in the store's memo (src/store: an empty file under `FLUX_CACHE_DIR` or
 * `node_modules/.cache/fluxlab` for the node store) by a SHA-256 over the files' bytes, the secret rules as written,
 * the disabled rules, this package's version and {@link CHECKS}. A changed byte, rule or version is another key, so it
 * is checked in full again; a content that failed is never remembered. The bytes hashed are the bytes the read checks
 * (a store hands over one version of the fixture), so no rewrite between the two can slip through.
 *
 * Only fixtures of {@link MIN_BYTES} or more are remembered: a smaller one is checked in full in well
 * under a millisecond, and leaves nothing behind.
 */
import { createHash } from 'node:crypto'
import { SECRET_RULES } from '../secrets/rules.js'
import type { FixtureStore } from '../store/store.js'
import { VERSION } from '../version.js'

/** Bump when a read check changes in a way the secret rules and the version do not show (a dev build). 2: the fields-against-chunks check left the read. */
const CHECKS = 2
/** Fixtures (model.jsonl + tools.jsonl) smaller than this are always checked in full. */
const MIN_BYTES = 256 * 1024

/** A fixture's memo: whether its content passed before, and how to remember that it passed. */
interface Memo {
  /** The content passed every check before: only parse it. */
  trusted: boolean
  /** Remember that this content passed every check (no-op when it is remembered already or cannot be written). */
  passed(): void
}

/**
 * The memo of the files `contents` (absent files count as empty), or `undefined` when there is none (the store has no
 * memo, or the files are small).
 * @example
 * const memo = contentMemo(store, [model, tools], disable)
 * parseJsonl(model, file, { …, trusted: memo?.trusted })
 */
export function contentMemo(store: FixtureStore, contents: ReadonlyArray<Uint8Array | undefined>, disable: readonly string[] = []): Memo | undefined {
  // sizes first: a small fixture is never hashed.
  if (contents.reduce((n, c) => n + (c?.length ?? 0), 0) < MIN_BYTES) return undefined
  const memo = store.checked()
  if (!memo) return undefined
  const key = createHash('sha256')
    .update(`${CHECKS}\0${VERSION}\0${[...new Set(disable)].sort().join(',')}\0`)
    .update(RULES_SOURCE)
    .update(contents.map((c) => (c ? createHash('sha256').update(c).digest('hex') : 'absent')).join('\0'))
    .digest('hex')
  const known = memo.has(key)
  return {
    trusted: known,
    passed() {
      if (!known) memo.add(key)
    },
  }
}

// @note a rule's anchors decide which texts it searches, so they are part of what a content passed.
const RULES_SOURCE = SECRET_RULES.map((r) => `${r.id}:${r.pattern.source}:${r.pattern.flags}:${r.anchors.join('\0')}`).join('\n')

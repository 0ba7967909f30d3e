/**
 * Issue 38 item 4: while a test file is collected, where the run can record, the key variables its code reads go into its
 * record beside the fixtures (`file-record.ts`, loaded only when a file has something to keep: issue 14).
 */
import { createRequire } from 'node:module'
import { readFlag, readGolden, type UpdateState } from '../golden/update-mode.js'
import type { FileRecord } from './file-keys.js'

/**
 * Issue 38 item 4: where the run can record (not under CI, `--ci` or FLUX_OFFLINE), the runner setups hand `read` each key
 * variable the file's code reads while it is collected, set or unset, and the file's record is brought up to date as the
 * reads happen (a file whose tests are all skipped runs no hook); `done` (collection is over) lets a record run remove the
 * record of a file that read none. `undefined` where nothing is kept.
 * @note issue 14: the writer (and the fixture code behind it) loads only when a file has something to keep.
 * @example
 * const keeper = fileRecordKeeper({ base, rootDir, testFile, updateState: 'new' })
 * const stop = watchKeyReads(process, (name) => keeper?.read(name, false), (name) => keeper?.read(name, true))
 */
export function fileRecordKeeper(o: {
  base: string
  rootDir: string
  testFile: string | undefined
  updateState: UpdateState
}): { read(name: string, set: boolean): void; done(): void } | undefined {
  const testFile = o.testFile
  if (!testFile || o.updateState === 'none' || readFlag('FLUX_OFFLINE')) return undefined
  const reads: FileRecord = { keyVars: [], unsetVars: [] }
  const exact = readGolden() === 'update'
  let queued = false
  // @note the reads of one turn are written at once, in a microtask (not a timer, which a test file's fake timers hold
  // back): vitest may end the worker of a file whose tests all skip right after collection, before a module loads.
  const flush = () => {
    if (queued) return
    queued = true
    void Promise.resolve()
      .then(async () => {
        queued = false
        const { keepFileRecord } = builtWriter() ?? (await import('./file-record.js'))
        keepFileRecord({ base: o.base, rootDir: o.rootDir, testFile, reads, exact })
      })
      .catch((e: unknown) => console.warn(`[fluxlab] Failed to keep the key variables ${testFile} read: ${String(e)}. Check that ${o.base} is writable.`))
  }
  return {
    read(name, set) {
      ;(set ? reads.keyVars : reads.unsetVars).push(name)
      flush()
    },
    done: () => (exact ? flush() : undefined),
  }
}

/** The record's writer as built beside this file (`dist/`), loaded at once; `undefined` from the sources. */
function builtWriter(): typeof import('./file-record.js') | undefined {
  try {
    return createRequire(import.meta.url)('./setup-file-record.cjs') as typeof import('./file-record.js')
  } catch {
    return undefined
  }
}

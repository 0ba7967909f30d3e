/**
 * Issue 38 item 4 (SPEC §2 "Keys"): a test file's record, kept beside the fixtures, of the key variables its own code read
 * while it was collected, recording: names only, never values. A file whose tests were all skipped (`const t = key ? it :
 * it.skip; t.skip(…)`) writes no fixture, so this is all that says its gate was open; a replay fills placeholders from it
 * before the file is collected (`holdFileKeys`). Loaded by the runner setups only when a file has something to keep.
 */
import { readFileSync, rmSync } from 'node:fs'
import { writeFileAtomic } from '../store/atomic.js'
import { fileRecordPath, GLOBAL_SETUP, readFileRecord, type FileRecord } from './file-keys.js'

/**
 * Bring test file `testFile`'s record up to what it read (`reads`), writing it only when that changes it. `exact` (a
 * record run, `FLUX_GOLDEN=update`, fills no placeholder) makes it exactly `reads`, and removes it when the file read no
 * key; any other run that can record only adds names, as the placeholders it filled hide the names it already had.
 * @example
 * const reads = { keyVars: ['AZURE_OPENAI_API_KEY'], unsetVars: [] }
 * keepFileRecord({ base: '/repo/tests/scenarios', rootDir: '/repo', testFile: '/repo/test/azure.test.ts', reads, exact: false })
 */
export function keepFileRecord(o: { base: string; rootDir: string; testFile: string; reads: FileRecord; exact: boolean }): void {
  const { path, file } = fileRecordPath(o.base, o.rootDir, o.testFile)
  let text: string | undefined
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    text = undefined
  }
  // @note a run that read no key set is no recording of the file's gates (its keys are unset here): it changes nothing.
  if (!o.exact && o.reads.keyVars.length === 0) return
  const old = (text !== undefined && readFileRecord(text, file)) || { keyVars: [], unsetVars: [] }
  const keyVars = sorted(o.exact ? o.reads.keyVars : [...old.keyVars, ...o.reads.keyVars])
  const unsetVars = sorted(o.exact ? o.reads.unsetVars : [...old.unsetVars, ...o.reads.unsetVars]).filter((k) => !keyVars.includes(k))
  if (keyVars.length + unsetVars.length === 0) {
    if (text !== undefined) rmSync(path, { force: true })
    return
  }
  const next = renderFileRecord(file, { keyVars, unsetVars })
  if (next !== text) writeFileAtomic(path, next)
}

/**
 * The record as it is written: stable, sorted, one name a line, so a diff shows what changed.
 * @example
 * renderFileRecord('test/azure.test.ts', { keyVars: ['AZURE_OPENAI_API_KEY'], unsetVars: [] })
 */
function renderFileRecord(file: string, r: FileRecord): string {
  const list = (key: string, names: string[]) => (names.length ? `${key}:\n${names.map((n) => `  - ${n}\n`).join('')}` : `${key}: []\n`)
  const head =
    file === GLOBAL_SETUP
      ? [
          "# fluxlab: the key variables the runner's main process (its globalSetup) read, recording (names only, never values).\n",
          '# A replay fills a placeholder for each of keyVars while the global setup runs; unsetVars were read unset.\n',
        ]
      : [
          `# fluxlab: the key variables ${file} read while it was collected, recording (names only, never values).\n`,
          '# A replay fills a placeholder for each of keyVars before the file is collected; unsetVars were read unset.\n',
        ]
  return [...head, `file: ${JSON.stringify(file)}\n`, list('keyVars', r.keyVars), list('unsetVars', r.unsetVars)].join('')
}

const sorted = (names: string[]) => [...new Set(names)].sort()

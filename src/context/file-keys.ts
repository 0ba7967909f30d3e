/**
 * SPEC §2 "Keys": the key variables a test file's own fixtures name, read when the runner setup loads (before
 * the file's tests are collected), so its skip gates see a placeholder for exactly the providers it recorded.
 * @note issue 14: this runs in every test file's setup, explicit mode included, so it loads no fixture code, and
 * YAML only for a manifest whose text names the file (or one written in a shape fluxlab does not write).
 */
import { type Dirent, readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, join, relative, resolve, sep } from 'node:path'
import { readFlag, readGolden, type UpdateState } from '../golden/update-mode.js'
import { DEFAULT_DIR, keysFrom, type FluxOptions } from './options.js'
import { fillReplayKeys, replayKeyVars } from './replay-keys.js'

const MANIFEST = 'scenario.yaml'
/** Issue 38 item 4: the folder under the fixture root that keeps, per test file, the key variables it read while collected. */
const FILES_DIR = '.files'
/** Issue 38 item 4: the name of the record of what the runner's main process (its `globalSetup`) read: `.files/(global-setup).yaml`. */
export const GLOBAL_SETUP = '(global-setup)'
const SKIP = new Set(['node_modules', '.git', 'forks'])

/**
 * The key variables named by the fixtures under `base` that test file `testFile` recorded (its `source.file`),
 * and how many such fixtures there are; `count` is 0 for a file with no fixture. With `suite`, a file with no
 * fixture gets the names of every fixture under `base` instead (`suiteWide`).
 * @example
 * fileKeyVars('/repo/tests/scenarios', '/repo', '/repo/test/agent.test.ts') // { count: 3, keyVars: ['GROQ_API_KEY', 'OPENAI_API_KEY'], suiteWide: false }
 */
export function fileKeyVars(
  base: string,
  rootDir: string,
  testFile: string,
  o: { suite?: boolean } = {},
): { count: number; keyVars: string[]; suiteWide: boolean } {
  const file = relative(rootDir, testFile).split(sep).join('/')
  const name = basename(testFile)
  const own = new Set<string>()
  const all = new Set<string>()
  let count = 0
  for (const path of manifests(base)) {
    let text: string
    try {
      text = readFileSync(path, 'utf8')
    } catch {
      continue
    }
    if (text.includes(name)) {
      const manifest = parse(text)
      const source = manifest?.source as { file?: unknown } | undefined
      if (manifest && typeof source?.file === 'string' && source.file.split('\\').join('/') === file) {
        count++
        for (const k of replayKeyVars(manifest)) own.add(k)
        continue
      }
    }
    if (o.suite && count === 0) for (const k of replayKeyVars(listsOf(text) ?? parse(text) ?? {})) all.add(k)
  }
  if (count > 0 || !o.suite) return { count, keyVars: [...own].sort(), suiteWide: false }
  return { count, keyVars: [...all].sort(), suiteWide: all.size > 0 }
}

/** Every `scenario.yaml` under `base` (forks left out: they carry their parent's names). */
function manifests(base: string): string[] {
  const out: string[] = []
  const visit = (dir: string, depth: number): void => {
    let entries: Dirent[]
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const e of entries) {
      if (e.name === MANIFEST && e.isFile()) out.push(join(dir, MANIFEST))
      else if (e.isDirectory() && depth < 12 && !SKIP.has(e.name) && !e.name.startsWith('.')) visit(join(dir, e.name), depth + 1)
    }
  }
  visit(base, 0)
  return out
}

/**
 * `keyVars` and `providerHosts` as fluxlab writes them (a block list of plain scalars), without loading YAML;
 * `undefined` when the text has them in another shape (a hand edit), for the YAML parser to read.
 */
function listsOf(text: string, keys = ['keyVars', 'providerHosts']): Record<string, string[]> | undefined {
  const block = (key: string): string[] | undefined | null => {
    const at = text.search(new RegExp(`^${key}:`, 'm'))
    if (at < 0) return undefined
    const m = new RegExp(`^${key}:( \\[\\])?\\n((?:  - [^\\n'"]+\\n)*)(?![ -])`, 'm').exec(text.slice(at))
    if (!m) return null
    return m[1]
      ? []
      : m[2]
          .split('\n')
          .filter(Boolean)
          .map((l) => l.slice(4).trim())
  }
  const out: Record<string, string[]> = {}
  for (const key of keys) {
    const list = block(key)
    if (list === null) return undefined
    if (list) out[key] = list
  }
  return out
}

function parse(text: string): Record<string, unknown> | undefined {
  try {
    const parsed = (createRequire(import.meta.url)('yaml') as { parse(s: string): unknown }).parse(text)
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined
  } catch {
    // A manifest that is not YAML names no key; its replay says what is wrong with it.
    return undefined
  }
}

/** What a test file's record says it read of the key variables while it was collected, recording: set, and unset. */
export interface FileRecord {
  keyVars: string[]
  unsetVars: string[]
}

/**
 * Issue 38 item 4: where test file `testFile`'s record is kept, `<base>/.files/<its path from the root, / as __>.yaml`, and
 * that path as the record names it (a record that names another file is not this one's).
 * @example
 * fileRecordPath('/repo/tests/scenarios', '/repo', '/repo/test/azure.test.ts')
 * // { path: '/repo/tests/scenarios/.files/test__azure.test.ts.yaml', file: 'test/azure.test.ts' }
 */
export function fileRecordPath(base: string, rootDir: string, testFile: string): { path: string; file: string } {
  const file = relative(rootDir, testFile).split(sep).join('/')
  return { path: join(base, FILES_DIR, `${file.split('/').join('__')}.yaml`), file }
}

/**
 * The record of test file `file` in `text` (what `fileRecordPath` names), read without loading YAML when it is as
 * fluxlab writes it; `undefined` when it is another file's or not a record.
 * @example
 * readFileRecord('file: "test/azure.test.ts"\nkeyVars:\n  - AZURE_OPENAI_API_KEY\nunsetVars: []\n', 'test/azure.test.ts')
 */
export function readFileRecord(text: string, file: string): FileRecord | undefined {
  const named = /^file: (.+)$/m.exec(text)?.[1]
  let source: unknown
  try {
    source = named && JSON.parse(named)
  } catch {
    source = (parse(text) as { file?: unknown } | undefined)?.file
  }
  if (source !== file) return undefined
  const lists = listsOf(text, ['keyVars', 'unsetVars']) ?? parse(text)
  const names = (v: unknown) => (Array.isArray(v) ? v.filter((k): k is string => typeof k === 'string') : [])
  return { keyVars: names(lists?.keyVars), unsetVars: names(lists?.unsetVars) }
}

function fileRecord(base: string, rootDir: string, testFile: string): FileRecord | undefined {
  const { path, file } = fileRecordPath(base, rootDir, testFile)
  try {
    return readFileRecord(readFileSync(path, 'utf8'), file)
  } catch {
    return undefined
  }
}

/**
 * The runner setups, as a test file loads (before its tests are collected): placeholders for the key variables
 * its own fixtures name, and the `keys` option's, until `release` runs when the file ends. Where nothing can be
 * recorded (update state `none`: CI, `--ci`; or `FLUX_OFFLINE=1`), a file with no fixture gets the names of every fixture of the suite,
 * so a client it builds at import (`new OpenAI()`) loads as it did while recording; its tests that would call a
 * model fail with `FLUX_NO_RECORDING` there anyway. A record run (`FLUX_GOLDEN=update`) and, elsewhere, a file with
 * no fixture get none: their tests run as they would without fluxlab. `fixtures` is how many fixtures the file has, under `base`.
 * @example
 * const keys = holdFileKeys({ rootDir, testFile, options: state.options, updateState: 'none' })
 * afterAll(() => keys.release())
 */
export function holdFileKeys(o: { rootDir: string; testFile: string | undefined; options: FluxOptions; updateState: UpdateState }): {
  base: string
  fixtures: number
  release: () => void
} {
  const base = resolve(o.rootDir, o.options.dir ?? DEFAULT_DIR)
  const none = { base, fixtures: 0, release: () => {} }
  if (!o.testFile || readGolden() === 'update') return none
  const found = fileKeyVars(base, o.rootDir, o.testFile, { suite: o.updateState === 'none' || readFlag('FLUX_OFFLINE') })
  // Issue 38 item 4: and those its record names it read set while recording (a file that wrote no fixture has one too);
  // a variable it read unset then gets no suite-wide placeholder, so each gate stands as it stood.
  const record = fileRecord(base, o.rootDir, o.testFile)
  const suite = found.suiteWide ? found.keyVars.filter((k) => !record?.unsetVars.includes(k)) : found.keyVars
  const names = [...suite, ...(record?.keyVars ?? [])]
  if (found.count === 0 && !found.suiteWide && !record?.keyVars.length) return none
  return { base, fixtures: found.count, release: fillReplayKeys(process.env, [...names, ...keysFrom(o.options)]) }
}

/**
 * SPEC §2 "Keys": the key variables a test file's own fixtures name, read when the runner setup loads (before
 * the file's tests are collected), so its skip gates see a placeholder for exactly the providers it recorded.
 * @note issue 14: this runs in every test file's setup, explicit mode included, so it loads no fixture code, and
 * YAML only for a manifest whose text names the file (or one written in a shape fluxlab does not write).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, join, relative, resolve, sep } from 'node:path'
import { readFlag, readGolden, type UpdateState } from '../golden/update-mode.js'
import { DEFAULT_DIR, keysFrom, type FluxOptions } from './options.js'
import { fillReplayKeys, replayKeyVars } from './replay-keys.js'

const MANIFEST = 'scenario.yaml'
const SKIP = new Set(['node_modules', '.git', 'forks'])

/**
 * The key variables named by the fixtures under `base` that test file `testFile` recorded (its `source.file`),
 * and how many such fixtures there are; `count` is 0 for a file with no fixture. With `suite`, a file with no
 * fixture gets the names of every fixture under `base` instead (`suiteWide`).
 * @example
 * fileKeyVars('/repo/tests/scenarios', '/repo', '/repo/test/agent.test.ts') // { count: 3, keyVars: ['GROQ_API_KEY', 'OPENAI_API_KEY'], suiteWide: false }
 */
export function fileKeyVars(base: string, rootDir: string, testFile: string, o: { suite?: boolean } = {}): { count: number; keyVars: string[]; suiteWide: boolean } {
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
    let entries
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
function listsOf(text: string): { keyVars?: string[]; providerHosts?: string[] } | undefined {
  const block = (key: string): string[] | undefined | null => {
    const at = text.search(new RegExp(`^${key}:`, 'm'))
    if (at < 0) return undefined
    const m = new RegExp(`^${key}:( \\[\\])?\\n((?:  - [^\\n'"]+\\n)*)(?![ -])`, 'm').exec(text.slice(at))
    if (!m) return null
    return m[1] ? [] : m[2].split('\n').filter(Boolean).map((l) => l.slice(4).trim())
  }
  const keyVars = block('keyVars')
  const providerHosts = block('providerHosts')
  if (keyVars === null || providerHosts === null) return undefined
  return { ...(keyVars ? { keyVars } : {}), ...(providerHosts ? { providerHosts } : {}) }
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
export function holdFileKeys(o: { rootDir: string; testFile: string | undefined; options: FluxOptions; updateState: UpdateState }): { base: string; fixtures: number; release: () => void } {
  const base = resolve(o.rootDir, o.options.dir ?? DEFAULT_DIR)
  const none = { base, fixtures: 0, release: () => {} }
  if (!o.testFile || readGolden() === 'update') return none
  const found = fileKeyVars(base, o.rootDir, o.testFile, { suite: o.updateState === 'none' || readFlag('FLUX_OFFLINE') })
  if (found.count === 0 && !found.suiteWide) return none
  return { base, fixtures: found.count, release: fillReplayKeys(process.env, [...found.keyVars, ...keysFrom(o.options)]) }
}

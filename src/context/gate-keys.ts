/**
 * Issue 38 item 4, in the runner's main process. A `globalSetup` (jest's, vitest's) runs there before any test file, and a
 * suite may gate its whole run on a key in it (`if (!process.env.OPENAI_API_KEY) throw new Error('… is required')`): with
 * the keys unset on replay, no test would run. The runner setups fill placeholders only in the workers, so the main process
 * has its own record beside the fixtures, `.files/(global-setup).yaml` (names only, never values): kept while recording
 * from the reads it sees, and on replay each of its `keyVars` gets a placeholder while the global setup runs, so the gate
 * stands as it stood.
 * @note the placeholders are removed before the workers start ({@link pauseGate}; a worker's setup drops any it inherited
 * all the same, `dropGateKeys`): a test file sees each key as it did while recording, from its own fixtures and record,
 * whatever the global setup read. They stand again for the global teardown ({@link resumeGate}).
 */
import { readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { notice } from '../errors.js'
import { readGolden, updateStateFromEnv, type UpdateState } from '../golden/update-mode.js'
import { watchKeyReads } from './env-reads.js'
import { fileRecordPath, GLOBAL_SETUP, readFileRecord, type FileRecord } from './file-keys.js'
import { DEFAULT_DIR, keysFrom, type FluxOptions } from './options.js'
import { fileRecordKeeper } from './record-keeper.js'
import { GATE_ENV, missingKeyVars, replayKeyFor } from './replay-keys.js'

/** One fixture root's record, and what keeps it while recording. */
interface Root {
  path: string
  record: FileRecord | undefined
  keeper: ReturnType<typeof fileRecordKeeper>
  warned: Set<string>
}
interface GateState {
  roots: Map<string, Root>
  /** The placeholders this process filled, to remove before the workers start and to fill again for the teardown. */
  filled: string[]
  stop: (() => unknown) | undefined
  /** The environment under the watch, while it stands. */
  raw: NodeJS.ProcessEnv | undefined
}

// @note kept on globalThis: jest's config (CommonJS) opens the gate and its reporter pauses it, and vitest loads the two global
// setup files that open and pause it through its own module runner: each may hold a copy of this module.
const KEY = Symbol.for('fluxlab.gate-keys.v1')
const g = globalThis as Record<symbol, unknown>
const st = (g[KEY] ??= { roots: new Map(), filled: [], stop: undefined, raw: undefined }) as GateState

/**
 * Open the gate for the fixture root of `options.dir` under `rootDir`, before the runner's global setup runs: on replay
 * (not `FLUX_GOLDEN=update`), a placeholder for each unset name of the root's `(global-setup)` record and of the `keys`
 * option; where the run can record, the record kept from the key variables the process reads until {@link pauseGate}; a
 * variable read unset that the record does not name is a warning naming the record and `FLUX_GOLDEN=update`. Once per root.
 * @example
 * openGate({ rootDir: process.cwd(), options: { scenarios: 'per-test' } })
 */
export function openGate(o: { rootDir: string; options?: FluxOptions; updateState?: UpdateState }): void {
  const base = resolve(o.rootDir, o.options?.dir ?? DEFAULT_DIR)
  if (st.roots.has(base)) return
  const testFile = join(o.rootDir, GLOBAL_SETUP)
  const { path, file } = fileRecordPath(base, o.rootDir, testFile)
  let record: FileRecord | undefined
  try {
    record = readFileRecord(readFileSync(path, 'utf8'), file)
  } catch {
    record = undefined
  }
  const updateState = o.updateState ?? updateStateFromEnv()
  const root: Root = { path, record, keeper: fileRecordKeeper({ base, rootDir: o.rootDir, testFile, updateState }), warned: new Set() }
  st.roots.set(base, root)
  if (readGolden() !== 'update') fill([...(record?.keyVars ?? []), ...keysFrom(o.options ?? {})])
  if (st.stop) return
  st.raw = process.env
  st.stop = watchKeyReads(
    process,
    (name) => heard(name, false),
    (name) => heard(name, true),
  )
}

/** A key variable the main process read: into each root's record where it is kept; unset and unnamed, a warning (on replay). */
function heard(name: string, set: boolean): void {
  const recording = readGolden() === 'update'
  for (const root of st.roots.values()) {
    root.keeper?.read(name, set)
    if (set || recording || root.warned.has(name) || root.record?.keyVars.includes(name) || root.record?.unsetVars.includes(name)) continue
    root.warned.add(name)
    const where = relative(process.cwd(), root.path)
    const unnamed = root.record ? `${where} does not name it` : `there is no ${where}`
    console.warn(
      notice(
        `The runner's main process (its globalSetup) read ${name}, which is unset, and ${unnamed}, so no placeholder stands in for it. ` +
          `If a gate of the run needs it, record once with the key set: FLUX_GOLDEN=update <your test command>, and commit ${where} with the fixtures.`,
      ),
    )
  }
}

function fill(names: readonly string[]): void {
  // @note the environment itself, not the watch over it: fluxlab's own reads are not the global setup's.
  const env = (st.stop && st.raw) || process.env
  for (const k of missingKeyVars(env, names)) {
    env[k] = replayKeyFor(k)
    if (!st.filled.includes(k)) st.filled.push(k)
  }
  if (st.filled.length) env[GATE_ENV] = st.filled.join(',')
}

/**
 * The global setup is over and the workers are about to start: stop watching the reads (a record run's record is then
 * made exact) and remove the placeholders, so no worker inherits them.
 * @example
 * pauseGate()
 */
export function pauseGate(): void {
  st.stop?.()
  st.stop = undefined
  for (const root of st.roots.values()) root.keeper?.done()
  st.roots.clear()
  for (const k of st.filled) if (process.env[k] === replayKeyFor(k)) delete process.env[k]
  delete process.env[GATE_ENV]
}

/**
 * The tests are over: the placeholders the global setup had stand again for the global teardown.
 * @example
 * resumeGate()
 */
export function resumeGate(): void {
  fill(st.filled)
}

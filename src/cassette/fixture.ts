/**
 * Reading a fixture: every file parsed, every field replay reads checked, every file secret-scanned, all from one
 * version of the directory, which the fixture store hands over (src/store). Writing is ./fixture-write.ts.
 */
import { join, relative, resolve } from 'node:path'
import { rerunCommand } from '../runners/command.js'
import type { TestRef } from '../runners/adapter.js'
import { fixtureStore } from '../store/current.js'
import type { FixtureStore, StoredFiles } from '../store/store.js'
import { keepFixture, keptFixture } from './fixture-cache.js'
import { FILES } from './fixture-files.js'
import { parseManifestText } from './manifest-text.js'
import { rerecordCommand } from './fixture-source.js'
import { cellState, cellView, deepFreeze, digestMismatch, type CellState, type DigestMismatch } from './handout.js'
import { FORMAT_VERSION, type Fixture, type Manifest, type ModelCell, type ToolCell } from './cell.js'
import { isManifest, isModelCell, isToolCell } from './cell-check.js'
import { manifestSchema, modelCellSchema, toolCellSchema } from './cell-schema.js'
import { derivedProblem, digestProblem } from './cell-problems.js'
import { describeIssue, fixtureError, refuseSecrets, type FixtureProblem } from './fixture-error.js'
import { parseJsonl, tooDeep } from './jsonl.js'
import { invalidUtf8Lines } from './line-blocks.js'
import { scanText } from './scan.js'
import type { ScanOptions } from './scan-value.js'
import { contentMemo } from './verified.js'

const rel = (file: string) => relative(process.cwd(), file) || file

/**
 * True when `dir` holds a fixture (its manifest exists).
 * @example
 * fixtureExists('tests/scenarios/weather')
 */
export function fixtureExists(dir: string): boolean {
  return fixtureStore().exists(join(dir, FILES.manifest))
}

/** How to read a fixture: the redactor's disabled rules, and the command a fix names when scenario.yaml names no source test. */
interface ReadFixtureOptions extends ScanOptions {
  /**
   * The test to name then; by default the command line of this process (right for a script that calls
   * `scenario()`); `false` to name none (the CLI, whose own command line would be the wrong one).
   */
  rerun?: TestRef | false
  /** `false`: do not check the cells' digests (`fluxlab test --accept`, which rewrites them). */
  digests?: false
}

/**
 * Read and validate a fixture directory: every file parsed and every field replay reads checked (errors name
 * file, line and field), `formatVersion` checked, every file secret-scanned. Each cell's digest, and each model
 * cell's text, tool calls and usage against what its chunks parse to, are checked when the read is handed out
 * (./handout.ts); a cell that fails throws the same FLUX_FIXTURE_INVALID when it is read from `model` or `tools`.
 * All files come from one version of the directory (the store's `read`), even while a re-record swaps it.
 * @example
 * const fx = readFixture('tests/scenarios/weather')
 */
export function readFixture(dir: string, opts: ReadFixtureOptions = {}): Fixture {
  return existingFixture(dir, opts) ?? missing(dir, fixtureStore().read(dir, []))
}

/**
 * The fixture at `dir` when there is one (as {@link readFixture} reads it), else `undefined`.
 * @note issue 28: a kept read still good answers with one look at each of its files.
 * @example
 * const fixture = existingFixture('tests/scenarios/weather') // undefined: record it
 */
export function existingFixture(dir: string, opts: ReadFixtureOptions = {}): Fixture | undefined {
  // @note issue 14: every `scenario()` used to parse, validate and secret-scan its fixture again. Kept per
  // process while no file of it changed (./fixture-cache.ts). Callers share it, so it is handed out through
  // views (./handout.ts), which check and freeze each cell.
  const store = fixtureStore()
  const key = keyOf(dir, opts)
  const kept = keptFixture<KeptRead>(key, store, dir, CACHED_FILES)
  if (kept) return viewOf(kept, dir, opts)
  const read = store.read(dir, CACHED_FILES)
  if (!read?.files[0]) return undefined
  const bytes = read.files.reduce((n, f) => n + (f?.length ?? 0), 0)
  return viewOf(keepFixture(key, store, read.stamp, bytes, keptRead(readOnce(dir, read, store, opts, false))), dir, opts)
}

const keyOf = (dir: string, opts: ReadFixtureOptions) => `${resolve(dir)}\0${dir}\0${[...new Set(opts.disable ?? [])].sort().join(',')}`

/** The fixture of a kept read, as handed out to the test `opts.rerun` names (its errors' fixes name that test). */
function viewOf(kept: KeptRead, dir: string, opts: ReadFixtureOptions): Fixture {
  // one view per test a fix would name (the same readFixture() of the same test gets the same object).
  const who = opts.rerun === undefined ? '' : JSON.stringify(opts.rerun)
  let fx = kept.views.get(who)
  if (!fx) {
    const modelFile = join(dir, FILES.model)
    const toolsFile = join(dir, FILES.tools)
    const again = () => rerecord(kept.manifest, dir, opts)
    const edited = (file: string, lines: number[]) => (_: unknown, i: number, m: DigestMismatch) => {
      throw fixtureError('FLUX_FIXTURE_INVALID', digestProblem(m, file, lines[i], kept.manifest, again))
    }
    const model = cellView(
      kept.model,
      (cell, i) => {
        const problem = derivedProblem(cell, modelFile, kept.lines[i], again)
        if (problem) throw fixtureError('FLUX_FIXTURE_INVALID', problem)
      },
      edited(modelFile, kept.lines),
    )
    const tools = cellView(kept.tools, undefined, edited(toolsFile, kept.toolLines))
    fx = Object.freeze({ dir: kept.dir, manifest: kept.manifest, model, tools, trace: kept.trace })
    kept.views.set(who, fx)
  }
  return fx
}

/** What a process keeps of a fixture read: its manifest frozen, its cells as read (frozen when handed out), model cells' lines. */
interface KeptRead {
  dir: string
  manifest: Manifest
  model: CellState<ModelCell>
  tools: CellState<ToolCell>
  lines: number[]
  toolLines: number[]
  trace?: string
  /** What readFixture() handed out, by the test its errors' fixes name. */
  views: Map<string, Fixture>
}

function keptRead({ fixture, lines }: FixtureLines): KeptRead {
  const { dir, manifest, model, tools, trace } = fixture
  return {
    dir,
    manifest: deepFreeze(manifest),
    model: cellState(model),
    tools: cellState(tools),
    lines: lines.model,
    toolLines: lines.tools,
    trace,
    views: new Map(),
  }
}

/** The files a fixture read depends on (their stamps, with the directory's, say whether a kept read is still good). */
const CACHED_FILES = [FILES.manifest, FILES.model, FILES.tools, FILES.trace]

interface FixtureLines {
  fixture: Fixture
  lines: { model: number[]; tools: number[] }
  /** Every bad line of model.jsonl and tools.jsonl (only with `collect`; otherwise the first is thrown). */
  problems: FixtureProblem[]
}

/**
 * {@link readFixture}, plus the 1-based line of each cell in its file (for `fluxlab test`). Every model cell is
 * checked against its chunks here, up front. With `collect`, bad cells are returned as `problems` (the fixture
 * then holds only the good ones) instead of thrown; a problem with the directory or scenario.yaml is thrown either way.
 * @example
 * const { fixture, lines } = readFixtureLines(dir)
 * lines.model[0] // 1
 */
export function readFixtureLines(dir: string, opts: ReadFixtureOptions & { collect?: boolean } = {}): FixtureLines {
  const store = fixtureStore()
  const read = store.read(dir, CACHED_FILES)
  return read?.files[0] ? readOnce(dir, read, store, opts, true) : missing(dir, read)
}

/** The error of a directory with no manifest: what it holds instead, or that it does not exist. */
function missing(dir: string, read: StoredFiles | undefined): never {
  const present = read?.entries ?? []
  throw fixtureError('FLUX_FIXTURE_INVALID', {
    file: dir,
    reason: present.length ? `${FILES.manifest} is missing (the directory holds ${present.join(', ')})` : 'the directory does not exist',
    fix: 'Re-record it with FLUX_GOLDEN=update, or delete the directory.',
  })
}

/** The command a fix names: the fixture's own re-record command, else the test (or this process) that read it. */
function rerecord(manifest: unknown, dir: string, opts: ReadFixtureOptions): string {
  const command = rerecordCommand(manifest, dir) ?? (opts.rerun === false ? undefined : rerunCommand('FLUX_GOLDEN=update', opts.rerun))
  return command ? `\`${command}\`` : 'FLUX_GOLDEN=update (scenario.yaml names no test to run again)'
}

/** One read of `dir` (`read`: its files as the store handed them over); `derived`: check every model cell against its chunks here. */
function readOnce(dir: string, read: StoredFiles, store: FixtureStore, opts: ReadFixtureOptions & { collect?: boolean }, derived: boolean): FixtureLines {
  const manifestFile = join(dir, FILES.manifest)
  const again = (m?: unknown) => rerecord(m, dir, opts)
  const [manifestData, modelData, toolsData, traceData] = read.files
  const manifestBytes = Buffer.from(manifestData!)
  const manifestText = manifestBytes.toString('utf8')
  refuseSecrets(scanText(manifestText, FILES.manifest, opts), { failed: `read fixture ${rel(dir)}`, fix: READ_SECRET_FIX })
  const badManifest = (reason: string, line?: number, field?: string): never => {
    throw fixtureError('FLUX_FIXTURE_INVALID', {
      file: manifestFile,
      ...(line ? { line } : {}),
      ...(field ? { field } : {}),
      reason,
      fix: `Fix the line by hand or re-record the scenario with ${again()}.`,
    })
  }
  const notUtf8 = [...invalidUtf8Lines(manifestBytes)]
  if (notUtf8.length) badManifest('not valid UTF-8 (the line holds a byte sequence no UTF-8 text has)', notUtf8[0])
  let manifest: Manifest
  try {
    manifest = parseManifestText(manifestText) as Manifest
  } catch (e) {
    // @note any error of the parser is the text's fault (a stack overflow on 10^5 nested brackets included).
    manifest = badManifest(`not valid YAML (${String((e as Error)?.message).split('\n')[0]})`, (e as { linePos?: Array<{ line: number }> }).linePos?.[0]?.line)
  }
  if (!manifest || typeof manifest !== 'object' || Array.isArray(manifest)) badManifest('expected a mapping with formatVersion, name, …', 1)
  if (manifest.formatVersion !== FORMAT_VERSION) {
    const v = manifest.formatVersion as unknown
    throw fixtureError('FLUX_FORMAT_VERSION', {
      file: manifestFile,
      reason: `formatVersion is ${JSON.stringify(v)}, this fluxlab reads formatVersion ${FORMAT_VERSION}`,
      fix:
        typeof v === 'number' && v > FORMAT_VERSION
          ? 'It was written by a newer fluxlab: upgrade with `npm i -D fluxlab@latest`.'
          : `Re-record it with ${again(manifest)}.`,
    })
  }
  if (tooDeep(manifest)) badManifest('it nests deeper than fluxlab reads')
  const checked = isManifest(manifest) ? undefined : manifestSchema.safeParse(manifest)
  if (checked && !checked.success) {
    const { reason, field } = describeIssue(checked.error.issues[0], manifest)
    badManifest(reason, field ? lineOfKey(manifestText, field) : undefined, field)
  }
  const fix = () => `Fix the line by hand or re-record the scenario with ${again(manifest)}.`
  const problems: FixtureProblem[] = []
  const modelFile = join(dir, FILES.model)
  // @note issue 14: a large content that passed every check of the bytes before is only parsed (./verified.ts).
  // `fluxlab test` and `verify` (derived, collect) always check in full.
  const memo = opts.collect || derived ? undefined : contentMemo(store, [modelData, toolsData], opts.disable)
  let trusted = true
  type Schema = typeof modelCellSchema | typeof toolCellSchema
  const cells = <T>(file: string, data: Uint8Array | undefined, schema: Schema, accepts: (v: unknown) => boolean, required: boolean) => {
    const read = parseJsonl<T>(data, join(dir, file), {
      schema,
      accepts,
      fix,
      scan: { disable: opts.disable, fix: READ_SECRET_FIX },
      ...(required ? { missing: 'Restore it from version control, or re-record with FLUX_GOLDEN=update.' } : {}),
      collect: true,
      trusted: memo?.trusted,
    })
    problems.push(...read.problems)
    trusted &&= read.trusted === true
    return read
  }
  const modelRead = cells<ModelCell>(FILES.model, modelData, modelCellSchema, isModelCell, true)
  const checkDigest = derived && opts.digests !== false
  const model = modelRead.lines.filter(({ line, value }) => {
    if (!derived) return true
    const m = checkDigest ? digestMismatch(value) : undefined
    const problem = m ? digestProblem(m, modelFile, line, manifest, () => again(manifest)) : derivedProblem(value, modelFile, line, () => again(manifest))
    if (problem) problems.push(problem)
    return !problem
  })
  const toolsFile = join(dir, FILES.tools)
  const tools = cells<ToolCell>(FILES.tools, toolsData, toolCellSchema, isToolCell, false).lines.filter(({ line, value }) => {
    const m = checkDigest ? digestMismatch(value) : undefined
    if (m) problems.push(digestProblem(m, toolsFile, line, manifest, () => again(manifest)))
    return !m
  })
  if (memo && !trusted && problems.length === 0) memo.passed()
  problems.sort((a, b) => (a.file === b.file ? (a.line ?? 0) - (b.line ?? 0) : a.file === modelFile ? -1 : 1))
  if (problems.length && !opts.collect) throw fixtureError('FLUX_FIXTURE_INVALID', problems[0])
  const trace = traceData ? Buffer.from(traceData).toString('utf8') : undefined
  return {
    fixture: { dir, manifest, model: model.map((c) => c.value), tools: tools.map((c) => c.value), trace },
    lines: { model: model.map((c) => c.line), tools: tools.map((c) => c.line) },
    problems,
  }
}

/** The 1-based line of scenario.yaml where the top-level key of `field` is (`source.file` → the `source:` line). */
function lineOfKey(text: string, field: string): number | undefined {
  const key = field.split(/[.[]/)[0]
  const at = text.split('\n').findIndex((l) => l.startsWith(`${key}:`))
  return at >= 0 ? at + 1 : undefined
}

const READ_SECRET_FIX = 'Remove the secret from the file (and rotate it: it was committed), or re-record with FLUX_GOLDEN=update.'

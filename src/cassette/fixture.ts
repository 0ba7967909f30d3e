import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import stableStringify from 'fast-json-stable-stringify'
import YAML from 'yaml'
import * as z from 'zod/mini'
import { rerunCommand, testCommand, type TestRef } from '../commands.js'
import { writeFileAtomic } from './atomic.js'
import { FORMAT_VERSION, type Fixture, type Manifest, type ModelCell, type SourceTest, type ToolCell } from './cell.js'
import { fixtureError, readJsonl, refuseSecrets } from './jsonl.js'
import { scanText, type ScanOptions } from './scan.js'

export const FILES = {
  manifest: 'scenario.yaml',
  model: 'model.jsonl',
  tools: 'tools.jsonl',
  judge: 'judge.jsonl',
  trace: 'trace.snap',
} as const

const rel = (file: string) => relative(process.cwd(), file) || file

/** What a model.jsonl line must be for replay to use it. */
export const modelCellSchema = z.looseObject(
  {
    seq: z.number('expected a numeric "seq"'),
    key: z.string('expected a string "key"'),
    request: z.looseObject({}, 'expected a "request" object'),
    response: z.looseObject({ chunks: z.array(z.unknown(), 'expected "response.chunks" to be an array') }, 'expected "response.chunks" to be an array'),
  },
  'expected a JSON object (one model call)',
)

/** What a tools.jsonl line must be for replay to use it. */
export const toolCellSchema = z.looseObject(
  {
    seq: z.number('expected a numeric "seq"'),
    name: z.string('expected a string "name"'),
    kind: z.enum(['http', 'fn'], 'expected "kind" to be "http" or "fn"'),
  },
  'expected a JSON object (one tool call)',
)

/**
 * True when `dir` holds a fixture (its manifest exists).
 * @example
 * fixtureExists('tests/scenarios/weather')
 */
export function fixtureExists(dir: string): boolean {
  return existsSync(join(dir, FILES.manifest))
}

/** How to read a fixture: the redactor's disabled rules, and the command a fix names when scenario.yaml names no source test. */
interface ReadFixtureOptions extends ScanOptions {
  /**
   * The test to name then; by default the command line of this process (right for a script that calls
   * `scenario()`); `false` to name none (the CLI, whose own command line would be the wrong one).
   */
  rerun?: TestRef | false
}

/**
 * Read and validate a fixture directory: every file parsed (errors name file and line),
 * `formatVersion` checked, every file secret-scanned.
 * @example
 * const fx = readFixture('tests/scenarios/weather')
 */
export function readFixture(dir: string, opts: ReadFixtureOptions = {}): Fixture {
  return readFixtureLines(dir, opts).fixture
}

/**
 * {@link readFixture}, plus the 1-based line of each cell in its file (for `fluxlab test`).
 * @example
 * const { fixture, lines } = readFixtureLines(dir)
 * lines.model[0] // 1
 */
export function readFixtureLines(dir: string, opts: ReadFixtureOptions = {}): { fixture: Fixture; lines: { model: number[]; tools: number[] } } {
  const manifestFile = join(dir, FILES.manifest)
  const rerecord = (m?: unknown) => {
    const command = rerecordCommand(m, dir) ?? (opts.rerun === false ? undefined : rerunCommand('FLUX_GOLDEN=update', opts.rerun))
    return command ? `\`${command}\`` : 'FLUX_GOLDEN=update (scenario.yaml names no test to run again)'
  }
  if (!existsSync(manifestFile)) {
    const present = existsSync(dir) ? readdirSync(dir) : []
    throw fixtureError('FLUX_FIXTURE_INVALID', {
      file: dir,
      reason: present.length ? `${FILES.manifest} is missing (the directory holds ${present.join(', ')})` : 'the directory does not exist',
      fix: 'Re-record it with FLUX_GOLDEN=update, or delete the directory.',
    })
  }
  const manifestText = readFileSync(manifestFile, 'utf8')
  refuseSecrets(scanText(manifestText, FILES.manifest, opts), { failed: `read fixture ${rel(dir)}`, fix: READ_SECRET_FIX })
  let manifest: Manifest
  try {
    manifest = YAML.parse(manifestText) as Manifest
  } catch (e) {
    const line = (e as { linePos?: Array<{ line: number }> }).linePos?.[0]?.line
    throw fixtureError('FLUX_FIXTURE_INVALID', {
      file: manifestFile,
      ...(line ? { line } : {}),
      reason: `not valid YAML (${(e as Error).message.split('\n')[0]})`,
      fix: `Fix the line by hand or re-record the scenario with ${rerecord()}.`,
    })
  }
  if (!manifest || typeof manifest !== 'object')
    throw fixtureError('FLUX_FIXTURE_INVALID', { file: manifestFile, line: 1, reason: 'expected a mapping with formatVersion, name, …', fix: `Re-record the scenario with ${rerecord()}.` })
  if (manifest.formatVersion !== FORMAT_VERSION) {
    const v = manifest.formatVersion as unknown
    throw fixtureError('FLUX_FORMAT_VERSION', {
      file: manifestFile,
      reason: `formatVersion is ${JSON.stringify(v)}, this fluxlab reads formatVersion ${FORMAT_VERSION}`,
      fix: typeof v === 'number' && v > FORMAT_VERSION ? 'It was written by a newer fluxlab: upgrade with `npm i -D fluxlab@latest`.' : `Re-record it with ${rerecord(manifest)}.`,
    })
  }
  const cells = <T>(file: string, schema: typeof modelCellSchema | typeof toolCellSchema, required: boolean) =>
    readJsonl<T>(join(dir, file), {
      schema,
      fix: () => `Fix the line by hand or re-record the scenario with ${rerecord(manifest)}.`,
      scan: { disable: opts.disable, fix: READ_SECRET_FIX },
      ...(required ? { missing: 'Restore it from version control, or re-record with FLUX_GOLDEN=update.' } : {}),
    }).lines
  const model = cells<ModelCell>(FILES.model, modelCellSchema, true)
  const tools = cells<ToolCell>(FILES.tools, toolCellSchema, false)
  const traceFile = join(dir, FILES.trace)
  const trace = existsSync(traceFile) ? readFileSync(traceFile, 'utf8') : undefined
  return {
    fixture: { dir, manifest, model: model.map((c) => c.value), tools: tools.map((c) => c.value), trace },
    lines: { model: model.map((c) => c.line), tools: tools.map((c) => c.line) },
  }
}

const READ_SECRET_FIX = 'Remove the secret from the file (and rotate it: it was committed), or re-record with FLUX_GOLDEN=update.'

/**
 * The test a fixture says it was recorded by (scenario.yaml `source`), or `undefined` when it names none or cannot be read.
 * @example
 * readSource('tests/scenarios/weather') // { file: 'test/weather.test.ts', name: 'answers', runner: 'vitest' }
 */
export function readSource(dir: string): SourceTest | undefined {
  try {
    return sourceOf(YAML.parse(readFileSync(join(dir, FILES.manifest), 'utf8')))
  } catch {
    return undefined
  }
}

function sourceOf(manifest: unknown): SourceTest | undefined {
  const src = (manifest as { source?: Record<string, unknown> } | null)?.source
  if (!src || typeof src.file !== 'string' || typeof src.name !== 'string') return undefined
  const runner = src.runner === 'vitest' || src.runner === 'jest' ? src.runner : undefined
  return { file: src.file, name: src.name, ...(typeof src.project === 'string' ? { project: src.project } : {}), ...(runner ? { runner } : {}) }
}

/**
 * The exact command that re-records a fixture (`FLUX_GOLDEN=update` and what recorded it): its source test, or the
 * `npx fluxlab record` line of a CLI recording (whose scenario.yaml keeps the program as `input.command`); `undefined`
 * when the manifest names neither.
 * @example
 * rerecordCommand(fx.manifest, fx.dir) // "FLUX_GOLDEN=update npx vitest run test/weather.test.ts -t '^answers$'"
 */
export function rerecordCommand(manifest: unknown, dir: string): string | undefined {
  const source = sourceOf(manifest)
  if (source) return testCommand(source, 'FLUX_GOLDEN=update')
  const m = manifest as { name?: unknown; input?: { command?: unknown } } | null
  const command = m?.input?.command
  const path = dir.split(sep).join('/')
  if (typeof m?.name !== 'string' || !Array.isArray(command) || !command.length || !command.every((a) => typeof a === 'string') || !path.endsWith(`/${m.name}`)) return undefined
  const abs = path.slice(0, -m.name.length - 1)
  const root = relative(process.cwd(), abs).split(sep).join('/')
  return `FLUX_GOLDEN=update npx fluxlab record ${m.name} --dir ${root === '' ? '.' : root.startsWith('..') ? abs : root} -- ${command.join(' ')}`
}

/** The file contents of a fixture, serialized; `undefined` trace leaves `trace.snap` alone. */
export interface SerializedFixture {
  manifest: string
  model: string
  tools: string
  trace?: string
}

/**
 * Serialize a fixture with stable key order (cells sorted by key name, one per line).
 * @example
 * serializeFixture(fx).model
 */
export function serializeFixture(fx: Omit<Fixture, 'dir'>): SerializedFixture {
  const jsonl = (cells: readonly object[]) => cells.map(cellJson).join('\n') + (cells.length ? '\n' : '')
  return {
    manifest: YAML.stringify(fx.manifest, { lineWidth: 0 }),
    model: jsonl(fx.model),
    tools: jsonl(fx.tools),
    trace: fx.trace,
  }
}

/**
 * Fields whose key order is part of the recorded value: a tool's output (and a thrown error's data)
 * goes back to the agent, which may `JSON.stringify` it into the next model request.
 */
const ORDERED_FIELDS = new Set(['output', 'error'])

/**
 * One cell as a JSONL line: keys sorted (small, stable diffs), except inside values whose order the agent can observe.
 * @note Sorting a tool output's keys made the next request differ from the recording (`{"name":…,"age":…}` came back as
 * `{"age":…,"name":…}`), so every replay drifted.
 */
function cellJson(cell: object): string {
  const entries = Object.entries(cell)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${ORDERED_FIELDS.has(k) ? JSON.stringify(v) : stableStringify(v)}`).join(',')}}`
}

/**
 * Write a fixture: every file scanned for secrets first (a finding writes nothing),
 * then each file written atomically, the manifest last so a reader never sees a
 * manifest without its cells.
 * @example
 * writeFixture({ dir, manifest, model, tools, trace })
 */
export function writeFixture(fx: Fixture, opts: ScanOptions = {}): void {
  const s = serializeFixture(fx)
  const findings = [
    ...scanText(s.manifest, FILES.manifest, opts),
    ...scanText(s.model, FILES.model, opts),
    ...scanText(s.tools, FILES.tools, opts),
    ...(s.trace ? scanText(s.trace, FILES.trace, opts) : []),
  ]
  refuseSecrets(findings, { failed: `write fixture ${rel(fx.dir)}`, fix: WRITE_SECRET_FIX })
  writeFileAtomic(join(fx.dir, FILES.model), s.model)
  if (fx.tools.length) writeFileAtomic(join(fx.dir, FILES.tools), s.tools)
  else rmSync(join(fx.dir, FILES.tools), { force: true })
  if (s.trace !== undefined) writeFileAtomic(join(fx.dir, FILES.trace), s.trace)
  writeFileAtomic(join(fx.dir, FILES.manifest), s.manifest)
}

/**
 * Rewrite only `trace.snap` (for `-u` / `FLUX_GOLDEN=snapshots`).
 * @example
 * writeTrace(dir, renderTrace(outcome))
 */
export function writeTrace(dir: string, trace: string, opts: ScanOptions = {}): void {
  refuseSecrets(scanText(trace, FILES.trace, opts), { failed: `write fixture ${rel(dir)}`, fix: WRITE_SECRET_FIX })
  writeFileAtomic(join(dir, FILES.trace), trace)
}

const WRITE_SECRET_FIX = "Nothing was written. Add a redaction rule (`redact: { replace: [...] }` in the fluxlab options) or remove the secret from the agent's input."

import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { join, relative } from 'node:path'
import stableStringify from 'fast-json-stable-stringify'
import YAML from 'yaml'
import { FluxError } from '../errors.js'
import { writeFileAtomic } from './atomic.js'
import { FORMAT_VERSION, type Fixture, type Manifest, type ModelCell, type ToolCell } from './cell.js'
import { describeFinding, scanText, type Finding } from './scan.js'

export const FILES = {
  manifest: 'scenario.yaml',
  model: 'model.jsonl',
  tools: 'tools.jsonl',
  judge: 'judge.jsonl',
  trace: 'trace.snap',
} as const

const rel = (file: string) => relative(process.cwd(), file) || file

/**
 * True when `dir` holds a fixture (its manifest exists).
 * @example
 * fixtureExists('tests/scenarios/weather')
 */
export function fixtureExists(dir: string): boolean {
  return existsSync(join(dir, FILES.manifest))
}

/**
 * Read and validate a fixture directory: every file parsed (errors name file and line),
 * `formatVersion` checked, every file secret-scanned.
 * @example
 * const fx = readFixture('tests/scenarios/weather')
 */
export function readFixture(dir: string, opts: ScanOptions = {}): Fixture {
  const manifestFile = join(dir, FILES.manifest)
  if (!existsSync(manifestFile)) {
    const present = existsSync(dir) ? readdirSync(dir) : []
    throw new FluxError('FLUX_FIXTURE_INVALID', {
      failed: `read fixture ${rel(dir)}`,
      reason: present.length ? `${FILES.manifest} is missing (the directory holds ${present.join(', ')})` : 'the directory does not exist',
      fix: 'Re-record it with FLUX_GOLDEN=update, or delete the directory.',
    })
  }
  const manifestText = readFileSync(manifestFile, 'utf8')
  guardSecrets(scanText(manifestText, FILES.manifest), dir, 'read', opts)
  let manifest: Manifest
  try {
    manifest = YAML.parse(manifestText) as Manifest
  } catch (e) {
    throw invalid(manifestFile, (e as { linePos?: Array<{ line: number }> }).linePos?.[0]?.line, `not valid YAML (${(e as Error).message.split('\n')[0]})`)
  }
  if (!manifest || typeof manifest !== 'object') throw invalid(manifestFile, 1, 'expected a mapping with formatVersion, name, …')
  checkFormatVersion(manifest.formatVersion, manifestFile)
  const model = readJsonl<ModelCell>(join(dir, FILES.model), true, validateModelCell, opts)
  const tools = readJsonl<ToolCell>(join(dir, FILES.tools), false, validateToolCell, opts)
  const traceFile = join(dir, FILES.trace)
  const trace = existsSync(traceFile) ? readFileSync(traceFile, 'utf8') : undefined
  return { dir, manifest, model, tools, trace }
}

/**
 * Reject a `formatVersion` this version cannot read.
 * @example
 * checkFormatVersion(1, 'tests/scenarios/x/scenario.yaml')
 */
function checkFormatVersion(v: unknown, file: string): void {
  if (v === FORMAT_VERSION) return
  const newer = typeof v === 'number' && v > FORMAT_VERSION
  throw new FluxError('FLUX_FORMAT_VERSION', {
    failed: `read fixture ${rel(file)}`,
    reason: `formatVersion is ${JSON.stringify(v)}, this fluxlab reads formatVersion ${FORMAT_VERSION}`,
    fix: newer
      ? 'It was written by a newer fluxlab: upgrade with `npm i -D fluxlab@latest`.'
      : 'Re-record it with `FLUX_GOLDEN=update npx vitest run <test file>`.',
  })
}

function readJsonl<T>(file: string, required: boolean, validate: (v: unknown) => string | undefined, opts: ScanOptions): T[] {
  if (!existsSync(file)) {
    if (!required) return []
    throw new FluxError('FLUX_FIXTURE_INVALID', {
      failed: `read fixture ${rel(file)}`,
      reason: 'the file is missing',
      fix: 'Restore it from version control, or re-record with FLUX_GOLDEN=update.',
    })
  }
  const text = readFileSync(file, 'utf8')
  guardSecrets(scanText(text, file.split(/[\\/]/).pop()), file, 'read', opts)
  const out: T[] = []
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    if (line.trim() === '') continue
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch (e) {
      throw invalid(file, i + 1, `not valid JSON (${(e as Error).message})`)
    }
    const problem = validate(value)
    if (problem) throw invalid(file, i + 1, problem)
    out.push(value as T)
  }
  return out
}

function validateModelCell(v: unknown): string | undefined {
  const c = v as Partial<ModelCell>
  if (!c || typeof c !== 'object') return 'expected a JSON object (one model call)'
  if (typeof c.seq !== 'number') return 'expected a numeric "seq"'
  if (typeof c.key !== 'string') return 'expected a string "key"'
  if (!c.request || typeof c.request !== 'object') return 'expected a "request" object'
  if (!c.response || !Array.isArray(c.response.chunks)) return 'expected "response.chunks" to be an array'
  return undefined
}

function validateToolCell(v: unknown): string | undefined {
  const c = v as Partial<ToolCell>
  if (!c || typeof c !== 'object') return 'expected a JSON object (one tool call)'
  if (typeof c.seq !== 'number') return 'expected a numeric "seq"'
  if (typeof c.name !== 'string') return 'expected a string "name"'
  if (c.kind !== 'http' && c.kind !== 'fn') return 'expected "kind" to be "http" or "fn"'
  return undefined
}

function invalid(file: string, line: number | undefined, reason: string): FluxError {
  return new FluxError('FLUX_FIXTURE_INVALID', {
    failed: `read fixture ${rel(file)}${line ? `:${line}` : ''}`,
    reason,
    fix: 'Fix the line by hand or re-record the scenario with `FLUX_GOLDEN=update npx vitest run <test file>`.',
  })
}

/** Scan options: rule ids the user disabled in the redactor are not findings either. */
export interface ScanOptions {
  disable?: readonly string[]
}

function guardSecrets(all: Finding[], where: string, op: 'read' | 'write', opts: ScanOptions): void {
  // @note a rule the user disabled (`redact: { disable: ['jwt'] }`) would otherwise block every write of the data they chose to keep.
  const findings = opts.disable?.length ? all.filter((f) => !opts.disable!.includes(f.rule)) : all
  if (findings.length === 0) return
  throw new FluxError('FLUX_CREDENTIAL_FOUND', {
    failed: `${op} fixture ${rel(where)}`,
    reason: `found ${findings.length} secret-looking value${findings.length > 1 ? 's' : ''} (credential_found)`,
    fix:
      op === 'write'
        ? 'Nothing was written. Add a redaction rule (`redact: { replace: [...] }` in the fluxlab options) or remove the secret from the agent\'s input.'
        : 'Remove the secret from the file (and rotate it: it was committed), or re-record with FLUX_GOLDEN=update.',
    details: findings.map(describeFinding),
  })
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
    ...scanText(s.manifest, FILES.manifest),
    ...scanText(s.model, FILES.model),
    ...scanText(s.tools, FILES.tools),
    ...(s.trace ? scanText(s.trace, FILES.trace) : []),
  ]
  guardSecrets(findings, fx.dir, 'write', opts)
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
  guardSecrets(scanText(trace, FILES.trace), dir, 'write', opts)
  writeFileAtomic(join(dir, FILES.trace), trace)
}

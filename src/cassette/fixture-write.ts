/**
 * Writing a fixture: serialized with a stable key order, secret-scanned first (a finding writes nothing), and
 * swapped in whole.
 */
import { join, relative } from 'node:path'
import { fixtureStore } from '../store/current.js'
import { stableJson } from './stable-json.js'
import type { Fixture, ModelCell, ToolCell } from './cell.js'
import { servedDigest } from './handout.js'
import { refuseSecrets } from './fixture-error.js'
import { FILES, yaml } from './fixture-files.js'
import { scanText } from './scan.js'
import { refuseSequenceGap } from './sequence.js'
import type { ScanOptions } from './scan-value.js'

const rel = (file: string) => relative(process.cwd(), file) || file

/** The file contents of a fixture, serialized; `undefined` trace leaves `trace.snap` alone. */
export interface SerializedFixture {
  manifest: string
  model: string
  tools: string
  trace?: string
}

/**
 * Serialize a fixture with stable key order (cells sorted by key name, one per line), each cell with the digest
 * of what replay serves from it (servedDigest, ./handout.ts).
 * @example
 * serializeFixture(fx).model
 */
export function serializeFixture(fx: Omit<Fixture, 'dir'>): SerializedFixture {
  const jsonl = (cells: ReadonlyArray<ModelCell | ToolCell>) =>
    cells.map((c) => cellJson({ ...c, digest: servedDigest(c) })).join('\n') + (cells.length ? '\n' : '')
  return {
    manifest: yaml().stringify(fx.manifest, { lineWidth: 0 }),
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
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${ORDERED_FIELDS.has(k) ? JSON.stringify(v) : stableJson(v)}`).join(',')}}`
}

/**
 * Write a fixture: its call sequence checked for holes and every file scanned for secrets first (either writes nothing), then the whole
 * directory swapped in at once (the store's `writeFixture`): a reader sees the old fixture or the new one, a crash
 * leaves one of them, and what else the directory holds (judge.jsonl, forks/) is kept.
 * @example
 * writeFixture({ dir, manifest, model, tools, trace })
 */
export function writeFixture(fx: Fixture, opts: ScanOptions = {}): void {
  refuseSequenceGap(fx)
  const s = serializeFixture(fx)
  const findings = [
    ...scanText(s.manifest, FILES.manifest, opts),
    ...scanText(s.model, FILES.model, opts),
    ...scanText(s.tools, FILES.tools, opts),
    ...(s.trace ? scanText(s.trace, FILES.trace, opts) : []),
  ]
  refuseSecrets(findings, { failed: `write fixture ${rel(fx.dir)}`, fix: WRITE_SECRET_FIX })
  fixtureStore().writeFixture(
    fx.dir,
    {
      [FILES.manifest]: s.manifest,
      [FILES.model]: s.model,
      ...(fx.tools.length ? { [FILES.tools]: s.tools } : {}),
      ...(s.trace !== undefined ? { [FILES.trace]: s.trace } : {}),
    },
    fx.tools.length ? [] : [FILES.tools],
  )
}

/**
 * Rewrite only `trace.snap` (for `-u` / `FLUX_GOLDEN=snapshots`).
 * @example
 * writeTrace(dir, renderTrace(outcome))
 */
export function writeTrace(dir: string, trace: string, opts: ScanOptions = {}): void {
  refuseSecrets(scanText(trace, FILES.trace, opts), { failed: `write fixture ${rel(dir)}`, fix: WRITE_SECRET_FIX })
  fixtureStore().writeFile(join(dir, FILES.trace), trace)
}

const WRITE_SECRET_FIX =
  "Nothing was written. Add a redaction rule (`redact: { replace: [...] }` in the fluxlab options) or remove the secret from the agent's input."

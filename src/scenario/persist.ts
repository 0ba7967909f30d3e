/**
 * What a run writes when it ends, decided in one place: the fixture of a recording
 * (manifest, cells, trace), and whether a replay's trace is written to `trace.snap`.
 * Used by `Scenario.run`, what-ifs (forks), `check`, and `fluxlab record|replay`.
 */
import { join, relative } from 'node:path'
import { FORMAT_VERSION, type Manifest, type ModelCell, type SourceTest, type ToolCell } from '../cassette/cell.js'
import { FILES } from '../cassette/fixture-files.js'
import { writeFixture, writeTrace } from '../cassette/fixture-write.js'
import type { TestContext } from '../context/types.js'
import { readGolden, type UpdateState } from '../golden/update-mode.js'
import { VERSION } from '../version.js'
import type { TraceSnapshot } from './outcome.js'

/**
 * The manifest of a new recording.
 * @example
 * manifestFor({ name, model, source: sourceOf(test), input, keyVars, maxBytes, redaction: redactor.marker })
 */
export function manifestFor(o: {
  name: string
  model: readonly ModelCell[]
  source?: SourceTest
  input?: unknown
  keyVars: readonly string[]
  maxBytes: number
  redaction: string
  normalize?: string
}): Manifest {
  return {
    formatVersion: FORMAT_VERSION,
    fluxlabVersion: VERSION,
    name: o.name,
    ...(o.source ? { source: o.source } : {}),
    recordedAt: new Date().toISOString(),
    ...(o.input !== undefined ? { input: o.input } : {}),
    models: [...new Set(o.model.map((c) => c.model).filter((m): m is string => !!m))].sort(),
    providerHosts: [...new Set(o.model.flatMap((c) => hostOf(c.url)))].sort(),
    keyVars: [...new Set(o.keyVars)].sort(),
    cassetteMaxBytes: o.maxBytes,
    redaction: o.redaction,
    ...(o.normalize ? { normalize: o.normalize } : {}),
  }
}

/** The test a fixture was recorded by, as `scenario.yaml` names it. */
export function sourceOf(test: TestContext | undefined): SourceTest | undefined {
  if (!test) return undefined
  return {
    file: relative(test.rootDir, test.testFile),
    name: test.testName,
    ...(test.nth && test.nth > 1 ? { nth: test.nth } : {}),
    ...(test.project ? { project: test.project } : {}),
    runner: test.runner,
  }
}

/**
 * Write a recording: its cells in run order, its manifest and its trace, atomically.
 * @example
 * saveRecording({ dir, manifest, model, tools, trace, disable })
 */
export function saveRecording(o: {
  dir: string
  manifest: Manifest
  model: ModelCell[]
  tools: ToolCell[]
  trace: string
  disable?: readonly string[]
  updateState?: UpdateState
}): TraceSnapshot {
  writeFixture({ dir: o.dir, manifest: o.manifest, model: o.model, tools: o.tools, trace: o.trace }, { disable: o.disable })
  return { file: join(o.dir, FILES.trace), status: 'added', updateState: o.updateState }
}

/**
 * When a replay may write its trace to `trace.snap`: rewrite it under `-u` or `FLUX_GOLDEN=snapshots`;
 * write a missing one outside CI. `check` never writes.
 * @example
 * traceRule(test?.updateState ?? updateStateFromEnv())
 */
export function traceRule(updateState: UpdateState, golden = readGolden()): { rewrite: boolean; writeMissing: boolean } {
  return { rewrite: golden === 'snapshots' || updateState === 'all', writeMissing: updateState !== 'none' }
}

/**
 * How a replayed run's trace compares with `trace.snap`, writing it when the rule allows and the run was faithful.
 * @example
 * settleTrace({ dir, expected: fixture.trace, trace, faithful: failures.length === 0, rule: traceRule(updateState), updateState })
 */
export function settleTrace(o: {
  dir: string
  expected: string | undefined
  trace: string
  faithful: boolean
  rule: { rewrite: boolean; writeMissing: boolean }
  updateState?: string
  disable?: readonly string[]
}): TraceSnapshot {
  const snapshot = (status: TraceSnapshot['status']): TraceSnapshot => ({
    file: join(o.dir, FILES.trace),
    expected: o.expected,
    updateState: o.updateState,
    status,
  })
  if (o.expected === o.trace) return snapshot('matched')
  const mayWrite = o.faithful && (o.rule.rewrite || (o.expected === undefined && o.rule.writeMissing))
  if (!mayWrite) return snapshot('mismatch')
  writeTrace(o.dir, o.trace, { disable: o.disable })
  return snapshot(o.expected === undefined ? 'added' : 'updated')
}

function hostOf(url: string): string[] {
  try {
    return [new URL(url).host]
  } catch {
    return []
  }
}

/** The trace check of `fluxlab test`: trace.snap against the trace rebuilt from the cells, rewritten on request. */
import { join } from 'node:path'
import { diffLinesUnified } from 'jest-diff'
import type { Fixture } from '../cassette/cell.js'
import { FILES } from '../cassette/fixture-files.js'
import { writeTrace } from '../cassette/fixture-write.js'
import { isFluxError } from '../errors.js'
import { fixtureSteps, renderTrace } from '../golden/trace.js'
import { display } from './fixtures.js'
import type { Problem } from './verify-checks.js'

export type TraceStatus = 'matched' | 'mismatch' | 'missing' | 'updated' | 'added' | 'unchecked'

/**
 * What became of the trace.snap of `fx` (read from `dir`): it matched the trace rebuilt from its cells, was
 * rewritten (`rewrite`: `FLUX_GOLDEN=snapshots`), or is missing or different (then a problem says so).
 * @example
 * report.trace = checkTrace(dir, fx, false, [], problems) // 'matched'
 */
export function checkTrace(dir: string, fx: Fixture, rewrite: boolean, disable: readonly string[], problems: Problem[]): TraceStatus {
  // @note a fork's trace may be headed by its parent's name (the run it came from): either is this fixture's trace.
  const names = [fx.manifest.name, (fx.manifest as { fork?: { parent?: unknown } }).fork?.parent].filter((n): n is string => typeof n === 'string')
  const traces = names.map((n) => renderTrace(n, fixtureSteps(fx)))
  const trace = traces.find((t) => t === fx.trace) ?? traces[0]
  const traceFile = join(dir, FILES.trace)
  if (fx.trace === trace) return 'matched'
  if (rewrite) {
    try {
      writeTrace(dir, trace, { disable })
      return fx.trace === undefined ? 'added' : 'updated'
    } catch (e) {
      if (!isFluxError(e)) throw e
      problems.push({
        code: 'credential_found',
        file: display(traceFile),
        message: `trace.snap was not rewritten: ${e.message.replace(/^\[fluxlab\] \w+: /, '')}`,
      })
      return fx.trace === undefined ? 'missing' : 'mismatch'
    }
  }
  if (fx.trace === undefined) {
    problems.push({
      code: 'trace_missing',
      file: display(traceFile),
      message: 'the fixture has no trace.snap. Write it offline with FLUX_GOLDEN=snapshots npx fluxlab test, then commit it.',
    })
    return 'missing'
  }
  problems.push({
    code: 'trace_mismatch',
    file: display(traceFile),
    line: firstDifferentLine(fx.trace, trace),
    message:
      'trace.snap differs from the trace rebuilt from the cells (model.jsonl, tools.jsonl). If the cells are right, rewrite it offline with ' +
      'FLUX_GOLDEN=snapshots npx fluxlab test; if trace.snap is right, the cells were edited: re-record with FLUX_GOLDEN=update.',
    diff: unifiedDiff(fx.trace, trace),
  })
  return 'mismatch'
}

/**
 * The unified diff of two traces, `-` trace.snap / `+` rebuilt, as plain text.
 * @example
 * unifiedDiff(fx.trace, renderTrace(name, steps))
 */
function unifiedDiff(expected: string, actual: string, labels: [string, string] = ['trace.snap', 'rebuilt from the cells']): string {
  const id = (s: string) => s
  // Plain text (colours are added when printing): the same diff goes into --json.
  return diffLinesUnified(expected.split('\n'), actual.split('\n'), {
    aAnnotation: labels[0],
    bAnnotation: labels[1],
    expand: false,
    contextLines: 2,
    aColor: id,
    bColor: id,
    commonColor: id,
    patchColor: id,
    changeColor: id,
    includeChangeCounts: false,
  })
}

function firstDifferentLine(a: string, b: string): number {
  const x = a.split('\n')
  const y = b.split('\n')
  let i = 0
  while (i < x.length && i < y.length && x[i] === y[i]) i++
  return i + 1
}

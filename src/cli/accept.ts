/**
 * `fluxlab test --accept <scenario>`: a deliberate hand edit of a fixture's cells made servable, by rewriting the
 * digests of its cells (servedDigest, src/cassette/handout.ts) to what they now serve, the whole fixture swapped in at once.
 */
import { join } from 'node:path'
import { digestMismatch } from '../cassette/handout.js'
import { readFixtureLines } from '../cassette/fixture.js'
import { FILES } from '../cassette/fixture-files.js'
import { writeFixture } from '../cassette/fixture-write.js'
import type { ScanOptions } from '../cassette/scan-value.js'
import { CliError, EXIT } from './errors.js'
import { display } from './fixtures.js'
import { problemText } from './verify-checks.js'

/**
 * Rewrite the digests of the cells of the fixture at `dir` and say which lines were edited (`tools.jsonl:2`).
 * Refuses, writing nothing, when the fixture has any other problem: accepting binds bytes, it fixes nothing.
 * @example
 * acceptEdits('/abs/tests/scenarios/weather') // ['tests/scenarios/weather/tools.jsonl:2']
 */
export function acceptEdits(dir: string, opts: ScanOptions = {}): string[] {
  const { fixture: fx, lines, problems } = readFixtureLines(dir, { disable: opts.disable, rerun: false, collect: true, digests: false })
  if (problems.length)
    throw new CliError(EXIT.failed, {
      failed: `accept the edits of ${display(dir)}`,
      reason: `it has ${problems.length} problem${problems.length > 1 ? 's' : ''} a digest does not cover, so nothing was written`,
      fix: 'Fix them first, then run --accept again',
      details: problems.map((p) => `${display(p.file)}${p.line ? `:${p.line}` : ''}: ${problemText(p)}`),
    })
  const edited = [
    ...fx.model.flatMap((c, i) => (digestMismatch(c) ? [`${display(join(dir, FILES.model))}:${lines.model[i]}`] : [])),
    ...fx.tools.flatMap((c, i) => (digestMismatch(c) ? [`${display(join(dir, FILES.tools))}:${lines.tools[i]}`] : [])),
  ]
  writeFixture({ dir, manifest: fx.manifest, model: fx.model, tools: fx.tools }, opts)
  return edited
}

/**
 * A fixture's call sequence. Every call a run makes gets its `seq` when it is sent (1, 2, … across both channels), and
 * every call sent is on the tape, answered or not (SPEC §3). So the seqs of a fixture's two files together are 1…n,
 * each once: a hole is a call the fixture lost, and a replay would serve the calls after it one cell off.
 */
import { join, relative } from 'node:path'
import { FluxError } from '../errors.js'
import type { Fixture } from './cell.js'
import { FILES } from './fixture-files.js'

/** The first seq missing from a fixture's call sequence: where it would be, and the cells around it. */
export interface SequenceGap {
  seq: number
  /** The file the call belongs in, when a channel's step numbers jump over it (`tool#7` then `tool#9`). */
  file?: typeof FILES.model | typeof FILES.tools
  /** The step it would have had there (`tool#8`). */
  step?: string
}

/** What the check reads of a cell. */
type Numbered = { seq: number; step: string }

/**
 * The first hole in the seqs of `fx`'s cells (1…n across both channels), or `undefined` when there is none.
 * @example
 * sequenceGap({ model: [{ seq: 1, step: 'model#1' }], tools: [{ seq: 3, step: 'tool#2' }] })
 * // { seq: 2, file: 'tools.jsonl', step: 'tool#1' }
 */
export function sequenceGap(fx: { model: ReadonlyArray<Numbered>; tools: ReadonlyArray<Numbered> }): SequenceGap | undefined {
  const seqs = new Set([...fx.model, ...fx.tools].map((c) => c.seq))
  let seq = 0
  const max = Math.max(0, ...seqs)
  for (let s = 1; s <= max; s++)
    if (!seqs.has(s)) {
      seq = s
      break
    }
  if (seq === 0) return undefined
  // @note which file lost it: the channel whose step number after the hole is not one more than the one before it.
  for (const [file, cells, prefix] of [
    [FILES.model, fx.model, 'model#'],
    [FILES.tools, fx.tools, 'tool#'],
  ] as const) {
    const before = cells.filter((c) => c.seq < seq).reduce((n, c) => Math.max(n, stepNumber(c.step, prefix)), 0)
    const after = cells.filter((c) => c.seq > seq).reduce((n, c) => Math.min(n, stepNumber(c.step, prefix)), Infinity)
    if (after !== Infinity && after > before + 1) return { seq, file, step: `${prefix}${before + 1}` }
  }
  return { seq }
}

const stepNumber = (step: string, prefix: string) => (step.startsWith(prefix) ? Number.parseInt(step.slice(prefix.length), 10) || 0 : 0)

/**
 * Refuse to write a fixture whose call sequence has a hole (SPEC §3): nothing is written.
 * @example
 * refuseSequenceGap(fx) // throws FLUX_FIXTURE_INVALID naming tools.jsonl and seq 8
 */
export function refuseSequenceGap(fx: Pick<Fixture, 'dir' | 'model' | 'tools'>): void {
  const gap = sequenceGap(fx)
  if (!gap) return
  const dir = relative(process.cwd(), fx.dir) || fx.dir
  const file = gap.file ? join(dir, gap.file) : `${dir} (${FILES.model}, ${FILES.tools})`
  const missing = `seq ${gap.seq}${gap.step ? ` (${gap.step})` : ''}`
  throw new FluxError('FLUX_FIXTURE_INVALID', {
    failed: `write fixture ${file}`,
    reason: `its call sequence has a gap: ${missing} is missing, so every call after it would replay one cell off. Nothing was written`,
    fix:
      'Every call a run sends is on the tape, answered or not: a hole is a bug in fluxlab (or a cell deleted by hand). ' +
      'Re-record the scenario, and report it if it happens again',
  })
}

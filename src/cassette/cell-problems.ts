/**
 * The problems a fixture's read reports for a model cell whose stored fields disagree with its chunks, and for a cell
 * edited by hand since it was recorded (its digest), with the command that fixes each.
 */
import type { Manifest, ModelCell } from './cell.js'
import { derivedMismatch } from './derived.js'
import type { FixtureProblem } from './fixture-error.js'
import type { DigestMismatch } from './handout.js'

const clip = (json: string) => (json.length > 80 ? `${json.slice(0, 77)}…` : json)

/** The problem of a model cell whose stored fields are not what its chunks parse to, or `undefined` when they agree. */
export function derivedProblem(cell: ModelCell, file: string, line: number, command: () => string): FixtureProblem | undefined {
  const m = derivedMismatch(cell)
  if (!m) return undefined
  return {
    file,
    line,
    field: m.field,
    reason:
      `its stored "${m.field}" is ${clip(m.stored)}, but its response.chunks say ${clip(m.parsed)} (the agent is served the chunks; matchers read ` +
      `"${m.field}")`,
    fix: `Re-record the scenario with ${command()}, or restore the line from version control.`,
  }
}

/** The problem of a cell whose digest is not that of what replay would serve from it (a hand edit). */
export function digestProblem(m: DigestMismatch, file: string, line: number, manifest: unknown, command: () => string): FixtureProblem {
  const name = (manifest as Partial<Manifest> | undefined)?.name
  return {
    code: 'digest_mismatch',
    file,
    line,
    field: 'digest',
    reason:
      `digest_mismatch: the line was changed since it was recorded (its "digest" is ${m.stored.slice(0, 19)}…, what replay would serve from it hashes ` +
      `to ${m.served.slice(0, 19)}…), and replay never serves an edited cell silently`,
    fix:
      `If the edit is deliberate, accept it with \`npx fluxlab test --accept ${name ?? '<scenario>'}\`; otherwise restore the line from version control ` +
      `or re-record the scenario with ${command()}.`,
  }
}

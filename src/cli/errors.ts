import type { MessageParts } from '../errors.js'

/**
 * The CLI's exit codes (documented in docs/cli.md; scripts depend on them).
 * @example
 * process.exitCode = EXIT.diverged
 */
export const EXIT = {
  /** Everything checked out. */
  ok: 0,
  /** A check failed (`test`, `scan`, `diff`), or the program under `record`/`replay` failed. */
  failed: 1,
  /** `replay`: the program left the tape (overflow, unrecorded tool call, unused recorded call, …). */
  diverged: 2,
  /** fluxlab could not do what was asked: no fixture, a fixture in the way, bad config, nothing recorded. */
  error: 3,
  /** The command line itself is wrong: unknown command or option, missing argument. */
  usage: 64,
} as const

export type ExitCode = (typeof EXIT)[keyof typeof EXIT]

/**
 * An error that ends a command with a STYLE message and an exit code.
 * @example
 * throw new CliError(EXIT.usage, { failed: 'read the command line', reason: 'unknown option --foo', fix: 'See `fluxlab test --help`.' })
 */
export class CliError extends Error {
  constructor(
    readonly exitCode: ExitCode,
    readonly parts: MessageParts,
  ) {
    super(`Failed to ${parts.failed}: ${parts.reason}`)
    this.name = 'CliError'
  }
}

/**
 * A usage error (exit 64) pointing at the command's help.
 * @example
 * throw usage('show', 'show needs a scenario name')
 */
export function usage(command: string | undefined, reason: string): CliError {
  return new CliError(EXIT.usage, {
    failed: 'read the command line',
    reason,
    fix: `See \`fluxlab ${command ? `${command} ` : ''}--help\`.`,
  })
}

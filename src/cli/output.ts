import pc from 'picocolors'
import { formatMessage, notice, type MessageParts } from '../errors.js'
import { redactMessage } from '../secrets/redact.js'

export type Colors = ReturnType<typeof pc.createColors>

/**
 * Colours for one stream: on when it is a TTY, off under `NO_COLOR` (any value) or when piped;
 * `FORCE_COLOR` (non-zero) turns them on anyway.
 * @example
 * colorsFor(process.stdout).green('✓')
 */
function colorsFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): Colors {
  return pc.createColors(colorEnabled(stream, env))
}

/**
 * Whether colours are on for a stream (see {@link colorsFor}).
 * @example
 * colorEnabled(process.stderr) // false when piped
 */
export function colorEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  const force = env.FORCE_COLOR
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false'
  return stream.isTTY === true
}

/**
 * A command's view of the terminal: two streams with their own colours, redacted writes, a progress line.
 * @example
 * const out = new Output()
 * out.line(out.c.green('✓ ok'))
 */
export class Output {
  readonly c: Colors
  readonly ce: Colors
  private progressShown = false

  constructor(
    readonly out: NodeJS.WriteStream = process.stdout,
    readonly err: NodeJS.WriteStream = process.stderr,
  ) {
    this.c = colorsFor(out)
    this.ce = colorsFor(err)
  }

  /** A line on stdout. Text from fixtures is already redacted; this redacts again on the way out. */
  line(text = ''): void {
    this.clearProgress()
    this.out.write(`${redactMessage(text)}\n`)
  }

  /** Raw text on stdout (JSON output). */
  raw(text: string): void {
    this.out.write(text)
  }

  /** A `[fluxlab] …` note on stderr. */
  note(text: string): void {
    this.clearProgress()
    this.err.write(`${notice(text)}\n`)
  }

  /** A warning on stderr, yellow when colours are on. */
  warn(text: string): void {
    this.clearProgress()
    this.err.write(`${this.ce.yellow(notice(text))}\n`)
  }

  /** A STYLE error (`[fluxlab] Failed to …: reason. fix.` + bullets) on stderr. */
  error(parts: MessageParts | string): void {
    this.clearProgress()
    const text = typeof parts === 'string' ? redactMessage(parts) : formatMessage(parts)
    this.err.write(`${this.ce.red(text)}\n`)
  }

  /**
   * A transient progress line on stderr (`\r`-rewritten), only when stderr is a terminal:
   * piped output and CI logs stay clean.
   */
  progress(text: string): void {
    if (!this.err.isTTY) return
    const width = Math.max(20, (this.err.columns ?? 80) - 1)
    this.err.write(`\r\x1b[2K${this.ce.dim(text.length > width ? `${text.slice(0, width - 1)}…` : text)}`)
    this.progressShown = true
  }

  clearProgress(): void {
    if (!this.progressShown) return
    this.err.write('\r\x1b[2K')
    this.progressShown = false
  }
}

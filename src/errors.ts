import { redactMessage } from './secrets/redact.js'

/**
 * Every error code fluxlab throws. Divergence codes (SPEC §3) live on
 * outcomes as `Divergence.code`; these are the codes of thrown errors.
 */
export type FluxErrorCode =
  | 'FLUX_NO_RECORDING'
  | 'FLUX_BAD_CONFIG'
  | 'FLUX_FIXTURE_INVALID'
  | 'FLUX_FORMAT_VERSION'
  | 'FLUX_CREDENTIAL_FOUND'
  | 'FLUX_DIVERGED'
  | 'FLUX_OFFLINE'
  | 'FLUX_FIXTURE_EXISTS'
  | 'FLUX_CONCURRENT_TEST'
  | 'FLUX_RECORD_FAILED'
  | 'FLUX_JUDGE_MISS'
  | 'FLUX_UNFINISHED_RUN'
  | 'FLUX_JUDGE_FAILED'
  | 'FLUX_JUDGE_ERROR'
  | 'FLUX_INTERNAL'
  | 'FLUX_NOT_IN_TEST'
  | 'FLUX_NO_KEY'
  | 'FLUX_UNROUTABLE'

export interface MessageParts {
  /** What failed, as "<verb> <thing>": `record scenario "weather"`. */
  failed: string
  /** Why, one sentence. */
  reason: string
  /** What to do, with the exact command or option. */
  fix?: string
  /** Extra lines, rendered as `  • ` bullets. */
  details?: readonly string[]
}

/**
 * The one formatter for user-facing text: `[fluxlab] Failed to <verb> <thing>: <reason>. <fix>`
 * followed by bullets; with a `code`, `[fluxlab] <CODE>: Failed to …`. The result is passed through the secret redactor.
 * @example
 * formatMessage({ failed: 'open scenario "weather"', reason: 'model.jsonl line 3 is not JSON', fix: 'Re-record it with FLUX_GOLDEN=update.' })
 */
export function formatMessage(parts: MessageParts, code?: FluxErrorCode): string {
  let text = `[fluxlab] ${code ? `${code}: ` : ''}Failed to ${parts.failed}: ${sentence(parts.reason)}`
  if (parts.fix) text += ` ${sentence(parts.fix)}`
  for (const d of parts.details ?? []) text += `\n  • ${d}`
  return redactMessage(text)
}

/**
 * A note that is not a failure (warnings, progress), with the same prefix and redaction.
 * @example
 * notice('recorded scenario "weather" (3 model calls)')
 */
export function notice(text: string): string {
  return redactMessage(`[fluxlab] ${text}`)
}

/**
 * The error type fluxlab throws. `code` is stable and documented; the message
 * is already redacted.
 * @example
 * try { await scenario('x') } catch (e) { if (e instanceof FluxError && e.code === 'FLUX_NO_RECORDING') … }
 */
export class FluxError extends Error {
  readonly code: FluxErrorCode
  constructor(code: FluxErrorCode, parts: MessageParts | string, options?: { cause?: unknown }) {
    // @note The code goes into the message: runners print an error's name and message, never its other fields.
    super(typeof parts === 'string' ? redactMessage(parts) : formatMessage(parts, code), options)
    this.code = code
    this.name = 'FluxError'
  }
}

/** True for a FluxError with the given code (works across duplicated copies of the library). */
export function isFluxError(e: unknown, code?: FluxErrorCode): e is FluxError {
  return typeof e === 'object' && e !== null && (e as Error).name === 'FluxError' && (code === undefined || (e as FluxError).code === code)
}

function sentence(s: string): string {
  const t = s.trim()
  return /[.!?)`]$/.test(t) ? t : `${t}.`
}

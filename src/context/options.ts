import { FluxError } from '../errors.js'
import type { NormalizeRule } from '../cassette/normalize.js'
import type { RedactorConfig } from '../cassette/redact.js'
import type { PricingTable } from '../pricing/index.js'
import type { ProviderFamily } from '../providers/registry.js'

/**
 * Options for `fluxlab()` (vitest plugin), the jest setup, and `scenario(name, options)`.
 * Everything is serializable so the vitest plugin can pass it to workers.
 */
export interface FluxOptions {
  /** Where fixtures live, relative to the project root. Default `tests/scenarios`. */
  dir?: string
  /**
   * Replay pacing: unset serves chunks as fast as the client reads; `'recorded'`
   * waits the recorded gaps between chunks; a number scales them (`0.5` = twice as fast).
   */
  timing?: 'recorded' | number
  /** Extra JSON paths of request bodies that never count toward a match (`metadata.trace_id`, `messages[*].cache_control`). */
  ignore?: string[]
  /**
   * Rules that rewrite the canonical request before it is keyed, never what is sent, stored as the response, or given
   * to the agent: built-ins `'iso-dates'`, `'uuids'`, `'temp-paths'`, `'model-dates'`, or `{ pattern, replace }` (a
   * string pattern is literal text, a RegExp is used as given). Changing them asks for a re-record (`redaction_mismatch`).
   * @example
   * fluxlab({ normalize: ['iso-dates', 'uuids', { pattern: /run-\d+/g, replace: 'run-<n>' }] })
   */
  normalize?: NormalizeRule[]
  /** Extra hosts (`host` or `host:port`) that belong to a provider family, e.g. `{ 'llm-proxy.internal:8080': 'openai-chat' }`. */
  hosts?: Record<string, ProviderFamily>
  /** Largest body stored whole, in bytes. Default `FLUX_CASSETTE_MAX_BYTES` or 1 MiB. */
  maxBytes?: number
  /** Prices (USD per million tokens) by model id that win over the built-in table, for `toCostUnder` and `Outcome.cost()`. */
  pricing?: PricingTable
  /** Redaction rules added to the built-in ones. */
  redact?: RedactorConfig
  /**
   * Whole-suite mode: `'per-test'` makes every test its own scenario (named from its file and full
   * name) with no change to test bodies; `'explicit'` (default) records only what `scenario()` runs.
   * @example
   * fluxlab({ scenarios: 'per-test' })
   */
  scenarios?: 'explicit' | 'per-test'
  /** With `scenarios: 'per-test'`, only test files matching these globs (relative to the project root, `**` and `*`). */
  include?: string[]
  /**
   * While recording, send a host's live traffic to another base URL (a gateway, a proxy, a local
   * emulator); the fixture keeps the host the client called. Merged over `FLUX_UPSTREAM`.
   * @example
   * fluxlab({ upstream: { 'api.openai.com': 'http://localhost:4000' } })
   */
  upstream?: Record<string, string>
  /**
   * What the end-of-test check does with divergences the test did not assert on (every run in the
   * test, explicit or whole-suite): `'failures'` (default) fails the test on a failure-level
   * divergence; `'strict'` fails on drift warnings too; `'off'` prints them as a warning and lets
   * the test's own result stand. `FLUX_END_CHECK` sets it when the option does not.
   * @example
   * fluxlab({ scenarios: 'per-test', endCheck: 'strict' })
   */
  endCheck?: EndCheck
  /**
   * More environment variables that get a placeholder on replay when unset, beside the built-in
   * provider keys: the names your skip gates and load-time checks read (`MY_GATEWAY_KEY`). Merged
   * with `FLUX_KEYS` (comma-separated).
   * @example
   * fluxlab({ scenarios: 'per-test', keys: ['LITELLM_API_KEY'] })
   */
  keys?: string[]
  /**
   * Give child processes of a run the providers' base-URL variables (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`,
   * `GOOGLE_GEMINI_BASE_URL`, `OPENAI_API_BASE`), pointed at a loopback endpoint of the run: a child fluxlab cannot
   * preload (a Python or Go tool, a script that resets `NODE_OPTIONS`) then reaches the provider through the run, and
   * its calls are recorded and replayed as the provider's. `FLUX_CHILD_BASE_URLS=1` sets it when the option does not.
   * @example
   * fluxlab({ scenarios: 'per-test', childBaseUrls: true })
   */
  childBaseUrls?: boolean
}

/**
 * The extra key variables of `options.keys` and `FLUX_KEYS`; a name that is not an environment
 * variable name is `FLUX_BAD_CONFIG`.
 * @example
 * keysFrom({ keys: ['A_KEY'] }, { FLUX_KEYS: 'B_KEY, C_KEY' }) // ['A_KEY', 'B_KEY', 'C_KEY']
 */
export function keysFrom(options: FluxOptions, env: NodeJS.ProcessEnv = process.env): string[] {
  const fromEnv = (env.FLUX_KEYS ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean)
  const names = [...new Set([...(options.keys ?? []), ...fromEnv])]
  const bad = names.find((k) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(k))
  if (bad !== undefined)
    throw new FluxError('FLUX_BAD_CONFIG', {
      failed: `read ${(options.keys ?? []).includes(bad) ? 'the fluxlab option `keys`' : 'FLUX_KEYS'}`,
      reason: `${JSON.stringify(bad)} is not an environment variable name`,
      fix: "List variable names (letters, digits, `_`), e.g. `keys: ['LITELLM_API_KEY']` or FLUX_KEYS=LITELLM_API_KEY,MY_KEY.",
    })
  return names
}

/** See `FluxOptions.endCheck`. */
export type EndCheck = 'failures' | 'strict' | 'off'

/**
 * The end-of-test check in force: the `endCheck` option, else `FLUX_END_CHECK`, else `'failures'`.
 * @example
 * endCheckFrom({}, { FLUX_END_CHECK: 'strict' }) // 'strict'
 */
export function endCheckFrom(options: FluxOptions, env: NodeJS.ProcessEnv = process.env): EndCheck {
  const v = options.endCheck ?? (env.FLUX_END_CHECK?.trim() || 'failures')
  if (v === 'failures' || v === 'strict' || v === 'off') return v
  throw new FluxError('FLUX_BAD_CONFIG', {
    failed: `read ${options.endCheck !== undefined ? 'the fluxlab option `endCheck`' : 'FLUX_END_CHECK'}`,
    reason: `${JSON.stringify(v)} is not a valid value`,
    fix: "Use one of: 'failures' (the default: fail on a failure-level divergence), 'strict' (drift warnings fail too), 'off' (print, never fail).",
  })
}

/**
 * The upstream map: `FLUX_UPSTREAM` (`host=url,host=url`) under the `upstream` option.
 * @example
 * upstreamFrom({}, { FLUX_UPSTREAM: 'api.openai.com=http://localhost:4000' }) // { 'api.openai.com': 'http://localhost:4000' }
 */
export function upstreamFrom(options: FluxOptions, env: NodeJS.ProcessEnv = process.env): Record<string, URL> {
  const out: Record<string, URL> = {}
  const add = (host: string, base: string, where: string) => {
    let url: URL
    try {
      url = new URL(base)
    } catch {
      throw new FluxError('FLUX_BAD_CONFIG', {
        failed: `read ${where}`,
        reason: `"${base}" (for ${host}) is not an absolute URL`,
        fix: 'Give each host a base URL, e.g. FLUX_UPSTREAM=api.openai.com=http://localhost:4000.',
      })
    }
    out[host.trim().toLowerCase()] = url
  }
  for (const pair of (env.FLUX_UPSTREAM ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = pair.indexOf('=')
    if (eq <= 0)
      throw new FluxError('FLUX_BAD_CONFIG', {
        failed: 'read FLUX_UPSTREAM',
        reason: `"${pair}" is not host=url`,
        fix: 'Use e.g. FLUX_UPSTREAM=api.openai.com=http://localhost:4000,api.anthropic.com=http://localhost:4001.',
      })
    add(pair.slice(0, eq), pair.slice(eq + 1).trim(), 'FLUX_UPSTREAM')
  }
  for (const [host, base] of Object.entries(options.upstream ?? {})) add(host, base, 'the fluxlab option `upstream`')
  return out
}

export const DEFAULT_DIR = 'tests/scenarios'
export const DEFAULT_MAX_BYTES = 1024 * 1024

/**
 * `FLUX_CASSETTE_MAX_BYTES`, or 1 MiB; anything but a positive whole number is an error.
 * @example
 * maxBytesFromEnv() // 1048576 when unset
 */
export function maxBytesFromEnv(): number {
  const raw = process.env.FLUX_CASSETTE_MAX_BYTES
  if (raw === undefined || raw === '') return DEFAULT_MAX_BYTES
  const n = Number(raw)
  if (!Number.isInteger(n) || n <= 0)
    throw new FluxError('FLUX_BAD_CONFIG', {
      failed: 'read FLUX_CASSETTE_MAX_BYTES',
      reason: `"${raw}" is not a positive whole number of bytes`,
      fix: 'Set it to a byte count, e.g. FLUX_CASSETTE_MAX_BYTES=4194304 (4 MiB), or unset it for 1 MiB.',
    })
  return n
}

/**
 * Whether whole-suite mode is on: the `scenarios` option, else `FLUX_SCENARIOS`.
 * @note here, not in scenario/per-test.ts, so vitest's setup file can tell without loading the per-test engine.
 * @example
 * perTestMode({ scenarios: 'per-test' }) // true
 */
export function perTestMode(options: FluxOptions, env: NodeJS.ProcessEnv = process.env): boolean {
  const v = options.scenarios ?? (env.FLUX_SCENARIOS?.trim() || undefined)
  if (v === undefined || v === 'explicit') return false
  if (v === 'per-test') return true
  throw new FluxError('FLUX_BAD_CONFIG', {
    failed: `read ${options.scenarios !== undefined ? 'the fluxlab option `scenarios`' : 'FLUX_SCENARIOS'}`,
    reason: `${JSON.stringify(v)} is not a valid value`,
    fix: "Use one of: 'explicit' (only what scenario() runs; the default), 'per-test' (every test is its own scenario).",
  })
}

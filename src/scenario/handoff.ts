/**
 * A run handed to another process for a while, and taken back: a child started with `execSync`, `execFileSync` or
 * `spawnSync` blocks this process, so nothing here can answer its requests. The child is started under a holder
 * (`src/cli/holder.ts`) that continues the run for it: the same fixture and settings, numbering on from where the
 * run is, the cells served so far marked served. When the child exits, what the holder's run did (its steps,
 * divergences, live calls, the cells it served) is taken back into the run, as if the run had made those calls.
 */
import type { Divergence } from '../cassette/divergence.js'
import { createNormalizer, type NormalizeRule } from '../cassette/normalize.js'
import { createRedactor, type RedactorConfig } from '../cassette/redact.js'
import type { Mode } from '../golden/update-mode.js'
import type { ProviderFamily } from '../providers/registry.js'
import type { Counters, RunSettings } from './pipeline/index.js'
import type { RunStep, ToolResultRef } from './pipeline/log.js'
import type { UsedCells } from './pipeline/takes.js'

/** A RegExp as JSON. */
interface Pattern {
  source: string
  flags: string
}

/** What a holder needs to continue a run: all JSON. */
export interface RunHandoff {
  name: string
  dir: string
  mode: Mode
  /** The run's rerun command with `%ENV%` where its env setting goes. */
  rerun: string
  settings: {
    redact: Omit<RedactorConfig, 'replace'> & { replace?: Array<{ pattern: string | Pattern; with?: string }> }
    ignore: readonly string[]
    normalize: Array<Exclude<NormalizeRule, { pattern: unknown }> | { pattern: string | Pattern; replace: string }>
    hosts: Record<string, ProviderFamily>
    maxBytes: number
    timing?: 'recorded' | number
    offline: boolean
    upstream: Record<string, string>
    keys: readonly string[]
  }
  counters: Counters
  /** Replay: the cells served so far. */
  used?: UsedCells
}

/** What the holder's run did, to take back. */
export interface RunReturn {
  counters: Counters
  entries: RunStep[]
  divergences: Divergence[]
  modelLive: number
  keyVars: string[]
  /** Replay: every cell served, before and while the holder ran. */
  used?: UsedCells
  /** Replay: the tool results each of its model requests sent back (`unwrapped_tool`). */
  sent?: Array<{ seq: number; step: string; results: readonly ToolResultRef[] }>
  fatal?: { message: string; code?: string }
  /** The command could not be started (ENOENT, EACCES): what `spawnSync` reports as `error`. */
  spawnError?: { message: string; code?: string; errno?: number; syscall?: string; path?: string }
}

const ENV = '%ENV%'

const asJson = (re: RegExp): Pattern => ({ source: re.source, flags: re.flags })

/**
 * A run's configuration as JSON, for its holder.
 * @example
 * writeFileSync(file, JSON.stringify(handoffOf(run.config, counters, tape?.used())))
 */
export function handoffOf(
  config: { name: string; dir: string; mode: Mode; command: (env: string) => string } & RunSettings,
  counters: Counters,
  used?: UsedCells,
): RunHandoff {
  const { replace, ...redact } = config.redactor.config
  return {
    name: config.name,
    dir: config.dir,
    mode: config.mode,
    rerun: config.command(ENV),
    settings: {
      redact: {
        ...redact,
        ...(replace
          ? {
              replace: replace.map((r) => ({
                ...r,
                pattern: typeof r.pattern === 'string' ? r.pattern : { source: r.pattern.source, flags: r.pattern.flags },
              })),
            }
          : {}),
      },
      ignore: config.ignore,
      normalize: config.normalize.config.map((r) => (typeof r === 'string' || typeof r.pattern === 'string' ? r : { ...r, pattern: asJson(r.pattern) })),
      hosts: config.hosts,
      maxBytes: config.maxBytes,
      ...(config.timing !== undefined ? { timing: config.timing } : {}),
      offline: config.offline,
      upstream: Object.fromEntries(Object.entries(config.upstream).map(([host, url]) => [host, url.href])),
      keys: config.keys,
    },
    counters: { ...counters },
    ...(used ? { used } : {}),
  }
}

/**
 * The settings and rerun command a holder's run is built with, from the handoff.
 * @example
 * const { settings, command } = settingsFrom(handoff)
 */
export function settingsFrom(h: RunHandoff): { settings: RunSettings; command: (env: string) => string } {
  const { replace, ...redact } = h.settings.redact
  const config: RedactorConfig = {
    ...redact,
    ...(replace
      ? { replace: replace.map((r) => ({ ...r, pattern: typeof r.pattern === 'string' ? r.pattern : new RegExp(r.pattern.source, r.pattern.flags) })) }
      : {}),
  }
  return {
    settings: {
      redactor: createRedactor(config),
      ignore: h.settings.ignore,
      normalize: createNormalizer(
        (h.settings.normalize ?? []).map(
          (r): NormalizeRule =>
            typeof r === 'string' ? r : { ...r, pattern: typeof r.pattern === 'string' ? r.pattern : new RegExp(r.pattern.source, r.pattern.flags) },
        ),
      ),
      hosts: h.settings.hosts,
      maxBytes: h.settings.maxBytes,
      ...(h.settings.timing !== undefined ? { timing: h.settings.timing } : {}),
      offline: h.settings.offline,
      upstream: Object.fromEntries(Object.entries(h.settings.upstream).map(([host, url]) => [host, new URL(url)])),
      keys: h.settings.keys,
    },
    command: (env) => h.rerun.split(ENV).join(env),
  }
}

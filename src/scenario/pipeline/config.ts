import type { Fixture, ModelCell, ToolCell } from '../../cassette/cell.js'
import type { Normalizer } from '../../cassette/normalize.js'
import type { Redactor } from '../../cassette/redact.js'
import type { TestContext } from '../../context/types.js'
import type { Mode } from '../../golden/update-mode.js'
import type { ProviderFamily } from '../../providers/registry.js'
import type { Intervention } from '../intervention.js'
import type { Refusal } from './refuse.js'

/** The settings every run of a scenario shares, derived from its options once (`runSettings`). */
export interface RunSettings {
  redactor: Redactor
  ignore: readonly string[]
  /** `normalize`: the rules that rewrite a canonical request before it is keyed. */
  normalize: Normalizer
  hosts: Record<string, ProviderFamily>
  maxBytes: number
  timing?: 'recorded' | number
  offline: boolean
  /** While recording: host → the base URL its live traffic goes to (the cell keeps the host the client called). */
  upstream: Record<string, URL>
  /** More key variables a replay fills (`keys`, `FLUX_KEYS`). */
  keys: readonly string[]
}

/**
 * Everything a run is configured with, declared once: its scenario's settings and what this run is. Frozen when the
 * run is built (`Run.config`); the stages only read it. What the run observes is its `RunLog`.
 */
export interface RunConfig extends RunSettings {
  name: string
  dir: string
  mode: Mode
  /** The tape (replay). */
  fixture?: Fixture
  /** Performs a live request outside interception. Default: `liveFetch`. */
  live: (request: Request) => Promise<Response>
  /** A counterfactual's changes, or `check`'s rules; absent for a plain record or replay. */
  intervention?: Intervention
  /** `durable()`: serve an earlier run's journaled results first, and journal every live result before the agent sees it. */
  journal?: JournalHooks
  /** The exact command that runs this scenario again under `env` (`FLUX_GOLDEN=update …`), for messages. */
  command: (env: string) => string
  /** The test that started the run: it checks the run's divergences when it ends. */
  test?: TestContext
  /** `lab.scenario`: the scenario the agent runs in (a what-if's run is named after its fork). */
  scenario: string
  /** `lab.input`. */
  input?: unknown
  /** A run that can neither record nor replay: it takes only what the refusal claims, and refuses it. */
  refusal?: Refusal
  /**
   * How the agent puts its in-process tools on this run's tape, for the advice of an `unwrapped_tool` warning:
   * `lab.tools` inside `s.run` (the default), or, in whole-suite mode (a test has no `lab`), a setup file of the
   * runner's config first (no test edited), then `tools()` from `fluxlab` where the tools are built.
   */
  toolWrap?: 'lab' | 'import'
  /**
   * Whole-suite mode (issue 38): a request to a server of the test's own process tree (a loopback port one of its
   * processes listens on) is not the network: it never reaches this run (`scenario/router.ts`). Off in explicit mode,
   * where a local server stands in for a tool API on the tape (decision 0015).
   */
  ownServers?: boolean
}

/** What a run is built from: its configuration, with the scenario's shared settings as one object and defaults left out. */
export type RunInit = Omit<RunConfig, keyof RunSettings | 'live' | 'command' | 'scenario'> &
  Partial<Pick<RunConfig, 'live' | 'command' | 'scenario'>> & { settings: RunSettings }

/**
 * What `durable()` plugs into a recording run (SPEC §9). `intent` is called before a live
 * operation starts and `cell` after it finished, before its result is handed to the agent; both
 * write and flush to disk before returning.
 */
export interface JournalHooks {
  prefix: { model: readonly ModelCell[]; tools: readonly ToolCell[] }
  intent(entry: { kind: 'intent'; seq: number; step: string; key: string }): void
  cell(entry: { kind: 'cell'; channel: 'model'; cell: ModelCell } | { kind: 'cell'; channel: 'tool'; cell: ToolCell }): void
}

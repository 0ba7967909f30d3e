import { dirname } from 'node:path'
import { stableJson } from '../cassette/stable-json.js'
import type { Divergence } from '../cassette/divergence.js'
import type { Mode } from '../golden/update-mode.js'
import { renderTrace, type TraceStep } from '../golden/trace.js'
import type { NormalizedUsage, RequestedToolCall } from '../providers/types.js'
import type { ProviderFamily } from '../providers/registry.js'
import { emptyUsage } from '../providers/types.js'
import { costBreakdown, type CostBreakdown, type PricingTable } from '../pricing/index.js'
import { stepLabels, stepMatches, type StepRef } from './steps.js'

/** One model call of a run, as the agent received it. */
export interface ModelCall {
  step: string
  family: ProviderFamily
  model?: string
  url: string
  status: number
  text: string
  toolCalls: RequestedToolCall[]
  usage: NormalizedUsage
  finishReason?: string
  error?: string
}

/** One entry of the trajectory: a tool call the model requested, joined with its execution on the tool channel. */
export interface TrajectoryCall {
  name: string
  id?: string
  args: unknown
  /** The model step that asked for it (`model#2`), if any model did. */
  requestedAt?: string
  /** The tool step that ran it (`tool#1 read`), if it ran on the tool channel. */
  executedAt?: string
}

/**
 * How this run's trace compares with the fixture's `trace.snap`:
 * `matched`; `added` / `updated` (written by this run: a recording, `-u`, `FLUX_GOLDEN=snapshots`,
 * or a missing trace.snap outside CI); `mismatch` (different, and nothing was written).
 */
export interface TraceSnapshot {
  file: string
  status: 'matched' | 'added' | 'updated' | 'mismatch'
  /** The trace.snap content before this run (absent when there was none). */
  expected?: string
  /** Whether the runner's update state allowed writing (`none` in CI). */
  updateState?: string
}

export interface UsageSummary extends NormalizedUsage {
  byModel: Record<string, NormalizedUsage>
}

/** What an `Outcome` is built from. */
export interface OutcomeInit<R> {
  scenario: string
  mode: Mode
  result: R
  /** The run's steps in run order. */
  steps: TraceStep[]
  divergences?: Divergence[]
  modelLive?: number
  /** Marks the divergences as seen, so the end-of-test check does not repeat them. */
  acknowledge?: () => void
  traceSnapshot?: TraceSnapshot
  /** The scenario's fixture directory, where no trace comparison names it (a whole-suite test's outcome mid-test). */
  dir?: string
  pricing?: PricingTable
  /** A counterfactual reports its own hermeticity (a tool call bridged live, a halt). */
  hermetic?: boolean
  commands?: OutcomeCommands
}

/** The exact commands a failure on this outcome tells the user to run. */
export interface OutcomeCommands {
  /** Re-record the scenario: `FLUX_GOLDEN=update npx vitest run a.test.ts -t '^…$'`. */
  rerecord: string
  /** Rewrite its trace.snap offline: `FLUX_GOLDEN=snapshots …`. */
  updateTrace: string
}

/**
 * What a scenario run did. Returned by `Scenario.run`.
 * @example
 * const out = await s.run(() => agent('hi'))
 * out.text; out.modelCalls.length; out.hermetic
 */
export class Outcome<R = unknown> {
  /** Final assistant text: the text of the last model call that produced any. */
  readonly text: string
  readonly modelCalls: ModelCall[]
  readonly calls: TrajectoryCall[]
  readonly usage: UsageSummary
  /** Failure-level divergences and drift warnings, in the order they happened. */
  readonly divergences: Divergence[]
  /** Divergences of severity `warning` (drift). */
  readonly warnings: Divergence[]
  /** True when every request was served from the tape (never in record mode). */
  readonly hermetic: boolean

  readonly scenario: string
  readonly mode: Mode
  readonly result: R
  /** Model requests that went to the real provider. */
  readonly modelLive: number
  /** How the trace compares with `trace.snap` (absent for outcomes not tied to a fixture). */
  readonly traceSnapshot?: TraceSnapshot
  /** The scenario's fixture directory (where `toPassJudge` keeps its verdicts), when the outcome is tied to one. */
  readonly dir?: string
  /** Prices from the project options (`fluxlab({ pricing })`), under any passed to `cost()`. */
  readonly pricing?: PricingTable
  /** The exact commands a failure on this outcome names (absent for outcomes not tied to a test or fixture). */
  readonly commands?: OutcomeCommands
  protected readonly steps: TraceStep[]
  private readonly acknowledge: () => void

  /** @internal built by a run (`Scenario.run`, `s.replay()`, `check`, `durable()`) */
  constructor(init: OutcomeInit<R>) {
    const { mode, steps, modelLive = 0 } = init
    const divergences = init.divergences ?? []
    this.scenario = init.scenario
    this.mode = mode
    this.result = init.result
    this.steps = steps
    this.modelLive = modelLive
    this.acknowledge = init.acknowledge ?? (() => {})
    this.traceSnapshot = init.traceSnapshot
    this.dir = init.dir ?? (init.traceSnapshot ? dirname(init.traceSnapshot.file) : undefined)
    this.pricing = init.pricing
    this.commands = init.commands
    this.divergences = divergences
    this.warnings = divergences.filter((d) => d.severity === 'warning')
    this.modelCalls = steps.flatMap((s, i) => (s.channel === 'model' ? [toModelCall(s.cell, steps, i)] : []))
    this.text = [...this.modelCalls].reverse().find((c) => c.text)?.text ?? ''
    this.usage = summarize(this.modelCalls)
    this.calls = trajectory(steps)
    this.hermetic = init.hermetic ?? (mode === 'replay' && modelLive === 0 && !divergences.some((d) => d.severity === 'failure'))
  }

  /**
   * The global step number (as in `trace.snap`) of a step of this run, or `undefined` when the run has no such step.
   * @example
   * out.indexOf('model#2') // 3
   * out.indexOf('tool#1 read') // 2
   */
  indexOf(step: StepRef): number | undefined {
    const i = stepLabels(this.steps).findIndex((label, j) => stepMatches(j + 1, label, step))
    return i < 0 ? undefined : i + 1
  }

  /** The labels of this run's steps in order (`model#1`, `tool#1 read`, …). */
  stepLabels(): string[] {
    return stepLabels(this.steps)
  }

  /** Failure-level divergences only. */
  get failures(): Divergence[] {
    return this.divergences.filter((d) => d.severity === 'failure')
  }

  /**
   * What the recorded model calls cost at list prices, per model (the replay itself costs $0).
   * A model with no known price throws, naming it: never $0.
   * @example
   * out.cost().total // 0.00123
   * out.cost({ 'my-model': { input: 0.15, output: 0.6 } })
   */
  cost(pricing?: PricingTable): CostBreakdown {
    return costBreakdown(this.modelCalls, { ...this.pricing, ...pricing })
  }

  /** The rendered trace of this run (`trace.snap` format). */
  trace(): string {
    return renderTrace(this.scenario, this.steps)
  }

  /** @internal */
  markSeen(): void {
    this.acknowledge()
  }
}

function toModelCall(cell: Extract<TraceStep, { channel: 'model' }>['cell'], steps: TraceStep[], index: number): ModelCall {
  const n = steps.slice(0, index + 1).filter((s) => s.channel === 'model').length
  return {
    step: `model#${n}`,
    family: cell.family,
    model: cell.model,
    url: cell.url,
    status: cell.response.status,
    text: cell.text,
    toolCalls: cell.toolCalls,
    usage: cell.usage,
    finishReason: cell.finishReason,
    error: cell.providerError?.message ?? cell.transportError?.message,
  }
}

function summarize(calls: ModelCall[]): UsageSummary {
  const total: UsageSummary = Object.assign(emptyUsage(), { byModel: {} })
  for (const c of calls) {
    const m = (total.byModel[c.model ?? 'unknown'] ??= emptyUsage())
    for (const k of ['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning'] as const) {
      total[k] += c.usage[k]
      m[k] += c.usage[k]
    }
  }
  return total
}

/**
 * One entry per call (SPEC §5): a tool-channel call joins the model's request for it by call id,
 * else by name and canonical arguments, the first such request not yet executed (a wrapped tool
 * that the SDK's tool loop calls without the id).
 */
/** An MCP tool-channel cell: the tool call it is (`tools/call`), `null` for protocol traffic, `undefined` when not MCP. */
function mcpCall(cell: Extract<TraceStep, { channel: 'tool' }>['cell']): { name: string; args: unknown } | null | undefined {
  if (cell.kind !== 'http' || !cell.name.startsWith('mcp ')) return undefined
  const body = (cell.args as { body?: { method?: unknown; params?: { name?: unknown; arguments?: unknown } } } | undefined)?.body
  if (body?.method !== 'tools/call' || typeof body.params?.name !== 'string') return null
  return { name: body.params.name, args: body.params.arguments ?? {} }
}

function trajectory(steps: TraceStep[]): TrajectoryCall[] {
  const out: TrajectoryCall[] = []
  const byId = new Map<string, TrajectoryCall>()
  const sameCall = (c: TrajectoryCall, name: string, args: unknown) =>
    c.executedAt === undefined && c.requestedAt !== undefined && c.name === name && stableJson(c.args ?? null) === stableJson(args ?? null)
  let model = 0
  let tool = 0
  for (const s of steps) {
    if (s.channel === 'model') {
      model++
      for (const call of s.cell.toolCalls) {
        const entry: TrajectoryCall = { name: call.name, id: call.id, args: call.args, requestedAt: `model#${model}` }
        out.push(entry)
        if (call.id) byId.set(call.id, entry)
      }
    } else {
      tool++
      const at = `tool#${tool} ${s.cell.name}`
      // @note MCP: a tools/call is a call of its tool, with its arguments; the protocol around it (initialize, lists, the stream) is not a call.
      const mcp = mcpCall(s.cell)
      if (mcp === null) continue
      if (mcp) {
        const requested = out.find((c) => sameCall(c, mcp.name, mcp.args))
        if (requested) requested.executedAt = at
        else out.push({ name: mcp.name, args: mcp.args, executedAt: at })
        continue
      }
      const byCallId = s.cell.callId ? byId.get(s.cell.callId) : undefined
      const requested = byCallId ?? out.find((c) => sameCall(c, s.cell.name, s.cell.args))
      if (requested) requested.executedAt = at
      else out.push({ name: s.cell.name, id: s.cell.callId, args: s.cell.args, executedAt: at })
    }
  }
  return out
}

import type { JsonDiffRow } from '../cassette/json-diff.js'
import { FluxError } from '../errors.js'
import type { TraceStep } from '../golden/trace.js'
import { codecFor } from '../providers/registry.js'
import type { ProviderFamily } from '../providers/registry.js'
import { checkFaultTarget, describeFault, faultKind, type Fault, type FaultKind, type HttpFault } from './faults.js'
import { resolveStep, type ResolvedStep, type StepRef } from './steps.js'

/** What happens when a counterfactual needs something the tape cannot explain. */
export type OffTape = 'halt' | 'live'

/** A tool name, `'http.request'` (every HTTP tool call), or a pattern. */
export type ToolMatcher = string | RegExp

/**
 * Re-decide every tool dispatch: a call is allowed when it matches `allow`
 * (every call, when `allow` is not given) and does not match `deny`. A function
 * returns `true` to allow, `false` or a reason to deny.
 */
export type ToolPolicy = { allow?: readonly ToolMatcher[]; deny?: readonly ToolMatcher[] } | ((call: { name: string; args: unknown }) => boolean | string)

/**
 * One change to a recorded run, captured by `s.whatIf()…spec()` (or written by hand)
 * and applied by `WhatIf.run` or `whatIfOver`.
 * @example
 * const spec: WhatIfSpec = { model: 'gpt-4.1-mini', offTape: 'halt' }
 */
export interface WhatIfSpec {
  /** The model turn the change starts at (1-based): `model`/`instructions` rewrite from it on, `substitute` answers the tool calls it asked for. */
  turn?: number
  /** Faults, each at a step as numbered in the parent's trace.snap. */
  inject?: Array<{ at: StepRef; fault: Fault }>
  /** Every call of a tool answers this output instead of the tape (no model call, no tool body). */
  substitute?: Array<{ tool: ToolMatcher; output: unknown }>
  /** One step answers this output instead of the tape. */
  substituteAt?: Array<{ at: StepRef; output: unknown }>
  /** Send this model id in every model request (from `turn`). */
  model?: string
  /** Send this system prompt in every model request (from `turn`). */
  instructions?: string
  /** Re-decide every tool dispatch under this policy; a denial halts the run. */
  policy?: ToolPolicy
  /** After the change, what a request the tape cannot explain does (default `halt`; under `FLUX_GOLDEN=update`, `live`, which records the fork). */
  offTape?: OffTape
  /** The fork's directory name under `<scenario>/forks/` (default: derived from the change). */
  name?: string
}

/** Where a counterfactual stopped: the request the frozen world could not explain, or a denial. */
export interface Halt {
  step: string
  reason: string
  kind: 'off-tape' | 'denied' | 'offline'
  closest?: string
  diff?: JsonDiffRow[]
}

/** A fault or `substituteAt` resolved to the recorded call it answers. */
export interface Target {
  channel: 'model' | 'tool'
  key: string
  from: number
  times: number
  kind: FaultKind
  fault: Fault
  label: string
  index: number
  description: string
  /** The recorded cell at that step (a stream cut serves its first chunks). */
  step: ResolvedStep
}

interface Substitute {
  tool: ToolMatcher
  output: unknown
  description: string
}

/** A change that fired at a step of this run. */
export interface AppliedChange {
  step: string
  description: string
}

/**
 * The per-run state of a counterfactual (or a `check`): which requests a change
 * answers, how model requests are rewritten, how tool dispatches are decided,
 * and what a request the tape cannot explain does. The pipeline's intervene and off-tape stages ask it.
 */
export class Intervention {
  readonly targets: Target[] = []
  readonly substitutes: Substitute[] = []
  readonly applied: AppliedChange[] = []
  halted?: Halt
  /** The first step a change fired at. */
  changedAt?: string
  private readonly counts = new Map<string, number>()
  private readonly hangs = new Set<() => void>()

  private constructor(
    readonly spec: WhatIfSpec,
    /** `check`: exact matching everywhere, model misses go live, tool misses halt; no change. */
    readonly check: boolean,
    readonly offTape: OffTape,
    /** The tape is the fork recorded for this change (so its cells are this counterfactual's own world). */
    readonly usingFork: boolean,
  ) {}

  /** The intervention of `s.check()`. */
  static forCheck(): Intervention {
    return new Intervention({}, true, 'live', false)
  }

  /**
   * The intervention of a what-if over a recorded run: every step reference resolved against the parent's steps.
   * @throws FluxError `FLUX_BAD_CONFIG` for a step the parent does not have or a fault that does not fit it.
   */
  static forWhatIf(spec: WhatIfSpec, ctx: { scenario: string; parentSteps: readonly TraceStep[]; offTape: OffTape; usingFork: boolean }): Intervention {
    const iv = new Intervention(spec, false, ctx.offTape, ctx.usingFork)
    for (const { at, fault } of spec.inject ?? []) {
      const step = resolveStep(ctx.parentSteps, at, { scenario: ctx.scenario, verb: 'inject a fault at' })
      const where = `${step.index} (${step.label}) of scenario "${ctx.scenario}"`
      const kind = faultKind(fault, where)
      checkFaultTarget(kind, { channel: step.channel, kind: step.channel === 'tool' ? (step.cell as { kind: 'http' | 'fn' }).kind : undefined }, where)
      iv.addTarget(step, kind, fault, `injectAt(${JSON.stringify(at)}, ${describeFault(fault)})`)
    }
    for (const { at, output } of spec.substituteAt ?? []) {
      const step = resolveStep(ctx.parentSteps, at, { scenario: ctx.scenario, verb: 'substitute the output of' })
      const fn = step.channel === 'tool' && (step.cell as { kind: string }).kind === 'fn'
      const fault: Fault = fn ? { output } : asHttp(output)
      iv.addTarget(step, fn ? 'output' : 'status', fault, `substituteAt(${JSON.stringify(at)}, ${clip(JSON.stringify(output) ?? 'undefined')})`)
    }
    for (const { tool, output } of spec.substitute ?? [])
      iv.substitutes.push({
        tool,
        output,
        description: `substitute(${String(tool instanceof RegExp ? tool : JSON.stringify(tool))}, ${clip(JSON.stringify(output) ?? 'undefined')})`,
      })
    if (spec.turn !== undefined && !(Number.isInteger(spec.turn) && spec.turn >= 1))
      throw new FluxError('FLUX_BAD_CONFIG', {
        failed: `set the what-if turn of scenario "${ctx.scenario}"`,
        reason: `turn must be a model turn number from 1, got ${JSON.stringify(spec.turn)}`,
        fix: 'Pass e.g. .turn(2) for the second model call.',
      })
    return iv
  }

  private addTarget(step: ResolvedStep, kind: FaultKind, fault: Fault, description: string): void {
    this.targets.push({
      channel: step.channel,
      key: step.key,
      from: step.occurrence,
      times: fault.times ?? 1,
      kind,
      fault,
      label: step.label,
      index: step.index,
      description,
      step,
    })
  }

  /** Exact-key matching only: always in `check`, after the change in a counterfactual (SPEC §3). */
  exactOnly(): boolean {
    return this.check || this.changedAt !== undefined
  }

  /** What a request the tape cannot explain does on this channel. */
  missAction(channel: 'model' | 'tool'): OffTape {
    if (this.check) return channel === 'model' ? 'live' : 'halt'
    return this.offTape
  }

  /**
   * Whether recorded calls never made are reported: yes from a fork (this run's own recording), no for the parent's path
   * once the change took the run elsewhere.
   */
  reportUnused(): boolean {
    if (this.check) return false
    return this.usingFork || this.changedAt === undefined
  }

  markChanged(step: string, description: string): void {
    this.changedAt ??= step
    this.applied.push({ step, description })
  }

  halt(h: Halt): void {
    this.halted ??= h
  }

  /** The rewritten request, when `model`/`instructions` change it at model turn `n`. */
  rewriteModel(family: ProviderFamily, url: URL, text: string, n: number): { url: URL; text: string; description: string } | undefined {
    const { model, instructions } = this.spec
    if ((model === undefined && instructions === undefined) || n < (this.spec.turn ?? 1)) return undefined
    const out = codecFor(family).rewriteRequest(url, text, { model, instructions })
    if (!out) return undefined
    const what = [
      model !== undefined ? `model(${JSON.stringify(model)})` : '',
      instructions !== undefined ? `instructions(${clip(JSON.stringify(instructions))})` : '',
    ]
      .filter(Boolean)
      .join(' + ')
    return { ...out, description: what }
  }

  /** The fault that answers this model request instead of the tape (counting the key's appearances, so a retry is the next one). */
  modelFault(key: string): Target | undefined {
    return this.fire('model', key)
  }

  /**
   * The change that answers this tool call: a fault or `substituteAt` at its step,
   * else a `substitute` of its tool (within `turn`, when set).
   */
  toolChange(call: { kind: 'http' | 'fn'; name: string; key: string; turn: number }): { kind: FaultKind; fault: Fault; description: string } | undefined {
    const t = this.fire('tool', call.key)
    if (t) return t
    if (this.spec.turn !== undefined && call.turn !== this.spec.turn) return undefined
    const sub = this.substitutes.find((s) => toolMatches(s.tool, call))
    if (!sub) return undefined
    if (call.kind === 'fn') return { kind: 'output', fault: { output: sub.output }, description: sub.description }
    const fault = asHttp(sub.output)
    return { kind: 'status', fault, description: sub.description }
  }

  private fire(channel: 'model' | 'tool', key: string): Target | undefined {
    if (this.check) return undefined
    const id = `${channel}\0${key}`
    const occurrence = (this.counts.get(id) ?? 0) + 1
    this.counts.set(id, occurrence)
    return this.targets.find((t) => t.channel === channel && t.key === key && occurrence >= t.from && occurrence < t.from + t.times)
  }

  /** The policy's decision on one tool dispatch: `undefined` allows it, a string is the reason it is denied. */
  denies(call: { name: string; kind: 'http' | 'fn'; args: unknown }): string | undefined {
    const p = this.spec.policy
    if (!p) return undefined
    if (typeof p === 'function') {
      const d = p({ name: call.name, args: call.args })
      return d === true ? undefined : typeof d === 'string' ? d : `the policy function returned ${JSON.stringify(d)}`
    }
    const deny = p.deny?.find((m) => toolMatches(m, call))
    if (deny !== undefined) return `deny: ${String(deny instanceof RegExp ? deny : JSON.stringify(deny))}`
    if (p.allow && !p.allow.some((m) => toolMatches(m, call)))
      return `not in allow: [${p.allow.map((m) => (m instanceof RegExp ? String(m) : JSON.stringify(m))).join(', ')}]`
    return undefined
  }

  /** Keep a hanging response's release, so the end of the run lets it go. */
  registerHang(release: () => void): void {
    this.hangs.add(release)
  }

  /** Release every response still hanging (the run is over). */
  releaseHangs(): void {
    for (const r of this.hangs) r()
    this.hangs.clear()
  }
}

/**
 * True when a tool matcher names this call: the same name, a RegExp that matches it,
 * or `'http.request'` / `'http'` for any HTTP tool call.
 * @example
 * toolMatches('http.request', { kind: 'http', name: 'GET api.example.com/x' }) // true
 */
function toolMatches(m: ToolMatcher, call: { kind: 'http' | 'fn'; name: string }): boolean {
  if (m instanceof RegExp) return new RegExp(m.source, m.flags.replace(/[gy]/g, '')).test(call.name)
  if (m === call.name) return true
  return call.kind === 'http' && (m === 'http.request' || m === 'http')
}

/**
 * An HTTP answer from a substitute output: `{ status, headers?, body? }` as given,
 * anything else as a 200 JSON (or text) body.
 */
function asHttp(output: unknown): HttpFault {
  if (output && typeof output === 'object' && !Array.isArray(output)) {
    const o = output as Record<string, unknown>
    const keys = Object.keys(o)
    if (typeof o.status === 'number' && keys.every((k) => k === 'status' || k === 'headers' || k === 'body'))
      return { status: o.status, headers: o.headers as Record<string, string> | undefined, body: o.body }
  }
  return { status: 200, body: output }
}

const clip = (s: string, n = 60) => (s.length > n ? `${s.slice(0, n - 1)}…` : s)

import type { ModelCell, ToolCell } from '../cassette/cell.js'
import { FluxError } from '../errors.js'
import type { TraceStep } from '../golden/trace.js'

/**
 * A step as `trace.snap` numbers it: the global step (`3` or `'3'`), a channel
 * step (`'model#2'`, `'tool#1'`, `'tool#1 refund.issue'`), or a tool name
 * (`'refund.issue'`: its first call).
 */
export type StepRef = number | string

/** A step of a recorded run, found from a {@link StepRef}. */
export interface ResolvedStep {
  /** 1-based global step (the number at the start of the trace line). */
  index: number
  /** `model#2` or `tool#1 refund.issue`. */
  label: string
  channel: 'model' | 'tool'
  cell: ModelCell | ToolCell
  /** The request key (model) or name + args key (tool). */
  key: string
  /** This key's n-th appearance on its channel in the run (1-based): a retry of the same request is the next one. */
  occurrence: number
}

type ParsedRef = { kind: 'global'; n: number } | { kind: 'channel'; channel: 'model' | 'tool'; n: number; name?: string } | { kind: 'name'; name: string }

const CHANNEL_REF = /^(model|tool)#(\d+)(?:\s+(.+))?$/

/**
 * Read a step reference; `undefined` when it is not one.
 * @example
 * parseStepRef('tool#1 read') // { kind: 'channel', channel: 'tool', n: 1, name: 'read' }
 */
export function parseStepRef(ref: StepRef): ParsedRef | undefined {
  if (typeof ref === 'number') return Number.isInteger(ref) && ref >= 1 ? { kind: 'global', n: ref } : undefined
  if (typeof ref !== 'string') return undefined
  const s = ref.trim()
  if (/^\d+$/.test(s)) return Number(s) >= 1 ? { kind: 'global', n: Number(s) } : undefined
  const m = CHANNEL_REF.exec(s)
  if (m) return Number(m[2]) >= 1 ? { kind: 'channel', channel: m[1] as 'model' | 'tool', n: Number(m[2]), name: m[3]?.trim() } : undefined
  return s ? { kind: 'name', name: s } : undefined
}

/**
 * The label of every step, in order: `model#k` or `tool#k <name>`, numbered per channel as in `trace.snap`.
 * @example
 * stepLabels(steps) // ['model#1', 'tool#1 get_capital', 'model#2']
 */
export function stepLabels(steps: readonly TraceStep[]): string[] {
  let model = 0
  let tool = 0
  return steps.map((s) => (s.channel === 'model' ? `model#${++model}` : `tool#${++tool} ${s.cell.name}`))
}

/**
 * True when the step at `index` (1-based) labelled `label` is the step `ref` names.
 * @example
 * stepMatches(3, 'tool#1 read', 'tool#1') // true
 */
export function stepMatches(index: number, label: string, ref: StepRef): boolean {
  const p = parseStepRef(ref)
  if (!p) return false
  if (p.kind === 'global') return p.n === index
  const m = CHANNEL_REF.exec(label)
  if (!m) return false
  if (p.kind === 'name') return m[1] === 'tool' && m[3] === p.name
  return p.channel === m[1] && p.n === Number(m[2]) && (p.name === undefined || p.name === m[3])
}

/**
 * Find the step `ref` names in a recorded run.
 * @throws FluxError `FLUX_BAD_CONFIG` naming the steps the run has, when `ref` is not one of them.
 * @example
 * resolveStep(parentSteps, 'model#2', { scenario: 'refund', verb: 'inject a fault at' })
 */
export function resolveStep(steps: readonly TraceStep[], ref: StepRef, ctx: { scenario: string; verb: string }): ResolvedStep {
  const labels = stepLabels(steps)
  const parsed = parseStepRef(ref)
  const i = parsed ? labels.findIndex((label, j) => stepMatches(j + 1, label, ref)) : -1
  if (i < 0) {
    const listed = labels.slice(0, 12).map((l, j) => `${j + 1} ${l}`)
    if (labels.length > 12) listed.push(`… ${labels.length - 12} more`)
    throw new FluxError('FLUX_BAD_CONFIG', {
      failed: `${ctx.verb} step ${JSON.stringify(ref)} of scenario "${ctx.scenario}"`,
      reason: parsed
        ? `the recording has ${labels.length} step${labels.length === 1 ? '' : 's'} and none is ${JSON.stringify(ref)}`
        : "a step is a number from trace.snap (3), a channel step ('model#2', 'tool#1') or a tool name",
      fix: "Use a step as numbered in the scenario's trace.snap, e.g. 3, 'model#2' or 'tool#1'.",
      details: listed,
    })
  }
  const step = steps[i]
  const key = step.cell.key
  const occurrence = steps.slice(0, i + 1).filter((s) => s.channel === step.channel && s.cell.key === key).length
  return { index: i + 1, label: labels[i], channel: step.channel, cell: step.cell, key, occurrence }
}

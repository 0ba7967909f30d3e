/**
 * Issue 41 item 2, `fluxlab report --since`: what a re-record changed in one fixture, as behaviour rather than JSONL
 * lines. The two versions' steps are aligned (longest common subsequence of "model <id>" / "tool <name>"), so an
 * inserted tool call is one added step, not every later step changed; an aligned pair reports its changed request
 * (which message, which field, the text around the change), its changed answer text or tool calls, a tool's changed
 * arguments or output. Everything shown comes from the fixtures, which are redacted on write, and is redacted again.
 */
import type { Fixture, ModelCell, ToolCell } from '../../cassette/cell.js'
import { bodyText } from '../../cassette/chunks.js'
import { diffJson, type JsonDiffRow } from '../../cassette/json-diff.js'
import { fixtureSteps, type TraceStep } from '../../golden/trace.js'
import type { PricingTable } from '../../pricing/index.js'
import { redactMessage } from '../../secrets/redact.js'
import { runView } from '../steps.js'
import { around, fieldOf } from './text-change.js'

/** One changed field of a request or of a tool's arguments: where, and the text around the change on both sides. */
interface FieldChange {
  /** JSON path in the canonical body (`messages[0].content`). */
  path: string
  /** `message 1 (user)` when the path is inside a conversation message. */
  message?: string
  /** The field inside it (`content`), or the whole path. */
  field: string
  kind: JsonDiffRow['kind']
  before?: string
  after?: string
  /** The same change was already shown at this earlier step (a later turn carries the conversation again). */
  sameAs?: string
}

export interface StepChange {
  /** `model#2`, `tool#1`: the step's id in the new version (in the old one for a removed step). */
  step: string
  kind: 'added' | 'removed' | 'changed'
  /** The model id or the tool name. */
  label: string
  /** A changed step's id in the old version, where it differs (`tool#2` now was `tool#1`). */
  was?: string
  /** An added step's answer or a removed step's, in one line. */
  summary?: string
  request?: FieldChange[]
  answer?: { before: string; after: string }
  toolCalls?: { before: string[]; after: string[] }
  output?: { before: string; after: string }
  status?: { before?: number; after?: number }
}

interface Side {
  steps: number
  tokens: { input: number; output: number }
  cost: number
  unpriced: string[]
  durationMs: number
  finalText: string
}

export interface FixtureReview {
  name: string
  dir: string
  status: 'added' | 'removed' | 'changed' | 'unreadable'
  /** `unreadable`: which version could not be read, and why (redacted): the fixture changed, how is unknown. */
  reason?: string
  /** A step, a request, an answer, a tool call or an output differs (not only timing, ids or metadata). */
  behaviour: boolean
  before?: Side
  after?: Side
  added: number
  removed: number
  changes: StepChange[]
}

/**
 * Review one fixture against its earlier version (either may be missing: added or removed).
 * @example
 * reviewFixture('capital', 'tests/scenarios/capital', old, now).changes[0].request?.[0].field // 'content'
 */
export function reviewFixture(name: string, dir: string, before: Fixture | undefined, after: Fixture | undefined, pricing?: PricingTable): FixtureReview {
  const a = before ? labelled(fixtureSteps(before)) : []
  const b = after ? labelled(fixtureSteps(after)) : []
  const changes: StepChange[] = []
  const seen = new Map<string, string>()
  for (const [i, j] of align(
    a.map((s) => s.sig),
    b.map((s) => s.sig),
  )) {
    if (i === undefined) changes.push({ step: b[j!].id, kind: 'added', label: b[j!].label, summary: summaryOf(b[j!].step) })
    else if (j === undefined) changes.push({ step: a[i].id, kind: 'removed', label: a[i].label, summary: summaryOf(a[i].step) })
    else {
      const c = compareStep(a[i].step, b[j].step)
      for (const f of c?.request ?? []) {
        const key = `${f.path}\0${f.before}\0${f.after}`
        if (seen.has(key)) f.sameAs = seen.get(key)
        else seen.set(key, b[j].id)
      }
      if (c) changes.push({ step: b[j].id, kind: 'changed', label: b[j].label, ...(a[i].id !== b[j].id ? { was: a[i].id } : {}), ...c })
    }
  }
  const side = (fx: Fixture | undefined): Side | undefined => {
    if (!fx) return undefined
    const v = runView(fx, pricing)
    const durationMs = v.steps.reduce((n, s) => n + s.durationMs, 0)
    const tokens = { input: v.usage.input, output: v.usage.output }
    return { steps: v.steps.length, tokens, cost: v.cost, unpriced: v.unpriced, durationMs, finalText: redactMessage(v.finalText) }
  }
  return {
    name,
    dir,
    status: !before ? 'added' : !after ? 'removed' : 'changed',
    behaviour: !before || !after || changes.length > 0,
    ...(before ? { before: side(before) } : {}),
    ...(after ? { after: side(after) } : {}),
    added: changes.filter((c) => c.kind === 'added').length,
    removed: changes.filter((c) => c.kind === 'removed').length,
    changes,
  }
}

interface Labelled {
  step: TraceStep
  id: string
  label: string
  sig: string
}

function labelled(steps: TraceStep[]): Labelled[] {
  let model = 0
  let tool = 0
  return steps.map((step) => {
    const label = step.channel === 'model' ? (step.cell.model ?? step.cell.family) : step.cell.name
    const id = step.channel === 'model' ? `model#${++model}` : `tool#${++tool}`
    return { step, id, label, sig: `${step.channel} ${label}` }
  })
}

/**
 * Pairs of positions of a longest common subsequence of `a` and `b`, with the rest as one-sided pairs, in order
 * (a removed step before an added one at the same place).
 * @example
 * align(['m', 't', 'm'], ['m', 't', 't', 'm']) // [[0,0],[1,1],[undefined,2],[2,3]]
 */
export function align(a: readonly string[], b: readonly string[]): Array<[number | undefined, number | undefined]> {
  const n = a.length
  const m = b.length
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0))
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1])
  const out: Array<[number | undefined, number | undefined]> = []
  let i = 0
  let j = 0
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) out.push([i++, j++])
    else if (j >= m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1])) out.push([i++, undefined])
    else out.push([undefined, j++])
  }
  return out
}

const callText = (c: { name: string; args: unknown }) => redactMessage(`${c.name}(${JSON.stringify(c.args) ?? ''})`)

function summaryOf(s: TraceStep): string {
  if (s.channel === 'model') {
    const calls = s.cell.toolCalls.map(callText)
    return redactMessage(s.cell.text ? JSON.stringify(s.cell.text) : calls.length ? `→ ${calls.join(', ')}` : `HTTP ${s.cell.response.status}`)
  }
  return callText({ name: s.cell.name, args: s.cell.args })
}

/** What differs between two aligned steps, or undefined when they hold the same request and answer. */
function compareStep(x: TraceStep, y: TraceStep): Omit<StepChange, 'step' | 'kind' | 'label'> | undefined {
  const out: Omit<StepChange, 'step' | 'kind' | 'label'> = {}
  if (x.channel === 'model' && y.channel === 'model') {
    const request = fieldChanges(x.cell.request.body, y.cell.request.body, x.cell.request.body)
    const [before, after] = [x.cell.request.path, y.cell.request.path]
    if (before !== after) request.unshift({ path: '(path)', field: 'path', kind: 'changed', before, after })
    if (request.length) out.request = request
    if (x.cell.text !== y.cell.text) out.answer = textChange(x.cell.text, y.cell.text)
    const calls = (c: ModelCell) => c.toolCalls.map(callText)
    if (JSON.stringify(calls(x.cell)) !== JSON.stringify(calls(y.cell))) out.toolCalls = { before: calls(x.cell), after: calls(y.cell) }
    if (x.cell.response.status !== y.cell.response.status) out.status = { before: x.cell.response.status, after: y.cell.response.status }
  } else if (x.channel === 'tool' && y.channel === 'tool') {
    const args = fieldChanges(x.cell.args, y.cell.args)
    if (args.length) out.request = args
    const before = toolResult(x.cell)
    const after = toolResult(y.cell)
    if (before !== after) out.output = textChange(before, after)
    if (x.cell.response?.status !== y.cell.response?.status) out.status = { before: x.cell.response?.status, after: y.cell.response?.status }
  }
  return Object.keys(out).length ? out : undefined
}

function toolResult(c: ToolCell): string {
  if (c.error) return `${c.error.name}: ${c.error.message}`
  if (c.kind === 'http') {
    const failed = c.transportError ? ` ${c.transportError.name}: ${c.transportError.message}` : ''
    return `${c.response ? bodyText(c.response.chunks) : ''}${failed}`
  }
  return JSON.stringify(c.output) ?? ''
}

function textChange(a: string, b: string): { before: string; after: string } {
  const [before, after] = around(a, b)
  return { before: redactMessage(before), after: redactMessage(after) }
}

/** The changed fields of two JSON values; `body` (the old request) names the role of a changed message. */
function fieldChanges(a: unknown, b: unknown, body?: unknown): FieldChange[] {
  return diffJson(a, b, 12).map((r) => {
    const where = fieldOf(r.path, body)
    const text = (v: unknown) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v)))
    const change: FieldChange = { path: r.path, ...where, kind: r.kind }
    if (r.kind === 'changed') {
      const t = textChange(text(r.recorded), text(r.actual))
      return { ...change, ...t }
    }
    if (r.kind === 'added') return { ...change, after: redactMessage(around('', text(r.actual))[1]) }
    return { ...change, before: redactMessage(around(text(r.recorded), '')[0]) }
  })
}

/**
 * The review of a fixture one of whose versions could not be read (an older format, a broken line): named, with why.
 * @example
 * unreadableReview('capital', 'tests/scenarios/capital', 'the version at origin/main: formatVersion 0 …')
 */
export function unreadableReview(name: string, dir: string, reason: string): FixtureReview {
  const text = redactMessage(reason)
  return { name, dir, status: 'unreadable', reason: text.length > 240 ? `${text.slice(0, 239)}…` : text, behaviour: true, added: 0, removed: 0, changes: [] }
}

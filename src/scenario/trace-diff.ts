import { renderTrace, type TraceStep } from '../golden/trace.js'

/**
 * One row of a counterfactual's diff against its parent run:
 * - `changed`: the same place in the run, another outcome (`recorded` → `actual`)
 * - `added`: a step only the counterfactual made
 * - `removed`: a recorded step the counterfactual never made
 * - `halted`: where the frozen world stopped explaining the run (nothing after it is known)
 */
export interface DiffRow {
  kind: 'changed' | 'added' | 'removed' | 'halted'
  /** The step in the counterfactual's trace (global number), for changed / added / halted rows. */
  index?: number
  /** Its label there (`tool#1 refund.issue`). */
  step?: string
  /** The step in the parent's trace, for changed / removed rows. */
  parentIndex?: number
  parentStep?: string
  /** The parent's trace lines for that step. */
  recorded?: string
  /** The counterfactual's trace lines for that step (for `halted`, why it halted). */
  actual?: string
  /** True when a fault or substitute of the what-if produced this step. */
  injected?: boolean
}

interface Block {
  index: number
  label: string
  /** The step's trace lines without its numbers: what two runs compare on. */
  sig: string
  text: string
  injected: boolean
}

const HEAD = /^(\d+) ((?:model|tool)#\d+)(.*)$/

/** A run's trace cut into one block per step. */
function blocks(steps: readonly TraceStep[]): Block[] {
  const lines = renderTrace('diff', steps).split('\n').slice(1)
  const out: Block[] = []
  for (const line of lines) {
    const m = HEAD.exec(line)
    if (m) {
      const channel = m[2].split('#')[0]
      const label = channel === 'tool' ? `${m[2]} ${(steps[out.length].cell as { name: string }).name}` : m[2]
      out.push({ index: Number(m[1]), label, sig: `${channel}${m[3]}`, text: `${m[2]}${m[3]}`, injected: 'injected' in steps[out.length].cell })
    } else if (out.length && line.startsWith('    ')) {
      const b = out[out.length - 1]
      b.sig += `\n${line}`
      b.text += `\n${line}`
    }
  }
  return out
}

/**
 * The rows a counterfactual caused: its steps against the parent's, aligned on
 * identical steps (longest common subsequence), adjacent removals and additions
 * paired as `changed` when they are the same kind of step (the model, or the same tool);
 * a halt ends the list.
 * @example
 * diffRuns(parentSteps, cfSteps, { step: 'model#3', reason: 'no recorded call matches this request exactly' })
 */
export function diffRuns(parent: readonly TraceStep[], actual: readonly TraceStep[], halt?: { step: string; reason: string }): DiffRow[] {
  const a = blocks(parent)
  const b = blocks(actual)
  // LCS table over step signatures
  const n = a.length
  const m = b.length
  const L: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0))
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) L[i][j] = a[i].sig === b[j].sig && !b[j].injected ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1])
  const rows: DiffRow[] = []
  let removed: Block[] = []
  let added: Block[] = []
  const flush = () => {
    // pair each removed step with the first unpaired added step of the same kind (the model, or the same tool)
    const partner = new Map<Block, Block>()
    for (const r of removed) {
      const ad = added.find((x) => !partner.has(x) && kindOf(x) === kindOf(r))
      if (ad) partner.set(ad, r)
    }
    const paired = new Set(partner.values())
    for (const ad of added) {
      const r = partner.get(ad)
      rows.push(r ? changed(r, ad) : { kind: 'added', index: ad.index, step: ad.label, actual: ad.text, ...(ad.injected ? { injected: true } : {}) })
    }
    for (const r of removed) if (!paired.has(r)) rows.push({ kind: 'removed', parentIndex: r.index, parentStep: r.label, recorded: r.text })
    removed = []
    added = []
  }
  let i = 0
  let j = 0
  while (i < n || j < m) {
    if (i < n && j < m && a[i].sig === b[j].sig && !b[j].injected) {
      flush()
      i++
      j++
    } else if (j < m && (i >= n || L[i][j + 1] >= L[i + 1][j])) added.push(b[j++])
    else removed.push(a[i++])
  }
  flush()
  if (halt) rows.push({ kind: 'halted', index: m + 1, step: halt.step, actual: halt.reason })
  return rows
}

/** `model`, or `tool <name>`: what a changed step keeps. */
const kindOf = (b: Block) => (b.label.startsWith('model#') ? 'model' : `tool ${b.label.split(' ').slice(1).join(' ')}`)

function changed(r: Block, ad: Block): DiffRow {
  return {
    kind: 'changed',
    index: ad.index,
    step: ad.label,
    parentIndex: r.index,
    parentStep: r.label,
    recorded: r.text,
    actual: ad.text,
    ...(ad.injected ? { injected: true } : {}),
  }
}

/**
 * The diff as text: `~` changed, `+` added, `-` removed, `!` halted, one row a line (continuation lines indented).
 * @example
 * formatDiff(cf.diff())
 * // ~ 3 tool#1 refund.issue {"order":"A1"} ✗ Error: disk full   (was → {"ok":true})
 */
export function formatDiff(rows: readonly DiffRow[]): string {
  if (rows.length === 0) return '  (no difference: the counterfactual made the same steps as the recording)'
  return rows
    .map((r) => {
      switch (r.kind) {
        case 'changed':
          return `~ ${r.index} ${indent(r.actual!)}${r.injected ? '   (injected)' : ''}\n    was: ${indent(r.recorded!, 9)}`
        case 'added':
          return `+ ${r.index} ${indent(r.actual!)}${r.injected ? '   (injected)' : ''}`
        case 'removed':
          return `- (recorded ${r.parentIndex}) ${indent(r.recorded!)}`
        case 'halted':
          return `! ${r.index} ${r.step} halted: ${r.actual}`
      }
    })
    .join('\n')
}

const indent = (s: string, n = 4) =>
  s
    .split('\n')
    .map((l, i) => (i === 0 ? l : `${' '.repeat(n)}${l.trim()}`))
    .join('\n')

/**
 * `fluxlab report --since <rev> --markdown F`: the behaviour review as a pull-request comment. Short on top (one line,
 * then one table row a fixture), one collapsed `<details>` a fixture with what changed step by step. GitHub cuts a
 * comment at 65,536 characters: past {@link MAX_CHARS} the rest of the details are left out and counted.
 */
import { redactMessage } from '../../secrets/redact.js'
import { usd } from '../steps.js'
import type { Breach } from './fail-on.js'
import type { FixtureReview, StepChange } from './review.js'
import type { Suite } from './suite.js'
import { around } from './text-change.js'

const MAX_CHARS = 60_000
/** Changes listed per fixture before the rest are counted. */
const MAX_CHANGES = 12

/** Inline code that survives backticks and pipes in the text (a table cell). */
function code(s: string): string {
  const t = s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ')
  const fence = t.includes('`') ? '``' : '`'
  return `${fence}${fence.length > 1 ? ' ' : ''}${t}${fence.length > 1 ? ' ' : ''}${fence}`
}

/** Plain text outside code: no HTML, no table break. */
const text = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '\\|')

const pct = (a: number, b: number) => (a === b ? '' : a > 0 ? ` (${b > a ? '+' : ''}${(((b - a) / a) * 100).toFixed(1)}%)` : '')
const secs = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms} ms`)

/**
 * `before → after` of one number, or the one side there is.
 * @example
 * beforeAfter(r, (s) => s.steps, String) // '3 → 4'
 */
export function beforeAfter(r: FixtureReview, pick: (s: NonNullable<FixtureReview['after']>) => number, show: (n: number) => string): string {
  if (!r.before && !r.after) return '?'
  if (!r.before) return show(pick(r.after!))
  if (!r.after) return `${show(pick(r.before))} → none`
  const a = pick(r.before)
  const b = pick(r.after)
  return a === b ? show(a) : `${show(a)} → ${show(b)}${pct(a, b)}`
}

/**
 * A fixture's change in a few words (the table's last column, the details' summary).
 * @example
 * headline(review) // 'model#1 request changed · tool#2 get_capital added'
 */
export function headline(r: FixtureReview): string {
  if (r.status === 'added') return 'new fixture'
  if (r.status === 'removed') return 'fixture removed'
  if (r.status === 'unreadable') return r.reason ?? 'unreadable'
  if (!r.behaviour) return 're-recorded: same steps, requests and answers (timing, ids or metadata only)'
  const parts = r.changes.slice(0, 4).map((c) => {
    if (c.kind !== 'changed') return `${c.step} ${c.label} ${c.kind}`
    const what = [c.request && 'request', c.answer && 'answer', c.toolCalls && 'tool calls', c.output && 'output', c.status && 'status'].filter(Boolean)
    return `${c.step} ${what.join(', ')} changed`
  })
  return `${parts.join(' · ')}${r.changes.length > 4 ? ` · +${r.changes.length - 4} more` : ''}`
}

/**
 * What one step change says, as Markdown list lines.
 * @example
 * changeLines(change) // ['- **model#1** `gpt-4o-mini`: request changed', '  - message 1 (user) `content`: …']
 */
function changeLines(c: StepChange): string[] {
  const head = `- **${c.step}** ${code(c.label)}`
  if (c.kind !== 'changed') return [`${head} ${c.kind}${c.summary ? `: ${code(c.summary)}` : ''}`]
  const lines = [`${head} changed`]
  for (const f of c.request ?? []) {
    const where = `${f.message ? `${f.message} ` : ''}${code(f.field)}`
    if (f.sameAs) lines.push(`  - ${where}: the same change as at ${f.sameAs}`)
    else if (f.kind === 'changed') lines.push(`  - ${where}: ${code(f.before ?? '')} → ${code(f.after ?? '')}`)
    else lines.push(`  - ${where} ${f.kind}: ${code((f.kind === 'added' ? f.after : f.before) ?? '')}`)
  }
  if (c.answer) lines.push(`  - answer: ${code(c.answer.before)} → ${code(c.answer.after)}`)
  if (c.toolCalls) lines.push(`  - tool calls: ${code(c.toolCalls.before.join(', ') || 'none')} → ${code(c.toolCalls.after.join(', ') || 'none')}`)
  if (c.output) lines.push(`  - output: ${code(c.output.before)} → ${code(c.output.after)}`)
  if (c.status) lines.push(`  - status: ${c.status.before ?? 'none'} → ${c.status.after ?? 'none'}`)
  return lines
}

/**
 * The whole comment.
 * @example
 * writeFileSync('review.md', reviewMarkdown(reviews, { since: 'origin/main', breaches: [] }))
 */
export function reviewMarkdown(reviews: readonly FixtureReview[], ctx: { since: string; breaches: readonly Breach[] }): string {
  const out: string[] = [`## fluxlab: what the agent does differently since ${code(ctx.since)}`, '']
  if (reviews.length === 0) {
    out.push(`No fixture differs from ${code(ctx.since)}.`)
    return `${out.join('\n')}\n`
  }
  const behaviour = reviews.filter((r) => r.behaviour).length
  const costs = reviews.reduce((n, r) => ({ a: n.a + (r.before?.cost ?? 0), b: n.b + (r.after?.cost ?? 0) }), { a: 0, b: 0 })
  out.push(
    `${reviews.length} fixture${reviews.length === 1 ? '' : 's'} changed, ${behaviour} in behaviour · ` +
      `recorded cost ${usd(costs.a)} → ${usd(costs.b)}${pct(costs.a, costs.b)}`,
    '',
  )
  for (const b of ctx.breaches) out.push(`> **Failed \`--fail-on ${b.rule}\`**: ${text(b.message)}`, '')
  out.push('| fixture | steps | tokens in / out | cost | time | what changed |', '|---|---|---|---|---|---|')
  for (const r of reviews) {
    const tokens = `${beforeAfter(r, (s) => s.tokens.input, String)} / ${beforeAfter(r, (s) => s.tokens.output, String)}`
    const cells = [code(r.name), beforeAfter(r, (s) => s.steps, String), tokens, beforeAfter(r, (s) => s.cost, usd), beforeAfter(r, (s) => s.durationMs, secs)]
    out.push(`| ${cells.join(' | ')} | ${text(headline(r))} |`)
  }
  out.push('')
  let left = 0
  for (const r of reviews) {
    if (!r.behaviour || (r.status !== 'changed' && r.changes.length === 0)) continue
    const block = [`<details><summary><b>${text(r.name)}</b>: ${text(headline(r))}</summary>`, '']
    for (const c of r.changes.slice(0, MAX_CHANGES)) block.push(...changeLines(c))
    const more = r.changes.length - MAX_CHANGES
    if (more > 0) block.push(`- … ${more} more changes: \`fluxlab report --since ${ctx.since} --html\` has them all`)
    if (r.before && r.after && r.before.finalText !== r.after.finalText) {
      const [a, b] = around(r.before.finalText, r.after.finalText)
      block.push('', `Final text: ${code(a)} → ${code(b)}`)
    }
    block.push('', '</details>', '')
    const next = block.join('\n')
    if (out.join('\n').length + next.length > MAX_CHARS) left++
    else out.push(next)
  }
  const html = `\`fluxlab report --since ${ctx.since} --html\``
  if (left) out.push(`… details of ${left} more fixture${left === 1 ? '' : 's'} left out to keep the comment short: ${html}.`)
  return redactMessage(`${out.join('\n').trimEnd()}\n`)
}

/** Rows of the suite Markdown's table of scenarios that did not replay cleanly, before the rest are counted. */
const ROWS = 50

/**
 * The suite without `--since`, short: the counts, then the scenarios the last run did not replay cleanly.
 * @example
 * writeFileSync(process.env.GITHUB_STEP_SUMMARY!, suiteMarkdown(suite, []), { flag: 'a' })
 */
export function suiteMarkdown(suite: Suite, breaches: readonly Breach[]): string {
  const e = suite.entries
  const result = (x: Suite['entries'][number]) => (x.unreadable ? 'unreadable' : (x.last?.result ?? 'not in last run'))
  const counts = new Map<string, number>()
  for (const x of e) counts.set(result(x), (counts.get(result(x)) ?? 0) + 1)
  const cost = e.reduce((n, x) => n + x.cost, 0)
  const out = [`## fluxlab report`, '', `${e.length} scenarios · ${[...counts].map(([r, n]) => `${n} ${r}`).join(' · ')} · recorded cost ${usd(cost)}`, '']
  for (const b of breaches) out.push(`> **Failed \`--fail-on ${b.rule}\`**: ${text(b.message)}`, '')
  const bad = e.filter((x) => (result(x) !== 'replayed' && result(x) !== 'recorded') || (x.last?.warnings.length ?? 0) > 0)
  if (bad.length) {
    out.push('| scenario | result | first problem |', '|---|---|---|')
    for (const x of bad.slice(0, ROWS)) {
      const p = x.unreadable ?? [...(x.last?.failures ?? []), ...(x.last?.warnings ?? [])].map((f) => `${f.step} ${f.code}: ${f.message}`)[0] ?? ''
      out.push(`| ${code(x.name)} | ${result(x)} | ${p ? code(p.length > 200 ? `${p.slice(0, 199)}…` : p) : ''} |`)
    }
    if (bad.length > ROWS) out.push('', `… and ${bad.length - ROWS} more: \`fluxlab report --html\` has them all.`)
  }
  return redactMessage(`${out.join('\n').trimEnd()}\n`)
}

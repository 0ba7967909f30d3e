/**
 * `fluxlab report --since <rev> --html F`: the behaviour review as a page. One section a changed fixture: before →
 * after numbers, what changed step by step, and both versions' traces side by side, drawn as `show --html` draws them.
 */
import { esc, traceSections } from '../html/render.js'
import type { RunView } from '../steps.js'
import { usd } from '../steps.js'
import type { Breach } from './fail-on.js'
import { beforeAfter, headline } from './markdown.js'
import { page } from './page.js'
import type { FixtureReview, StepChange } from './review.js'

const MAX_BODY = 4000
/** Fixtures whose traces start opened; past it they start collapsed. */
const OPEN = 10

const pair = (before: string | undefined, after: string | undefined) =>
  [before !== undefined ? `<del>${esc(before)}</del>` : '', after !== undefined ? `<ins>${esc(after)}</ins>` : ''].filter(Boolean).join(' → ')

function change(c: StepChange): string {
  const head = `<b>${esc(c.step)}</b> <code>${esc(c.label)}</code>`
  if (c.kind !== 'changed') {
    const what = c.summary === undefined ? '' : `: ${c.kind === 'added' ? pair(undefined, c.summary) : pair(c.summary, undefined)}`
    return `<li>${head} ${c.kind}${what}</li>`
  }
  const rows: string[] = []
  for (const f of c.request ?? []) {
    const what = f.sameAs ? `the same change as at ${esc(f.sameAs)}` : `${f.kind}: ${pair(f.before, f.after)}`
    rows.push(`<li>${f.message ? `${esc(f.message)} ` : ''}<code>${esc(f.field)}</code> ${what}</li>`)
  }
  if (c.answer) rows.push(`<li>answer: ${pair(c.answer.before, c.answer.after)}</li>`)
  if (c.toolCalls) rows.push(`<li>tool calls: ${pair(c.toolCalls.before.join(', ') || 'none', c.toolCalls.after.join(', ') || 'none')}</li>`)
  if (c.output) rows.push(`<li>output: ${pair(c.output.before, c.output.after)}</li>`)
  if (c.status) rows.push(`<li>status: ${pair(String(c.status.before ?? 'none'), String(c.status.after ?? 'none'))}</li>`)
  return `<li>${head} changed<ul>${rows.join('')}</ul></li>`
}

const secs = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms} ms`)

function section(r: FixtureReview, views: { before?: RunView; after?: RunView }, i: number, open: boolean): string {
  const before = new Map<string, string>()
  const after = new Map<string, string>()
  for (const c of r.changes) {
    if (c.kind === 'removed') before.set(c.step, 'removed')
    else if (c.kind === 'added') after.set(c.step, 'added')
    else {
      before.set(c.was ?? c.step, 'changed')
      after.set(c.step, 'changed')
    }
  }
  const side = (v: RunView | undefined, label: string, prefix: string, marks: Map<string, string>) =>
    `<div><h3>${label}</h3>${v ? traceSections(v, { prefix, maxBody: MAX_BODY, marks }) : '<p class="dim">(no fixture)</p>'}</div>`
  const status = r.status === 'changed' ? (r.behaviour ? 'behaviour changed' : 'same behaviour') : r.status
  return `<section class="fixture" id="f-${i}" data-name="${esc(r.name)}">
<h2>${esc(r.name)} <span class="result ${r.behaviour ? 'diverged' : 'replayed'}">${status}</span></h2>
<p class="meta">${esc(r.dir)} · ${esc(headline(r))}</p>
<ul class="totals">
  <li>steps <b>${esc(beforeAfter(r, (s) => s.steps, String))}</b></li>
  <li>tokens in <b>${esc(beforeAfter(r, (s) => s.tokens.input, String))}</b> · out <b>${esc(beforeAfter(r, (s) => s.tokens.output, String))}</b></li>
  <li>cost <b>${esc(beforeAfter(r, (s) => s.cost, usd))}</b></li>
  <li>time <b>${esc(beforeAfter(r, (s) => s.durationMs, secs))}</b></li>
</ul>
${r.changes.length ? `<ul class="changes">${r.changes.map(change).join('\n')}</ul>` : ''}
<details class="versions"${open ? ' open' : ''}><summary>Both versions side by side</summary>
<div class="pair">${side(views.before, 'before', `f${i}a-`, before)}${side(views.after, 'after', `f${i}b-`, after)}</div>
</details>
</section>`
}

/**
 * The review page.
 * @example
 * writeFileSync('review.html', reviewHtml(reviews, views, { since: 'origin/main', breaches: [] }))
 */
export function reviewHtml(
  reviews: readonly FixtureReview[],
  views: ReadonlyArray<{ before?: RunView; after?: RunView }>,
  ctx: { since: string; root: string; breaches: readonly Breach[] },
): string {
  const behaviour = reviews.filter((r) => r.behaviour).length
  const item = (r: FixtureReview, i: number) => `<li><a href="#f-${i}">${esc(r.name)}</a> <span class="dim">${esc(headline(r))}</span></li>`
  const body = `<header>
  <h1>fluxlab review since ${esc(ctx.since)}</h1>
  <p class="meta">${esc(ctx.root)} · ${reviews.length} fixture${reviews.length === 1 ? '' : 's'} changed, ${behaviour} in behaviour</p>
  ${ctx.breaches.map((b) => `<p class="fork" role="alert">Failed <code>--fail-on ${esc(b.rule)}</code>: ${esc(b.message)}</p>`).join('\n')}
  ${reviews.length ? `<ol>${reviews.map(item).join('')}</ol>` : `<p>No fixture differs from ${esc(ctx.since)}.</p>`}
</header>
<main>
${reviews.map((r, i) => section(r, views[i] ?? {}, i, reviews.length <= OPEN)).join('\n')}
</main>`
  return page(`fluxlab review since ${ctx.since}`, body)
}

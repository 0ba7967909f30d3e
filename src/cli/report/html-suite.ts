/**
 * `fluxlab report --html`: the whole suite in one page. A table (one row a scenario: the last run's mode and result,
 * steps, models, tools, tokens, cost, drift and divergences), filtered by text, result and "problems only"; a row
 * opens the scenario's trace below the table, drawn as `show --html` draws it. Each trace waits, gzipped and in base64,
 * in an inert `<script type="text/plain">` until it is opened (the browser's own DecompressionStream unpacks it, no
 * request): a suite of hundreds of scenarios renders as fast as its table, and its traces take a tenth of their size.
 */
import { gzipSync } from 'node:zlib'
import { esc, traceSections } from '../html/render.js'
import { usd } from '../steps.js'
import { page } from './page.js'
import type { Suite, SuiteEntry } from './suite.js'

/**
 * Longest request or response body kept per step (`show --html` has them whole). Bodies are most of a trace's bytes:
 * 500 scenarios of 6 steps with bodies cut here and traces gzipped make a 1.9 MB page; uncompressed, 14 MB (bench/report.mjs).
 */
const MAX_BODY = 2000

const PROBLEM = new Set(['refused', 'diverged', 'failed', 'not-written', 'unreadable'])

/** The result shown for an entry: the last run's, `unreadable`, or `none` (the last run did not run it). */
export const resultLabel = (e: SuiteEntry): string => (e.unreadable ? 'unreadable' : (e.last?.result ?? 'none'))

const problemOf = (e: SuiteEntry) => PROBLEM.has(resultLabel(e)) || (e.last?.warnings.length ?? 0) > 0 || (e.last?.modelLive ?? 0) > 0

function row(e: SuiteEntry, i: number): string {
  const result = resultLabel(e)
  const search = [e.name, ...e.models, ...e.tools, e.last?.test.name ?? ''].join(' ').toLowerCase()
  const drift = e.last?.warnings.filter((w) => w.code === 'model_request_drift').length ?? 0
  const problems = [
    ...(e.unreadable ? [`<li>${esc(e.unreadable)}</li>`] : []),
    ...(e.last?.failures ?? []).map((f) => `<li><b>${esc(f.step)}</b> ${esc(f.code)}: ${esc(clipped(f.message))}</li>`),
    ...(e.last?.warnings ?? []).map((w) => `<li class="warning"><b>${esc(w.step)}</b> ${esc(w.code)}: ${esc(clipped(w.message))}</li>`),
  ]
  const test = e.last ? `<div class="dim">${esc(e.last.test.file)}${e.last.test.line ? `:${e.last.test.line}` : ''} · ${esc(e.last.test.name)}</div>` : ''
  const name = e.view ? `<a href="#s-${i}">${esc(e.name)}</a>` : esc(e.name)
  return `<tr data-i="${i}" data-result="${result}" data-problem="${problemOf(e) ? 1 : 0}" data-search="${esc(search)}">
<td>${name}${e.forkOf ? ' <span class="dim">fork</span>' : ''}${test}${problems.length ? `<ul class="problems">${problems.join('')}</ul>` : ''}</td>
<td>${e.last ? esc(e.last.mode) : '<span class="dim">—</span>'}</td>
<td><span class="result ${result}">${result === 'none' ? 'not in last run' : result}</span></td>
<td class="num">${e.steps}</td><td>${esc(e.models.join(', '))}</td><td>${esc(e.tools.join(', '))}</td>
<td class="num">${e.tokens.input} / ${e.tokens.output}</td>
<td class="num">${usd(e.cost)}${e.unpriced.length ? ' <span class="noprice">+ no price</span>' : ''}</td>
<td class="num">${drift || ''}</td><td class="num">${e.last?.failures.length || ''}</td></tr>`
}

const clipped = (s: string) => (s.length > 300 ? `${s.slice(0, 299)}…` : s)

function template(e: SuiteEntry, i: number): string {
  if (!e.view) return ''
  const meta = `${esc(e.dir)}${e.recordedAt ? ` · recorded ${esc(e.recordedAt)}` : ''}${e.forkOf ? ` · fork of ${esc(e.forkOf)}` : ''}`
  const show = `npx fluxlab show ${e.name} --html ${e.name.replace(/\//g, '-')}.html`
  const bodies = `bodies past ${MAX_BODY} characters are cut here; whole: <code>${esc(show)}</code>`
  const head = `<h2>${esc(e.name)}</h2><p class="meta">${meta} · <a href="#">close</a></p><p class="dim">${bodies}</p>`
  const html = `${head}${traceSections(e.view, { prefix: `s${i}-`, maxBody: MAX_BODY })}`.replace(/\n\s+/g, '\n')
  return `<script type="text/plain" id="t-${i}">${gzipSync(html).toString('base64')}</script>`
}

const SCRIPT = `
const rows = [...document.querySelectorAll('#suite tbody tr')]
const q = document.getElementById('q'), result = document.getElementById('result'), problems = document.getElementById('problems')
const shown = document.getElementById('shown'), trace = document.getElementById('trace')
function filter() {
  const text = q.value.trim().toLowerCase(), want = result.value, only = problems.checked
  let n = 0
  for (const r of rows) {
    const hide = (text && !r.dataset.search.includes(text)) || (want && r.dataset.result !== want) || (only && r.dataset.problem !== '1')
    r.hidden = !!hide
    if (!hide) n++
  }
  shown.textContent = n + ' of ' + rows.length + ' scenarios'
}
async function unpack(b64) {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))
  return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).text()
}
async function open() {
  const m = /^#s-(\\d+)$/.exec(location.hash)
  const t = m && document.getElementById('t-' + m[1])
  trace.replaceChildren()
  trace.hidden = !t
  if (!t) return
  const html = await unpack(t.textContent)
  if (location.hash !== '#s-' + m[1]) return
  trace.innerHTML = html
  trace.scrollIntoView()
}
for (const el of [q, result, problems]) el.addEventListener('input', filter)
addEventListener('hashchange', open)
filter()
open()
`

/**
 * The suite report.
 * @example
 * writeFileSync('report.html', suiteHtml(suite, { pricesAsOf: PRICES_AS_OF }))
 */
export function suiteHtml(suite: Suite, ctx: { pricesAsOf: string }): string {
  const e = suite.entries
  const count = (r: string) => e.filter((x) => resultLabel(x) === r).length
  const results = ['replayed', 'recorded', 'not-written', 'refused', 'diverged', 'failed', 'unreadable', 'none'].filter((r) => count(r) > 0)
  const cost = e.reduce((n, x) => n + x.cost, 0)
  const tokens = e.reduce((n, x) => ({ input: n.input + x.tokens.input, output: n.output + x.tokens.output }), { input: 0, output: 0 })
  const last = suite.lastRun
    ? `last run: ${esc(suite.lastRun.runner)}, ${esc(suite.lastRun.finishedAt)} (${esc(suite.lastRun.file)})`
    : 'no last run found: run the tests, then the report (the reporters write node_modules/.cache/fluxlab/last-run.json)'
  const options = results.map((r) => `<option value="${r}">${r === 'none' ? 'not in last run' : r}</option>`).join('')
  const body = `<header>
  <h1>fluxlab report</h1>
  <p class="meta">${esc(suite.root)} · ${last}</p>
  <ul class="totals">
    <li><b>${e.length}</b> scenarios</li>
    ${results.map((r) => `<li><b>${count(r)}</b> ${r === 'none' ? 'not in last run' : r}</li>`).join('\n    ')}
    <li>in <b>${tokens.input}</b> · out <b>${tokens.output}</b> tokens</li>
    <li><b>${usd(cost)}</b> recorded cost <span class="dim">(list prices as of ${esc(ctx.pricesAsOf)})</span></li>
  </ul>
</header>
<main>
<div class="filters" role="search">
  <input type="search" id="q" placeholder="Filter by scenario, model, tool or test" aria-label="Filter">
  <select id="result" aria-label="Result"><option value="">every result</option>${options}</select>
  <label><input type="checkbox" id="problems"> problems only</label>
  <span id="shown" class="dim"></span>
</div>
<table class="suite" id="suite">
<thead><tr><th>scenario</th><th>mode</th><th>result</th><th class="num">steps</th><th>models</th><th>tools</th>
<th class="num">tokens in / out</th><th class="num">cost</th><th class="num">drift</th><th class="num">divergences</th></tr></thead>
<tbody>
${e.map(row).join('\n')}
</tbody>
</table>
<section id="trace" aria-label="Trace" hidden></section>
${e.map(template).join('\n')}
</main>`
  return page('fluxlab report', body, SCRIPT)
}

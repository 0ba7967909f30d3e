/**
 * `fluxlab show --html`: one self-contained file. Everything is inline (CSS, a few lines of JS, the
 * data as HTML), a Content-Security-Policy forbids every fetch, and every recorded value is escaped,
 * so a body holding `<img src=…>` stays text.
 */
import type { Manifest } from '../../cassette/cell.js'
import { clip, usd, type RunView, type StepView } from '../steps.js'
import { STYLE } from './style.js'

export interface HtmlContext {
  /** The fixture directory as shown. */
  dir: string
  manifest: Manifest
  /** For a fork: its parent and the first step where they differ. */
  fork?: { parent: string; at?: number }
  pricesAsOf: string
}

const CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

/**
 * A page's head, up to and with `<body>`: the strict CSP, no referrer, its title and its inlined stylesheet.
 * @example
 * `${documentHead('fluxlab report', STYLE)}\n<h1>…</h1>\n</body>\n</html>\n`
 */
export function documentHead(title: string, style: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${esc(title)}</title>
<style>${style}</style>
</head>
<body>`
}

/**
 * Render the viewer.
 * @example
 * writeFileSync('trace.html', renderHtml(runView(fx), { dir, manifest: fx.manifest, pricesAsOf: PRICES_AS_OF }))
 */
export function renderHtml(view: RunView, ctx: HtmlContext): string {
  const models = view.steps.filter((s) => s.channel === 'model').length
  const title = `fluxlab · ${view.name}`
  const { manifest } = ctx
  const modelNames = manifest.models.length ? ` · ${esc(manifest.models.join(', '))}` : ''
  const unpriced = view.unpriced.length ? ` + <span class="noprice">no price for ${esc(view.unpriced.join(', '))}</span>` : ''
  return `${documentHead(title, STYLE)}
<header>
  <h1>${esc(view.name)}</h1>
  <p class="meta">${esc(ctx.dir)} · recorded ${esc(manifest.recordedAt)} · fluxlab ${esc(manifest.fluxlabVersion)}${modelNames}</p>
  <ul class="totals">
    <li><b>${view.steps.length}</b> steps</li>
    <li><b>${models}</b> model</li>
    <li><b>${view.steps.length - models}</b> tool</li>
    <li>in <b>${view.usage.input}</b> · out <b>${view.usage.output}</b> tokens</li>
    <li><b>${usd(view.cost)}</b>${unpriced} <span class="dim">(list prices as of ${esc(ctx.pricesAsOf)})</span></li>
  </ul>
  ${ctx.fork ? forkBanner(ctx.fork, (ctx.manifest as { fork?: { change?: unknown } }).fork?.change) : ''}
  <div class="actions"><button type="button" id="expand-all">Expand all bodies</button> <button type="button" id="collapse-all">Collapse all</button></div>
</header>
<main>
${traceSections(view, { divergedAt: ctx.fork?.at })}
</main>
<script>
for (const [id, open] of [['expand-all', true], ['collapse-all', false]])
  document.getElementById(id).addEventListener('click', () => document.querySelectorAll('details.body').forEach((d) => { d.open = open }))
</script>
</body>
</html>
`
}

/** How one trace is drawn inside a page: ids prefixed (two traces side by side), bodies cut past `maxBody` characters. */
export interface TraceOptions {
  divergedAt?: number
  /** Steps to mark, by id (`model#2`), with the badge each gets (`changed`, `added`): a review's side of a fixture. */
  marks?: ReadonlyMap<string, string>
  /** Prefix of the steps' element ids (`step-3` → `a-step-3`). */
  prefix?: string
  /** Longest request or response body kept, in characters (the rest is cut, with a note); 0 leaves the bodies out. */
  maxBody?: number
}

/**
 * The timeline and the step cards of one trace, as `show --html` draws them (`fluxlab report` reuses them).
 * @example
 * traceSections(runView(fx), { prefix: 'before-', maxBody: 4000 })
 */
export function traceSections(view: RunView, opts: TraceOptions = {}): string {
  return `<section aria-label="Timeline">
  <h2>Timeline</h2>
  <p class="dim">Steps in recorded order, each as long as it took (laid end to end; ticks are streamed chunks).</p>
  ${timeline(view.steps, opts)}
</section>
<section aria-label="Steps">
  <h2>Steps</h2>
  <ol class="steps">
${view.steps.map((s) => stepCard(s, opts)).join('\n')}
  </ol>
  <div class="final"><span class="label">final text</span> ${esc(view.finalText) || '<span class="dim">(none)</span>'}</div>
</section>`
}

function forkBanner(fork: { parent: string; at?: number }, change: unknown): string {
  const what = typeof change === 'string' && change ? ` (${esc(change)})` : ''
  return fork.at
    ? `<p class="fork" role="note">Fork of <code>${esc(fork.parent)}</code>${what}: diverges from its parent at <a href="#step-${fork.at}">step ` +
        `${fork.at}</a>.</p>`
    : `<p class="fork" role="note">Fork of <code>${esc(fork.parent)}</code>${what}: the same steps as its parent.</p>`
}

function timeline(steps: StepView[], { divergedAt, prefix = '', marks }: TraceOptions): string {
  const total = Math.max(
    1,
    steps.reduce((n, s) => n + Math.max(s.durationMs, 1), 0),
  )
  let at = 0
  const bars = steps.map((s) => {
    const width = Math.max(s.durationMs, 1)
    const left = (at / total) * 100
    at += width
    const ticks = s.chunks.map((c) => `<i style="left:${Math.min(100, (c.t / width) * 100).toFixed(2)}%"></i>`).join('')
    const cls = `bar ${s.channel}${s.mcp ? ` mcp-${s.mcp}` : ''}${divergedAt === s.index || marks?.has(s.id) ? ' diverged' : ''}`
    const style = `left:${left.toFixed(2)}%;width:${Math.max(0.6, (width / total) * 100).toFixed(2)}%`
    const title = esc(`${s.index} ${s.id} ${s.title} · ${s.durationMs} ms`)
    return `<a class="${cls}" href="#${prefix}step-${s.index}" data-step="${s.index}" style="${style}" title="${title}">${ticks}</a>`
  })
  const rows = steps
    .map(
      (s, i) =>
        `<div class="lane"><span class="lane-label">${s.index} ${esc(s.id)}</span><div class="track">${bars[i]}</div><span class="lane-ms">${s.durationMs} ` +
        `ms</span></div>`,
    )
    .join('\n')
  return `<div class="timeline">${rows}</div>`
}

function stepCard(s: StepView, { divergedAt, prefix = '', maxBody, marks }: TraceOptions): string {
  const mark = marks?.get(s.id)
  const diverged = divergedAt === s.index || mark !== undefined
  const transport = s.mcp ? ` <span class="transport ${s.mcp}" title="${esc(mcpTitle(s))}">MCP ${s.mcp}</span>` : ''
  const callId = s.callId ? ` <span class="dim">${esc(s.callId)}</span>` : ''
  const head =
    s.channel === 'model'
      ? `<span class="id">${esc(s.id)}</span> <b>${esc(s.model ?? '?')}</b> <span class="dim">${esc(s.family ?? '')}</span>`
      : `<span class="id">${esc(s.id)}</span> <b>${esc(s.title)}</b>${transport}${callId}`
  const facts: string[] = []
  if (s.usage) {
    const u = s.usage
    facts.push(
      `in ${u.input}${u.cacheRead ? ` (cache read ${u.cacheRead})` : ''}${u.cacheWrite ? ` (cache write ${u.cacheWrite})` : ''} · out ` +
        `${u.output}${u.reasoning ? ` (reasoning ${u.reasoning})` : ''}`,
    )
    facts.push(s.cost === null ? '<span class="noprice">no price</span>' : `<span class="cost">${usd(s.cost ?? 0)}</span>`)
  }
  if (s.finishReason) facts.push(esc(s.finishReason))
  if (s.status !== undefined) facts.push(s.status >= 400 ? `<span class="bad">HTTP ${s.status}</span>` : `HTTP ${s.status}`)
  facts.push(`${s.durationMs} ms`)
  if (s.channel === 'model' || s.status !== undefined) facts.push(`${s.chunks.length} chunk${s.chunks.length === 1 ? '' : 's'} · ${s.bodyBytes} B`)
  const lines: string[] = []
  for (const call of s.toolCalls) lines.push(`<div class="call">→ <b>${esc(call.name)}</b> <code>${esc(clip(JSON.stringify(call.args), 300))}</code></div>`)
  if (s.channel === 'tool' && s.args !== undefined) lines.push(`<div class="args">args <code>${esc(clip(JSON.stringify(s.args), 300))}</code></div>`)
  if (s.frames)
    lines.push(
      `<div class="frames"><span class="transport websocket">WebSocket</span> sent <code>${esc(s.frames.sent)}</code> · received ` +
        `<code>${esc(clip(s.frames.received.join(', '), 300))}</code></div>`,
    )
  if (s.text) lines.push(`<div class="text">${esc(s.text)}</div>`)
  if (s.channel === 'tool' && s.output !== undefined && !s.error) lines.push(`<div class="output">→ <code>${esc(clip(s.output, 300))}</code></div>`)
  if (s.error) lines.push(`<div class="bad">✗ ${esc(s.error)}</div>`)
  if (s.truncated) lines.push(`<div class="warn">truncated: the body was stored cut over the cap</div>`)
  if (s.injected) lines.push(`<div class="warn">injected by the what-if: ${esc(s.injected)}</div>`)
  const badges = `${diverged ? ` <span class="badge">${mark ? esc(mark) : 'diverges here'}</span>` : ''}${
    s.injected ? ` <span class="badge injected" title="${esc(s.injected)}">injected</span>` : ''
  }`
  const requestLabel = s.channel === 'model' ? `Request body (canonical, redacted)${s.url ? ` · ${s.url}` : ''}` : 'Arguments'
  const responseLabel = s.channel === 'model' || s.status !== undefined ? 'Response body (as recorded, redacted)' : 'Output'
  return `    <li class="step ${s.channel}${diverged ? ' diverged' : ''}" id="${prefix}step-${s.index}" data-step="${s.index}">
      <div class="head"><span class="n">${s.index}</span> ${head}${badges}</div>
      <div class="facts">${facts.join(' · ')}</div>
      ${lines.join('\n      ')}
      ${chunkStrip(s)}
      ${s.requestBody !== undefined && maxBody !== 0 ? body('request', requestLabel, s.requestBody, maxBody) : ''}
      ${s.responseBody !== undefined && maxBody !== 0 ? body('response', responseLabel, s.responseBody, maxBody) : ''}
    </li>`
}

/** What the transport label says on hover: where the MCP message went. */
function mcpTitle(s: StepView): string {
  return s.mcp === 'stdio' ? `MCP over stdio: ${s.url ?? 'a child process'} (one chunk per server message)` : `MCP over streamable HTTP: ${s.url ?? ''}`
}

function chunkStrip(s: StepView): string {
  if (s.chunks.length === 0) return ''
  const span = Math.max(1, s.durationMs, ...s.chunks.map((c) => c.t))
  const ticks = s.chunks.map((c, i) => `<i style="left:${((c.t / span) * 100).toFixed(2)}%" title="chunk ${i + 1}: ${c.t} ms, ${c.bytes} B"></i>`).join('')
  const rows = s.chunks.map((c, i) => `<tr><td>${i + 1}</td><td>${c.t}</td><td>${c.bytes}</td></tr>`).join('')
  const times = `first chunk ${s.chunks[0].t} ms · last ${s.chunks[s.chunks.length - 1].t} ms`
  const head = '<thead><tr><th>#</th><th>t (ms)</th><th>bytes</th></tr></thead>'
  return `<div class="chunks"><div class="strip" aria-label="chunk timing">${ticks}</div><span class="dim">${times}</span>
      <details class="chunk-table"><summary>Chunk timing</summary><table>${head}<tbody>${rows}</tbody></table></details></div>`
}

function body(kind: 'request' | 'response', label: string, text: string, max = Infinity): string {
  const cut = text.length > max ? `${text.slice(0, max)}\n… ${text.length - max} more characters: fluxlab show <name> --html has them all` : text
  return `<details class="body ${kind}"><summary>${esc(label)}</summary><pre>${esc(cut)}</pre></details>`
}

/**
 * Escape text for HTML content and attribute values.
 * @example
 * esc('<img src=x>') // '&lt;img src=x&gt;'
 */
export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] as string)
}

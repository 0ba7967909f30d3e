import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { readFixture } from '../../cassette/fixture.js'
import { PRICES_AS_OF } from '../../pricing/index.js'
import { parse } from '../args.js'
import { fixtureRoot, loadConfig } from '../config.js'
import { usage } from '../errors.js'
import { display, forkParent, requireFixture } from '../fixtures.js'
import { renderHtml } from '../html/render.js'
import type { Output } from '../output.js'
import { clip, firstDifferentStep, runView, usd, type RunView, type StepView } from '../steps.js'

/**
 * `fluxlab show <name> [--html F]`: the recorded trace as a tree, or a self-contained HTML viewer.
 * @example
 * await showCommand(['capital', '--html', 'trace.html'], out)
 */
export async function showCommand(argv: string[], out: Output): Promise<number> {
  const { values, positionals } = parse('show', argv, {
    dir: { type: 'string' },
    config: { type: 'string' },
    html: { type: 'string' },
  })
  if (positionals.length !== 1)
    throw usage('show', positionals.length ? `show takes one scenario, got ${positionals.length}` : 'show needs a scenario name, e.g. `fluxlab show triage`')
  const { options } = await loadConfig(values.config)
  const root = fixtureRoot(values.dir, options)
  const dir = requireFixture(positionals[0], root)
  const fx = readFixture(dir, { disable: options.redact?.disable })
  const view = runView(fx, options.pricing)
  const parentDir = forkParent(dir)
  let fork: { parent: string; at?: number } | undefined
  if (parentDir) {
    const parent = runView(readFixture(parentDir, { disable: options.redact?.disable }), options.pricing)
    fork = { parent: display(parentDir), at: firstDifferentStep(parent.trace, view.trace) }
  }

  if (values.html) {
    const file = resolve(values.html)
    writeFileSync(file, renderHtml(view, { dir: display(dir), manifest: fx.manifest, fork, pricesAsOf: PRICES_AS_OF }))
    out.note(`wrote ${display(file)} (${view.steps.length} steps, self-contained: open it in any browser, offline)`)
    return 0
  }
  printTree(view, display(dir), fx.manifest.recordedAt, fork, out)
  return 0
}

function printTree(view: RunView, dir: string, recordedAt: string, fork: { parent: string; at?: number } | undefined, out: Output): void {
  const { c } = out
  const models = view.steps.filter((s) => s.channel === 'model').length
  const tools = view.steps.length - models
  out.line(`${c.bold(view.name)} ${c.dim(`· ${dir} · recorded ${recordedAt}`)}`)
  out.line(
    c.dim(
      `${models} model call${models === 1 ? '' : 's'} · ${tools} tool call${tools === 1 ? '' : 's'} · in ${view.usage.input} · out ${view.usage.output} · ` +
        `${usd(view.cost)}${view.unpriced.length ? ` + no price for ${view.unpriced.join(', ')}` : ''} (list prices as of ${PRICES_AS_OF})`,
    ),
  )
  if (fork) out.line(c.magenta(fork.at ? `fork of ${fork.parent}: diverges at step ${fork.at}` : `fork of ${fork.parent}: same steps as its parent`))
  view.steps.forEach((s) => {
    const marker = fork?.at === s.index ? c.magenta(' ◆ diverges here') : ''
    out.line(`├─ ${headLine(s, c)}${marker}`)
    for (const d of details(s, c)) out.line(`│  ${d}`)
  })
  out.line(`└─ ${c.bold('final')} ${clip(JSON.stringify(view.finalText))}`)
}

function headLine(s: StepView, c: Output['c']): string {
  const n = c.dim(String(s.index))
  if (s.channel === 'model') {
    const u = s.usage!
    const tokens = `in ${u.input} · out ${u.output}${u.reasoning ? ` (reasoning ${u.reasoning})` : ''}${u.cacheRead ? ` · cache read ${u.cacheRead}` : ''}`
    const cost = s.cost === null ? c.yellow('no price') : usd(s.cost ?? 0)
    const status = s.status !== 200 ? c.red(` · HTTP ${s.status}`) : ''
    return (
      `${n} ${c.cyan(s.id)} ${c.bold(s.model ?? '?')} ${c.dim(`(${s.family})`)} · ${tokens} · ` +
      `${cost}${s.finishReason ? ` · ${s.finishReason}` : ''}${status} ${c.dim(`· ${s.durationMs} ms`)}`
    )
  }
  const args = s.args === undefined ? '' : ` ${clip(JSON.stringify(s.args), 60)}`
  const result = s.error ? c.red(` ✗ ${clip(s.error, 60)}`) : s.status !== undefined ? ` → ${s.status >= 400 ? c.red(String(s.status)) : s.status}` : ''
  const transport = s.mcp ? ` ${c.magenta(`[mcp ${s.mcp}]`)}` : ''
  return `${n} ${c.green(s.id)} ${c.bold(s.title)}${transport}${args}${result} ${c.dim(`· ${s.durationMs} ms`)}`
}

function details(s: StepView, c: Output['c']): string[] {
  const lines: string[] = []
  for (const call of s.toolCalls) lines.push(`${c.dim('└─')} → ${c.bold(call.name)} ${clip(JSON.stringify(call.args), 80)}`)
  if (s.frames) lines.push(`${c.dim('└─')} ${c.magenta('[websocket]')} > ${s.frames.sent} · < ${clip(s.frames.received.join(', '), 160)}`)
  if (s.text) lines.push(`${c.dim('└─')} text ${clip(JSON.stringify(s.text), 90)}`)
  if (s.channel === 'tool' && s.output !== undefined && !s.error) lines.push(`${c.dim('└─')} output ${clip(s.output, 88)}`)
  if (s.channel === 'model' && s.error) lines.push(`${c.dim('└─')} ${c.red(`error ${clip(s.error, 88)}`)}`)
  if (s.truncated) lines.push(`${c.dim('└─')} ${c.yellow('truncated: stored cut over the cap')}`)
  if (s.injected) lines.push(`${c.dim('└─')} ${c.magenta(`injected: ${clip(s.injected, 86)}`)}`)
  return lines
}

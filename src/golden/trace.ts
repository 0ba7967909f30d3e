import type { ModelCell, ToolCell } from '../cassette/cell.js'
import { bodyText } from '../cassette/chunks.js'
import { codecFor } from '../providers/registry.js'

/** One step of a run, in the order the run made it. */
export type TraceStep = { channel: 'model'; cell: ModelCell } | { channel: 'tool'; cell: ToolCell }

const MINTED = /\b(call|toolu|srvtoolu|fc|resp|msg|chatcmpl)_[A-Za-z0-9_-]{6,}\b/g
const WIDTH = 100

/**
 * The canonical, human-readable trace (`trace.snap`): numbered steps, model ids,
 * tokens, requested tool calls, tool calls with args and results, the final text.
 * Provider-minted ids are masked so a re-recording of the same behaviour gives the same text.
 * @example
 * renderTrace('weather', steps)
 * // # fluxlab trace · weather
 * // 1 model#1 openai-chat gpt-4o-mini · in 61 · out 17 · tool_calls
 * //     → get_weather {"city":"Paris"}
 */
export function renderTrace(name: string, steps: readonly TraceStep[]): string {
  // @note issue 28: a replay's steps are the fixture's own cells, frozen when first handed out: the trace of the same
  // frozen cells in the same order is the same text, and a suite replays a scenario again and again.
  const kept = rendered.get(name)
  if (kept && kept.cells.length === steps.length && steps.every((s, i) => kept.cells[i] === s.cell)) return kept.text
  const text = render(name, steps)
  if (steps.every((s) => Object.isFrozen(s.cell))) {
    if (rendered.size >= 64) rendered.delete(rendered.keys().next().value!)
    rendered.set(name, { cells: steps.map((s) => s.cell), text })
  }
  return text
}

/** The last trace rendered from frozen cells only, by scenario name. */
const rendered = new Map<string, { cells: readonly object[]; text: string }>()

function render(name: string, steps: readonly TraceStep[]): string {
  const ids = new Map<string, string>()
  const mask = (s: string) =>
    s.replace(MINTED, (id, prefix: string) => {
      let p = ids.get(id)
      if (!p) {
        p = `${prefix}_<${[...ids.values()].filter((v) => v.startsWith(`${prefix}_<`)).length + 1}>`
        ids.set(id, p)
      }
      return p
    })
  const lines = [`# fluxlab trace · ${name}`]
  let model = 0
  let tool = 0
  let finalText = ''
  steps.forEach((step, i) => {
    const n = i + 1
    if (step.channel === 'model') {
      const c = step.cell
      model++
      const { input, output, reasoning, cacheRead, cacheWrite } = c.usage
      const cache = `${cacheRead ? ` · cache read ${cacheRead}` : ''}${cacheWrite ? ` · cache write ${cacheWrite}` : ''}`
      const extra = `${reasoning ? ` (reasoning ${reasoning})` : ''}${cache}`
      const usage = `in ${input} · out ${output}${extra}`
      const status = c.response.status === 200 ? '' : ` · HTTP ${c.response.status}`
      lines.push(`${n} model#${model} ${c.family} ${c.model ?? '?'} · ${usage}${c.finishReason ? ` · ${c.finishReason}` : ''}${status}`)
      const socket = codecFor(c.family).socket
      if (socket) {
        lines.push(clip(`    > ${socket.event(c.request.body) ?? '?'}`))
        for (const line of wrap(serverEvents(bodyText(c.response.chunks), socket.event), '    < ')) lines.push(clip(line))
      }
      for (const call of c.toolCalls) lines.push(`    → ${call.name} ${clip(mask(`${call.id} `) + json(call.args))}`)
      if (c.text) {
        lines.push(`    text: ${clip(JSON.stringify(c.text))}`)
        finalText = c.text
      }
      if (c.providerError) lines.push(`    error: ${clip(c.providerError.message)}`)
      if (c.transportError) lines.push(`    transport error: ${c.transportError.name}: ${clip(c.transportError.message)}`)
      if (c.truncated) lines.push(`    (truncated: ${c.originalBytes} bytes recorded over the cap)`)
    } else {
      const c = step.cell
      tool++
      const head = `${n} tool#${tool} ${c.name}${c.callId ? ` ${mask(c.callId)}` : ''}`
      const args = c.kind === 'http' ? httpArgs(c.args) : json(c.args)
      const result =
        c.kind === 'http'
          ? ` → ${c.response?.status ?? c.transportError?.name ?? '?'}`
          : c.error
            ? ` ✗ ${c.error.name}: ${c.error.message}`
            : ` → ${json(c.output)}`
      lines.push(clip(`${head} ${args}${result}`))
    }
  })
  lines.push(`final: ${clip(JSON.stringify(finalText))}`)
  return `${mask(lines.join('\n'))}\n`
}

/**
 * The event types of a realtime answer (one JSON event a line), a run of one type counted once: `response.output_text.delta ×2`.
 * @example
 * serverEvents('{"type":"a"}\n{"type":"a"}\n', (f) => (f as { type: string }).type) // ['a ×2']
 */
export function serverEvents(body: string, event: (frame: unknown) => string | undefined): string[] {
  const runs: Array<{ type: string; n: number }> = []
  for (const line of body.split('\n')) {
    if (!line.trim()) continue
    let frame: unknown
    try {
      frame = JSON.parse(line)
    } catch {
      frame = undefined
    }
    const type = event(frame) ?? '?'
    const last = runs[runs.length - 1]
    if (last?.type === type) last.n++
    else runs.push({ type, n: 1 })
  }
  return runs.map((r) => (r.n > 1 ? `${r.type} ×${r.n}` : r.type))
}

/** Items joined by `, ` on lines of at most WIDTH characters, each line starting with `prefix`. */
function wrap(items: string[], prefix: string): string[] {
  const out: string[] = []
  let line = ''
  for (const item of items) {
    if (line && prefix.length + line.length + 2 + item.length > WIDTH) {
      out.push(`${prefix}${line},`)
      line = item
    } else line = line ? `${line}, ${item}` : item
  }
  if (line) out.push(`${prefix}${line}`)
  return out
}

function httpArgs(args: unknown): string {
  const a = args as { query?: unknown; body?: unknown } | undefined
  const parts = []
  if (a?.query) parts.push(`query ${json(a.query)}`)
  if (a?.body !== undefined && a.body !== null) parts.push(`body ${json(a.body)}`)
  return parts.join(' ')
}

const json = (v: unknown) => (v === undefined ? 'undefined' : JSON.stringify(v))
const clip = (s: string) => (s.length > WIDTH ? `${s.slice(0, WIDTH - 1)}…` : s)

/**
 * The steps of a fixture in recorded order (what `trace.snap` shows).
 * @example
 * fixtureSteps(readFixture(dir)) // what Scenario.replay(), the CLI and the trace see
 */
export function fixtureSteps(fx: { model: readonly ModelCell[]; tools: readonly ToolCell[] }): TraceStep[] {
  return [
    ...fx.model.map((cell) => ({ seq: cell.seq, channel: 'model' as const, cell })),
    ...fx.tools.map((cell) => ({ seq: cell.seq, channel: 'tool' as const, cell })),
  ]
    .sort((a, b) => a.seq - b.seq)
    .map(({ channel, cell }) => ({ channel, cell }) as TraceStep)
}

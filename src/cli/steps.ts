import type { Fixture } from '../cassette/cell.js'
import type { Chunk } from '../cassette/cell.js'
import { bodyBuffer, bodyBytes, bodyText, decodeChunk } from '../cassette/chunks.js'
import { codecFor } from '../providers/registry.js'
import { fixtureSteps, renderTrace, serverEvents, type TraceStep } from '../golden/trace.js'
import { costOf, priceFor, type PricingTable } from '../pricing/index.js'
import type { NormalizedUsage, RequestedToolCall } from '../providers/types.js'
import type { ProviderFamily } from '../providers/registry.js'

/** One step of a recorded run, ready to show (terminal tree, HTML viewer). */
export interface StepView {
  /** Position in the trace, 1-based (the number at the start of a trace.snap line). */
  index: number
  /** `model#2`, `tool#1`. */
  id: string
  channel: 'model' | 'tool'
  /** Model steps: `gpt-4o-mini (openai-chat)`; tool steps: the tool name (`GET host/path`, `read`). */
  title: string
  family?: string
  model?: string
  usage?: NormalizedUsage
  /** USD at list prices; `null` when the model has no price (shown as "no price", never $0). */
  cost?: number | null
  finishReason?: string
  status?: number
  durationMs: number
  /** Body chunks as recorded: ms since the request was sent, and size. */
  chunks: Array<{ t: number; bytes: number }>
  bodyBytes: number
  toolCalls: RequestedToolCall[]
  text?: string
  callId?: string
  args?: unknown
  /** Tool output (fn tools) or response body text (HTTP tools). */
  output?: string
  error?: string
  url?: string
  /** Pretty-printed canonical (redacted) request body, model steps. */
  requestBody?: string
  /** The response body as recorded (redacted), as text. */
  responseBody?: string
  truncated: boolean
  /** Set on a fork's step that a what-if injected (a fault, a substitute): what was injected. */
  injected?: string
  /** MCP tool steps: the transport the message went over (`stdio`: a child process's stdin/stdout; `http`: streamable HTTP). */
  mcp?: 'stdio' | 'http'
  /** Realtime WebSocket model steps: the client frame's event type, and the server events that answered it (runs counted). */
  frames?: { sent: string; received: string[] }
}

export interface RunView {
  name: string
  steps: StepView[]
  finalText: string
  usage: NormalizedUsage
  /** Sum of priced steps. */
  cost: number
  /** Models with usage and no price. */
  unpriced: string[]
  trace: string
}

/**
 * What the viewers show of a fixture: its steps in order with usage, cost and bodies.
 * @example
 * const view = runView(readFixture(dir), config.pricing)
 * view.steps[0].cost // 0.000017
 */
export function runView(fx: Fixture, pricing?: PricingTable): RunView {
  const steps = fixtureSteps(fx)
  let model = 0
  let tool = 0
  const views = steps.map((s, i) => (s.channel === 'model' ? modelView(s, i + 1, ++model, pricing) : toolView(s, i + 1, ++tool)))
  const usage: NormalizedUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 }
  let cost = 0
  const unpriced = new Set<string>()
  for (const v of views) {
    if (!v.usage) continue
    for (const k of Object.keys(usage) as Array<keyof NormalizedUsage>) usage[k] += v.usage[k] ?? 0
    if (v.cost === null) unpriced.add(v.model ?? '(no model id)')
    else cost += v.cost ?? 0
  }
  const finalText = [...views].reverse().find((v) => v.channel === 'model' && v.text)?.text ?? ''
  return { name: fx.manifest.name, steps: views, finalText, usage, cost, unpriced: [...unpriced], trace: renderTrace(fx.manifest.name, steps) }
}

function modelView(s: Extract<TraceStep, { channel: 'model' }>, index: number, n: number, pricing?: PricingTable): StepView {
  const c = s.cell
  const usage = c.usage
  const free = usage.input + usage.output + usage.cacheRead + usage.cacheWrite === 0
  const price = c.model ? priceFor(c.model, pricing) : pricing?.['*']
  return {
    index,
    id: `model#${n}`,
    channel: 'model',
    title: `${c.model ?? '?'} (${c.family})`,
    family: c.family,
    model: c.model,
    usage,
    cost: free ? 0 : price ? costOf(usage, price) : null,
    finishReason: c.finishReason,
    status: c.response.status,
    durationMs: c.durationMs ?? 0,
    chunks: c.response.chunks.map((ch) => ({ t: ch.t, bytes: decodeChunk(ch).length })),
    bodyBytes: bodyBytes(c.response.chunks),
    toolCalls: c.toolCalls ?? [],
    text: c.text || undefined,
    error: c.providerError?.message ?? (c.transportError ? `${c.transportError.name}: ${c.transportError.message}` : undefined),
    url: c.url,
    requestBody: JSON.stringify(c.request.body, null, 2),
    responseBody: readableBody(c.family, c.response.headers['content-type'], c.response.chunks),
    truncated: c.truncated === true,
    ...injectedOf(c),
    ...framesOf(c),
  }
}

function framesOf(c: Extract<TraceStep, { channel: 'model' }>['cell']): Pick<StepView, 'frames'> {
  const socket = codecFor(c.family).socket
  if (!socket) return {}
  return { frames: { sent: socket.event(c.request.body) ?? '?', received: serverEvents(bodyText(c.response.chunks), socket.event) } }
}

/** A model body as text: a binary one (Bedrock's event streams) decoded by its family, one frame a line. */
function readableBody(family: ProviderFamily, contentType: string | undefined, chunks: readonly Chunk[]): string {
  const binary = codecFor(family).binaryBody
  return binary?.matches(contentType) ? binary.describe(bodyBuffer(chunks)) : bodyText(chunks)
}

function toolView(s: Extract<TraceStep, { channel: 'tool' }>, index: number, n: number): StepView {
  const c = s.cell
  const chunks = c.response?.chunks ?? []
  const responseBody = c.response ? bodyText(chunks) : undefined
  return {
    index,
    id: `tool#${n}`,
    channel: 'tool',
    title: c.name,
    status: c.response?.status,
    durationMs: c.durationMs ?? 0,
    chunks: chunks.map((ch) => ({ t: ch.t, bytes: decodeChunk(ch).length })),
    bodyBytes: bodyBytes(chunks),
    toolCalls: [],
    callId: c.callId,
    args: c.args,
    output: c.kind === 'http' ? responseBody : c.output === undefined ? undefined : JSON.stringify(c.output),
    error: c.error ? `${c.error.name}: ${c.error.message}` : c.transportError ? `${c.transportError.name}: ${c.transportError.message}` : undefined,
    url: c.url,
    requestBody: c.args === undefined ? undefined : JSON.stringify(c.args, null, 2),
    responseBody: c.kind === 'http' ? responseBody : c.output === undefined ? undefined : JSON.stringify(c.output, null, 2),
    truncated: c.truncated === true,
    ...injectedOf(c),
    ...mcpOf(c),
  }
}

/** An MCP message's transport: stdio cells live at `stdio://<server>/` (src/sources/mcp-transport.ts). */
function mcpOf(c: { kind: string; name: string; url?: string }): { mcp?: 'stdio' | 'http' } {
  if (c.kind !== 'http' || !c.name.startsWith('mcp ')) return {}
  return { mcp: c.url?.startsWith('stdio:') ? 'stdio' : 'http' }
}

/** A what-if stores what it injected on the cell (`injected: "injectAt(4, error …)"`). */
function injectedOf(cell: object): { injected?: string } {
  const v = (cell as { injected?: unknown }).injected
  return typeof v === 'string' ? { injected: v } : v === true ? { injected: 'injected' } : {}
}

/**
 * A trace split into its steps' blocks (a numbered line and its indented lines); the header and
 * the `final:` line are left out.
 * @example
 * traceBlocks(trace)[0] // '1 model#1 openai-chat gpt-4o-mini · in 53 · out 15 · tool_calls\n    → get_capital …'
 */
export function traceBlocks(trace: string): string[] {
  const blocks: string[] = []
  for (const line of trace.split('\n')) {
    if (/^\d+ /.test(line)) blocks.push(line)
    else if (line.startsWith('    ') && blocks.length) blocks[blocks.length - 1] += `\n${line}`
  }
  return blocks
}

/**
 * The first step (1-based) where two traces differ, or undefined when every step is the same.
 * Step numbers are left out of the comparison; a step present in only one trace differs.
 * @example
 * firstDifferentStep(parentTrace, forkTrace) // 3
 */
export function firstDifferentStep(a: string, b: string): number | undefined {
  const x = traceBlocks(a).map(stripIndex)
  const y = traceBlocks(b).map(stripIndex)
  for (let i = 0; i < Math.max(x.length, y.length); i++) if (x[i] !== y[i]) return i + 1
  return undefined
}

const stripIndex = (block: string) => block.replace(/^\d+ /, '')

/**
 * `$0.0000170`-style money: enough significant digits for sub-cent calls.
 * @example
 * usd(0.000017) // '$0.0000170'
 */
export function usd(v: number): string {
  if (v === 0) return '$0'
  if (v >= 0.01) return `$${v.toFixed(4)}`
  return `$${v.toPrecision(3)}`
}

/**
 * Shorten to `width` characters with an ellipsis, on one line.
 * @example
 * clip('a'.repeat(200), 10) // 'aaaaaaaaa…'
 */
export function clip(s: string, width = 100): string {
  const one = s.replace(/\s*\n\s*/g, ' ')
  return one.length > width ? `${one.slice(0, width - 1)}…` : one
}

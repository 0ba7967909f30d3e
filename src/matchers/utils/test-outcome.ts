/**
 * TEST-ONLY: builds Outcomes for the matcher unit tests without running a
 * scenario. No entry point imports this file, so it never ships in `dist/`.
 * @example
 * const call = { name: 'read', id: 'call_read0001', args: {} }
 * const out = testOutcome({ steps: [model({ toolCalls: [call] }), tool({ name: 'read', callId: 'call_read0001' })] })
 */
import type { ModelCell, ToolCell } from '../../cassette/cell.js'
import type { Divergence } from '../../cassette/divergence.js'
import type { TraceStep } from '../../golden/trace.js'
import type { Mode } from '../../golden/update-mode.js'
import { detectModelCall } from '../../providers/registry.js'
import { emptyUsage, type RequestedToolCall } from '../../providers/types.js'
import { Outcome } from '../../scenario/outcome.js'

export interface ModelStepInput {
  text?: string
  toolCalls?: RequestedToolCall[]
  model?: string
  status?: number
}

/** A model step (a Chat Completions call, 200, `tool_calls` or `stop`). */
export function model(input: ModelStepInput = {}): TraceStep {
  const toolCalls = input.toolCalls ?? []
  const url = 'https://api.openai.com/v1/chat/completions'
  const cell: ModelCell = {
    seq: 0,
    step: '',
    key: 'test',
    family: detectModelCall('POST', new URL(url))!.family,
    url,
    request: { method: 'POST', path: '/v1/chat/completions', body: {} },
    response: { status: input.status ?? 200, headers: {}, chunks: [] },
    model: input.model ?? 'gpt-4o-mini',
    usage: { ...emptyUsage(), input: 50, output: 10 },
    finishReason: toolCalls.length ? 'tool_calls' : 'stop',
    text: input.text ?? '',
    toolCalls,
    durationMs: 1,
    truncated: false,
  }
  return { channel: 'model', cell }
}

export interface ToolStepInput {
  name: string
  callId?: string
  args?: unknown
  output?: unknown
  kind?: 'fn' | 'http'
}

/** A tool-channel step: an in-process tool (`fn`, default) or HTTP to a non-model host. */
export function tool(input: ToolStepInput): TraceStep {
  const kind = input.kind ?? 'fn'
  const cell: ToolCell = {
    seq: 0,
    step: '',
    kind,
    name: input.name,
    callId: input.callId,
    key: 'test',
    args: input.args ?? {},
    durationMs: 1,
    truncated: false,
    ...(kind === 'fn' ? { output: input.output ?? null } : { response: { status: 200, headers: {}, chunks: [] } }),
  }
  return { channel: 'tool', cell }
}

export interface TestOutcomeInput {
  steps: TraceStep[]
  scenario?: string
  mode?: Mode
  divergences?: Divergence[]
  modelLive?: number
  /** Called when a matcher marks the outcome's divergences seen (`markSeen`). */
  onSeen?: () => void
}

/** An Outcome over `steps`, with cells numbered the way a run numbers them. */
export function testOutcome(input: TestOutcomeInput): Outcome {
  let m = 0
  let t = 0
  input.steps.forEach((s, i) => {
    s.cell.seq = i
    s.cell.step = s.channel === 'model' ? `model#${++m}` : `tool#${++t} ${s.cell.name}`
  })
  const scenario = input.scenario ?? 'capitals'
  // @note the commands a scenario opened in a test carries, fixed here so failure texts are stable.
  const test = `test/${scenario}.test.ts -t '^${scenario}$'`
  const commands = { rerecord: `FLUX_GOLDEN=update npx vitest run ${test}`, updateTrace: `FLUX_GOLDEN=snapshots npx vitest run ${test}` }
  return new Outcome({
    scenario,
    mode: input.mode ?? 'replay',
    result: undefined,
    steps: input.steps,
    divergences: input.divergences,
    modelLive: input.modelLive,
    acknowledge: input.onSeen,
    commands,
  })
}

/**
 * The run most matcher tests use: model#1 asks get_capital(UK), model#2 asks
 * get_capital(France) and search, every call runs on the tool channel, model#3 answers.
 * Trajectory names: get_capital, get_capital, search.
 */
export function capitalsOutcome(overrides: Omit<TestOutcomeInput, 'steps'> = {}): Outcome {
  return testOutcome({
    ...overrides,
    steps: [
      model({ toolCalls: [{ name: 'get_capital', id: 'call_uk000001', args: { country: 'UK' } }] }),
      tool({ name: 'get_capital', callId: 'call_uk000001', args: { country: 'UK' }, output: 'London' }),
      model({
        toolCalls: [
          { name: 'get_capital', id: 'call_fr000002', args: { country: 'France' } },
          { name: 'search', id: 'call_se000003', args: { query: 'population of Paris', limit: 3 } },
        ],
      }),
      tool({ name: 'get_capital', callId: 'call_fr000002', args: { country: 'France' }, output: 'Paris' }),
      tool({ name: 'search', callId: 'call_se000003', args: { query: 'population of Paris', limit: 3 }, output: ['2.1M'] }),
      model({ text: 'The capital of the UK is London; the capital of France is Paris (population 2.1M).' }),
    ],
  })
}

/** The message of the error `fn` throws, without ANSI colours (the runner's utils colour it). Throws when `fn` does not. */
export function messageOf(fn: () => unknown): string {
  try {
    fn()
  } catch (e) {
    return (e as Error).message.replace(/\u001b\[[0-9;]*m/g, '')
  }
  throw new Error('expected the assertion to fail, and it passed')
}

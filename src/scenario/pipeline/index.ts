/**
 * The request pipeline: where every call of a run enters, on either channel (`handle` for an intercepted request,
 * `callTool` for an in-process tool), is given its place in the run and identified once, and then walks these sources
 * top to bottom, each answering it or passing it on:
 *
 *   journal     durable(): results an earlier, crashed run already journaled
 *   intervene   a what-if's change or a check's rules: halts, rewrites, faults, substitutes, policy
 *   tape        the fixture (replay)
 *   shared      a test's replay: a static GET another test of its file recorded (shared-reads.ts)
 *   off-tape    what a call the tape could not answer does: refused, or on to live
 *   live        the real provider or tool, captured (record, check misses, what-ifs bridged live)
 *
 *   refusal     a run that can neither record nor replay: every call it takes is refused
 *
 * A run has only the stages its kind needs: record is journal? → live; replay is
 * intervene? → tape → off-tape → live (reached only when an intervention allows it); a refusal is refusal.
 */
import { canonicalRequest, httpToolCall, requestKey, type CanonicalOptions } from '../../cassette/canonical.js'
import { isFluxError } from '../../errors.js'
import { detectModelCall } from '../../providers/registry.js'
import type { ModelCallCodec } from '../../providers/types.js'
import type { ProviderFamily } from '../../providers/registry.js'
import type { Answer, Call, ClassifyConfig, Counters, HttpToolRequest, ModelRequest, Stage, TapeMiss } from './call.js'
import { classifyToolCall } from './fn-call.js'
import type { RunConfig } from './config.js'
import { offTapeResponse } from './http.js'
import { interventionStage } from './intervene.js'
import { journalStage } from './journal.js'
import { liveStage } from './live.js'
import type { RunLog, ToolResultRef } from './log.js'
import { offTapeStage } from './off-tape.js'
import { refusalStage } from './refuse.js'
import { sharedReadStage } from './shared-reads.js'
import { tapeStage, type TapeStage } from './tape.js'

/**
 * What the router already found out about a request: its model-call codec (none for any other request), the child process
 * that sent it, and its URL as parsed there (parsed once: issue 40 performance).
 */
interface Known {
  codec?: ModelCallCodec<ProviderFamily>
  origin?: string
  url?: URL
  pastMocks?: true
}

export interface Pipeline {
  /**
   * Answer one intercepted request. Never throws: msw would turn a throw into a 500 that SDKs retry. A fluxlab error
   * is kept in the log's `fatal` and answered off-tape; so is a bug of ours, which says so (it must never look like a
   * network error). `known`: what the router found; a source that did not ask it first has the family found here.
   */
  handle(request: Request, known?: Known): Promise<Response>
  /**
   * One in-process tool call (`lab.tools`): live, its output or thrown error kept (record); or the recorded result
   * returned, the recorded error thrown, and the body never run (replay).
   */
  callTool(call: { name: string; args: unknown; callId?: string }, run: () => unknown): Promise<unknown>
  /** The tape stage (replay), for the calls it never served. */
  tape?: TapeStage
  /** The journal stage (durable()), for the results nobody asked for. */
  journal?: ReturnType<typeof journalStage>
}

/**
 * The stages of one run, in order, from its configuration, and its two entrances.
 * @example
 * const pipeline = buildPipeline(config, log, counters)
 * const response = await pipeline.handle(request, { codec })
 */
export function buildPipeline(config: RunConfig, log: RunLog, counters: Counters): Pipeline {
  const { dispatch, tape, journal } = stagesOf(config, log, counters)
  // @note issue 25: the run handed each request to `classifyRequest` (./call.ts) and then to `dispatch` here; the
  // pipeline, which holds the run's counters and log already, now gives the place and identifies the call itself.
  const handle = async (request: Request, known?: Known): Promise<Response> => {
    let step = `${request.method} ${request.url}`
    try {
      const codec = known && 'codec' in known ? known.codec : detectModelCall(request.method, new URL(request.url), config.hosts)
      // its place in the run: `seq` among every call, `n` on its channel
      const seq = ++counters.seq
      const n = codec ? ++counters.model : ++counters.tool
      step = codec ? `model#${n}` : `tool#${n}`
      if (known?.pastMocks) log.pastMocks++
      const call = await classifyRequest(request, { codec, seq, n, step, origin: known?.origin, url: known?.url }, config)
      step = call.step
      // @note the end of a replay reads them (`unwrapped_tool`, ./close.ts), and only after a turn nothing on the tape answered
      if (call.channel === 'model' && config.mode === 'replay') log.sent.push({ seq, step, results: sentResults(call) })
      const answer = await dispatch(call)
      if ('response' in answer) return answer.response
      throw new Error(`the pipeline answered HTTP ${call.step} without a Response`)
    } catch (e) {
      return offTapeResponse(log.fail(e, step).message)
    }
  }
  const callTool = async (call: { name: string; args: unknown; callId?: string }, run: () => unknown): Promise<unknown> => {
    let answer: Awaited<ReturnType<typeof dispatch>>
    const c = classifyToolCall(call, run, counters, config.redactor, remembered)
    try {
      answer = await dispatch(c)
    } catch (e) {
      if (isFluxError(e)) throw e
      throw log.fail(e, c.step)
    }
    if ('error' in answer) throw answer.error
    if ('output' in answer) return answer.output
    throw log.fail(new Error('the pipeline answered a tool call with a Response'), c.step)
  }
  return { handle, callTool, tape, journal }
}

/**
 * The stages a run's kind needs, and `dispatch`, which walks them with one call: it throws only for a fluxlab error
 * (journal divergence, FLUX_OFFLINE) or a bug.
 */
function stagesOf(config: RunConfig, log: RunLog, counters: Counters): Pick<Pipeline, 'tape' | 'journal'> & { dispatch: (call: Call) => Promise<Answer> } {
  const { mode, fixture, intervention: iv, journal: hooks, refusal } = config
  if (refusal) {
    const refuse = refusalStage(log, refusal)
    return { dispatch: (call) => refuse(call, () => Promise.reject(new Error('a refusal has no stage after it'))) }
  }
  const stages: Stage[] = []
  const journal = hooks ? journalStage(config, log, hooks) : undefined
  let tape: TapeStage | undefined
  if (mode === 'record') {
    if (journal) stages.push(journal)
  } else {
    if (!fixture) throw new Error('a replay needs a fixture')
    if (iv) stages.push(interventionStage(log, iv, counters, config))
    stages.push((tape = tapeStage(config, log, fixture, iv)))
    // A test's replay (not a what-if's, which keeps to its own tape): a read another test of its file recorded.
    if (config.test && !iv) stages.push(sharedReadStage(config, log))
    stages.push(offTapeStage(config, log, iv))
  }
  stages.push(liveStage(config, log))
  const run = (i: number, call: Call, miss?: TapeMiss): Promise<Answer> => stages[i](call, (next = call, m) => run(i + 1, next, m), miss)
  return { dispatch: (call) => run(0, call), tape, journal }
}

const EMPTY = Buffer.alloc(0)

/** The tool results a model request sends back (its codec's `toolResults`), read from its body when first asked. */
function sentResults({ text, codec, url }: Readonly<ModelRequest>): () => readonly ToolResultRef[] {
  let results: readonly ToolResultRef[] | undefined
  return () => {
    if (results) return results
    try {
      results = text === '' ? [] : codec.parseRequest(JSON.parse(text) as unknown, url).toolResults
    } catch {
      results = []
    }
    return results
  }
}

/** Where a request arrived in its run, before its body is read: its codec (a model call) and its position. */
interface Arrival {
  codec?: ModelCallCodec<ProviderFamily>
  seq: number
  n: number
  /** `model#2`, `tool#3`: what a failure while identifying the request names. */
  step: string
  /** The child process that sent it, if another process of the tree did. */
  origin?: string
  /** `request.url`, parsed, when the router parsed it already. */
  url?: URL
}

/**
 * Identify one intercepted request, once: a model call of a known family (its canonical redacted request and key), or
 * an HTTP tool call (its name, arguments and key). The call is frozen: every stage reads the same one.
 * @example
 * const call = await classifyRequest(request, { codec, seq, n, step: `model#${n}` }, config)
 */
async function classifyRequest(
  request: Request,
  { codec, seq, n, step, origin, url = new URL(request.url) }: Arrival,
  config: ClassifyConfig,
): Promise<Call & (ModelRequest | HttpToolRequest)> {
  // @note issue 14: read once, no clone: the run answers every request it classifies (nothing reads this body after
  // it), and a live send reuses these bytes.
  const bytes = request.body === null ? EMPTY : await bodyBytes(request.body)
  const text = bytes.toString('utf8')
  if (codec) {
    // @note issue 40 item 6: a model call's canonical form and key are computed when a stage first reads them: the tape
    // and the journal at once, the live stage when it keeps the cell, after the client has its answer.
    let identity: { canonical: ModelRequest['canonical']; key: string } | undefined
    const identify = () =>
      (identity ??= remembered(`model ${request.method} ${url.href}\n${text}`, config, () => {
        const canonical = canonicalRequest(request.method, url, text, config)
        return { canonical, key: requestKey(canonical) }
      }))
    const call = { channel: 'model', seq, n, step, request, url, text, bytes, codec, ...(origin ? { origin } : {}) } as const
    return Object.freeze(
      Object.defineProperties(call as typeof call & Pick<ModelRequest, 'canonical' | 'key'>, {
        canonical: { enumerable: true, get: () => identify().canonical },
        key: { enumerable: true, get: () => identify().key },
      }),
    )
  }
  const mcp = request.headers.has('mcp-session-id') || request.headers.has('mcp-protocol-version')
  const { name, args, key, rpcId, legacyKey } = remembered(`tool ${request.method}${mcp ? ' mcp' : ''} ${url.href}\n${text}`, config, () =>
    httpToolCall(request.method, url, text, { redactor: config.redactor, ignore: config.ignore, normalize: config.normalize, mcp }),
  )
  return Object.freeze({
    channel: 'tool',
    kind: 'http',
    seq,
    n,
    id: step,
    step: `${step} ${name}`,
    key,
    request,
    url,
    bytes,
    name,
    args,
    ...(rpcId !== undefined ? { rpcId } : {}),
    ...(legacyKey ? { legacyKey } : {}),
    ...(origin ? { origin } : {}),
  })
}

/**
 * A request's body, read whole from its stream.
 * @note issue 40 performance: `request.arrayBuffer()` reads the same stream through undici's body mixin (a deferred
 * promise, a copy into one ArrayBuffer, then ours into a Buffer): about twice the CPU of this loop, for every request.
 */
async function bodyBytes(body: ReadableStream<Uint8Array>): Promise<Buffer> {
  const reader = body.getReader()
  const parts: Uint8Array[] = []
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    if (!(value instanceof Uint8Array)) throw new TypeError('Received non-Uint8Array chunk')
    parts.push(value)
  }
  // a copy: a body stream's chunks may be buffers its producer reuses
  return Buffer.concat(parts)
}

/**
 * Identities of requests, by their exact bytes, most recently used last. Never kept: a body over `MEMO_TEXT`, and one
 * normalized by a function of the user's (it may answer otherwise next time).
 */
const memo = new Map<string, object>()
const MEMO_ENTRIES = 128
const MEMO_TEXT = 64 * 1024
/** The redactors and normalizers identities were made with, by a number (each is made once per configuration). */
const ruleIds = new WeakMap<object, number>()
let ruleCount = 0

/**
 * What `make` answers for a call under these rules, remembered by `what` (its kind and exact bytes: method, URL and
 * body; a tool's name and JSON arguments): a call's canonical form and key are a pure function of both, and a suite
 * makes the same call again and again (every run of a reused scenario, a what-if's reruns, `retry`). The answer is
 * frozen: runs share it.
 * @note issue 28: the canonical form and key were about a third of what fluxlab adds to a replayed call.
 * @example
 * const { canonical, key } = remembered(`model POST ${url.href}\n${text}`, config, () => identify(url, text))
 */
function remembered<T extends object>(what: string, rules: CanonicalOptions, make: () => T): T {
  if (what.length > MEMO_TEXT || rules.normalize?.pure === false) return make()
  const key = `${ruleId(rules.redactor)} ${ruleId(rules.normalize)} ${JSON.stringify(rules.ignore ?? [])} ${what}`
  let answer = memo.get(key) as T | undefined
  if (answer) memo.delete(key)
  else if (memo.size >= MEMO_ENTRIES) memo.delete(memo.keys().next().value!)
  memo.set(key, (answer ??= frozen(make())))
  return answer
}

function ruleId(rules: object | undefined): number {
  if (!rules) return 0
  let id = ruleIds.get(rules)
  if (id === undefined) ruleIds.set(rules, (id = ++ruleCount))
  return id
}

/** `value` and every object in it, frozen. */
function frozen<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) frozen(v)
  }
  return value
}

export type { Counters } from './call.js'
export { RunLog } from './log.js'
export type { RunConfig, RunInit, RunSettings } from './config.js'
export type { Refusal } from './refuse.js'

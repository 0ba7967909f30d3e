/**
 * The one front door: every source of requests hands its request here (the fetch, `node:http` and
 * XMLHttpRequest interceptors, the npm `undici` dispatchers, the global `WebSocket`, the MCP transport
 * wrapper, `mcp()` below). The router finds the `Run` the request belongs to and hands it over; whatever receives a
 * request is a `Run` (a scenario's, a test's, a file's, or a refusal's: `refusals.ts`). The CLI's control
 * channel has one run for the whole program and hands requests to it directly.
 */
import { placeholderIn, REPLAY_KEY, replayKeyFor } from '../context/replay-keys.js'
import { state, type RequestRoute } from '../context/state.js'
import {
  GLOBAL_DISPATCHERS,
  isLoopback,
  isOwnServer,
  liveFetch,
  nothingListens,
  type Admission,
  type Admit,
  type Origin,
  type SocketConnection,
} from '../sources/index.js'
import { detectModelCall, isModelListRequest, isProviderRequest } from '../providers/registry.js'
import { routeSocket } from '../sources/realtime-socket.js'
import { wrapMcpTransport, type McpTransport, type McpTransportOptions } from '../sources/mcp-transport.js'
import { wrapTool, wrapTools, type ToolInvoker } from '../tools/wrap.js'
import { OTLP_EXPORT, telemetryAdmission } from './telemetry.js'
import { childEnv, childrenRunning, syncChild } from './tree.js'

/**
 * The run a request made now belongs to: the one whose agent (or test) made it, in async context; under a
 * runner without per-test async context, the attached test's; else what whole-suite mode chooses for a
 * request outside every test (the file's scenario, or a refusal). `undefined`: it passes untouched.
 * @note AsyncLocalStorage context survives msw's interception of both `fetch` and `node:http`, so there is no
 * guessing fallback that could route another test's request into this run.
 */
function currentRun(): RequestRoute | undefined {
  return state.runs.getStore() ?? state.attached ?? state.outside?.()
}

/** An OpenTelemetry export: never on a tape (`telemetry.ts`). */
const isTelemetryExport = (method: string, url: URL): boolean => method === 'POST' && OTLP_EXPORT.test(url.pathname)

/**
 * Whole-suite mode (issue 38): a request to a loopback server that is no provider's, from a run whose test's own servers
 * are not the network (`config.ownServers`). `'own'`: a server of this process tree listens there, and the request
 * passes untouched (never keyed, recorded or refused); `'probe'`: no server of the tree listens there yet while a
 * child of the tree runs, and the request passes only if nothing listens there at all (a readiness poll of a server
 * the child is still starting: the client meets the connection refused itself). A model-shaped
 * request, one to a provider's host (the `hosts` option) and a model list stay the run's.
 */
function localTarget(run: RequestRoute, method: string, url: URL): 'own' | 'probe' | undefined {
  if (!run.config?.ownServers || !isLoopback(url)) return undefined
  const hosts = run.config.hosts ?? state.options.hosts
  if (isProviderRequest(method, url, hosts) || isModelListRequest(method, url)) return undefined
  if (isOwnServer(url)) return 'own'
  // @note only while a child of the tree runs, and not for a host the tape holds: a local stand-in for a tool API that
  // is down on replay is still replayed.
  return childrenRunning() && !run.config.fixture?.tools.some((c) => c.url && new URL(c.url).host === url.host) ? 'probe' : undefined
}

/** The own symbols of an undici `MockAgent` this file reads, by their descriptions (any copy of undici has its own). */
const MOCK_SYMBOLS = { netConnect: 'net connect', active: 'is mock active' } as const
const mockSymbols = new WeakMap<object, { netConnect: symbol; active: symbol } | null>()

/**
 * Whether the app's own undici `MockAgent`, installed as the global dispatcher (`setGlobalDispatcher`, which global
 * `fetch` and the `undici` package read), answers a request to `url` itself, without a socket: it is active and lets
 * nothing to that host reach the network (`disableNetConnect()`, or `enableNetConnect(…)` naming other hosts). Such a
 * request is the app's mock's, as one its msw handlers answer: it passes untouched (never keyed, recorded or refused,
 * issue 38 item 9), and an unmatched one fails as the mock fails it. A model call stays fluxlab's, as it does before msw.
 * @note here, not in src/sources/: every request asks it, and a replayed call's path stays at 8 files (path.test.ts).
 */
function mockedBeneath(run: RequestRoute, method: string, url: URL): boolean {
  for (const slot of GLOBAL_DISPATCHERS) {
    const agent = (globalThis as Record<symbol, unknown>)[slot]
    if (!agent || typeof agent !== 'object') continue
    let keys = mockSymbols.get(agent)
    if (keys === undefined) {
      const own = Object.getOwnPropertySymbols(agent)
      const netConnect = own.find((s) => s.description === MOCK_SYMBOLS.netConnect)
      const active = own.find((s) => s.description === MOCK_SYMBOLS.active)
      keys = netConnect && active ? { netConnect, active } : null
      mockSymbols.set(agent, keys)
    }
    if (!keys) continue
    const fields = agent as Record<symbol, unknown>
    const allowed = fields[keys.netConnect]
    const reaches = allowed === true || (Array.isArray(allowed) && allowed.some((m) => matchesHost(m, url.host)))
    if (fields[keys.active] === true && !reaches) return !isProviderRequest(method, url, run.config?.hosts ?? state.options.hosts)
  }
  return false
}

/** undici's `enableNetConnect` matcher (`matchValue`): a host string, a RegExp, or a function of the host. */
function matchesHost(matcher: unknown, host: string): boolean {
  if (typeof matcher === 'string') return matcher === host
  if (matcher instanceof RegExp) return matcher.test(host)
  return typeof matcher === 'function' && (matcher as (h: string) => unknown)(host) === true
}

/**
 * Whether `run` takes a request to `url`: every one but a telemetry export, an own server's and one the app's undici mock
 * answers, unless it only refuses (then what its gate claims).
 */
const takes = (run: RequestRoute, method: string, url: URL): boolean =>
  !isTelemetryExport(method, url) &&
  localTarget(run, method, url) !== 'own' &&
  !mockedBeneath(run, method, url) &&
  (run.config?.refusal?.claims(method, url) ?? true)

/**
 * What `run` does with `request`: `undefined` when it does not take it (a run that only refuses leaves what its gate
 * does not claim), else whether it answers before the app's mocks, and the answer. `origin`: the child process that
 * sent it, when another process of the tree did (`tree.ts`).
 * @example
 * const admitted = admitTo(run, request, 'node child.mjs')
 */
export function admitTo(run: RequestRoute, request: Request, origin?: string, mocks?: boolean): Admission | undefined {
  const url = new URL(request.url)
  if (isTelemetryExport(request.method, url)) return telemetryAdmission(url)
  const local = localTarget(run, request.method, url)
  if (local === 'own' || mockedBeneath(run, request.method, url)) return undefined
  const refusal = run.config?.refusal
  if (refusal && !refusal.claims(request.method, url)) return undefined
  const codec = detectModelCall(request.method, url, run.config?.hosts ?? state.options.hosts)
  const known = { codec, url, ...(origin ? { origin } : {}), ...(mocks && codec ? { pastMocks: true as const } : {}) }
  // `bind`, not a closure here: answering calls the run directly.
  const answer = run.handle.bind(run, request, known)
  const preempts = refusal ? refusal.preempts(request.method, url) : known.codec !== undefined
  // @note issue 38: a poll of a local server that is not listening yet is no call: it fails as the refused connection
  // would, a network error, and reaches no tape. (Not a pass: this late, after the app's mocks, nothing would send it.)
  // A child that bound the port during the probe made it own: the request goes to it live, unrecorded.
  return { preempts, answer: local === 'probe' ? () => probed(request, url, answer) : answer }
}

/** A request to a loopback port no server of the tree listens on, while a child of the tree runs (`localTarget`). */
async function probed(request: Request, url: URL, answer: () => Promise<Response | undefined>): Promise<Response | undefined> {
  if (await nothingListens(url)) return Response.error()
  return isOwnServer(url) ? liveFetch(request) : answer()
}

const nothing = async (): Promise<undefined> => undefined

/**
 * The one question every request source asks (`acquireInterception` is handed it by every run): the request goes to
 * the run it belongs to, or passes untouched. By its origin: a child process or worker started now (no request) is on
 * the tape of the run it is started in (`tree.ts`); a realtime socket's opening is that run's `socket`; what no Response
 * can answer says whether it is a model call; the undici dispatchers and the MCP transport hand theirs to the run as
 * they are; every other request is admitted once (`admitTo`), before the app's own mocks see it.
 * @note issue 25: the run was asked three times (`preempts`, `claims`, `handle`), and found the family twice.
 * @example
 * const release = acquireInterception(admit)
 */
export const admit: Admit = (request: Request | undefined, origin: Origin): Admission | undefined => {
  const run = currentRun()
  if (!run) return undefined
  if (!request)
    return { preempts: false, answer: nothing, child: () => childEnv(run, origin.process ?? '', admitTo), holder: () => syncChild(run, origin.process ?? '') }
  if (origin.via === 'fetch' || origin.via === 'http' || origin.via === 'xhr') {
    if (!origin.unroutable) return admitTo(run, request, undefined, origin.mocks)
  }
  const url = new URL(request.url)
  if (!takes(run, request.method, url)) return undefined
  if (origin.unroutable) {
    const hosts = run.config?.hosts ?? state.options.hosts
    return { preempts: isProviderRequest(request.method, url, hosts), answer: nothing, report: (error) => run.report?.(error) }
  }
  return origin.via === 'websocket' ? socketAdmission(run, url) : { preempts: false, answer: () => run.handle(request) }
}

/**
 * A realtime socket (a family with `socket`, OpenAI Realtime, known by its path) opened inside a run goes on that
 * run's tape, every frame of it, whatever async context later frames are sent from; any other socket is left.
 */
function socketAdmission(run: RequestRoute, url: URL): Admission | undefined {
  const codec = detectModelCall('POST', url, state.options.hosts)
  if (!codec?.socket) return undefined
  const socket = (connection: SocketConnection): void => {
    // The placeholder a replay filled, as a subprotocol carries it (it names its variable).
    const placeholder = connection.protocols.map(placeholderIn).find((v) => v !== undefined)
    routeSocket(
      connection,
      (request) => run.handle(request),
      (frame) => codec.parseRequest(frame, connection.url).model,
      placeholder === undefined ? undefined : placeholder ? replayKeyFor(placeholder) : REPLAY_KEY,
    )
  }
  return { preempts: true, answer: nothing, socket }
}

/**
 * Wrap an MCP transport so its messages go on the tape of the run or test they are sent in
 * (`Scenario.run`, or the running test in whole-suite mode); outside both they go out untouched.
 * A replay never starts the server. Inside `s.run`, `lab.mcp(transport)` does the same.
 * @example
 * await client.connect(mcp(new StdioClientTransport({ command: 'node', args: ['server.mjs'] })))
 */
export function mcp<T extends McpTransport>(transport: T, options?: McpTransportOptions): T {
  return wrapMcpTransport(transport, admit, options)
}

/**
 * One call of a tool wrapped with {@link tools}: on the tape of the run or test it is made in (recorded, or answered
 * from the fixture without running the tool); outside both, and in a run that only refuses, the tool runs as it is.
 */
const onTape: ToolInvoker = (call, run) => {
  const route = currentRun()
  // @note untouched: a synchronous tool called outside every run still answers synchronously.
  return route?.callTool && !route.config?.refusal ? route.callTool(call, run) : run()
}

/**
 * Wrap in-process tools so their calls go on the tape of the run or test they are made in, as `lab.tools` does inside
 * `s.run`: in whole-suite mode, or where tools are built once at module level. Outside every run they run untouched.
 * The same shapes as `lab.tools`: an object keyed by tool name (Vercel AI SDK), or an array of named tools (OpenAI
 * Agents JS, LangChain.js).
 * @example
 * import { tools } from 'fluxlab'
 * export const agentTools = tools({ weather: tool({ inputSchema, execute: getWeather }) })
 */
export function tools<T>(set: T): T {
  return wrapTools(set, onTape)
}

/**
 * Wrap one in-process tool the same way as {@link tools}.
 * @example
 * const read = tool('read', async ({ path }: { path: string }) => readFile(path, 'utf8'))
 */
export function tool<T>(name: string, fn: T): T {
  return wrapTool(name, fn, onTape)
}

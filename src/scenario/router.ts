/**
 * The one front door: every source of requests hands its request here (the fetch, `node:http` and
 * XMLHttpRequest interceptors, the npm `undici` dispatchers, the global `WebSocket`, the MCP transport
 * wrapper, `mcp()` below). The router finds the `Run` the request belongs to and hands it over; whatever receives a
 * request is a `Run` (a scenario's, a test's, a file's, or a refusal's: `refusals.ts`). The CLI's control
 * channel has one run for the whole program and hands requests to it directly.
 */
import { state, type RequestRoute } from '../context/state.js'
import type { Router } from '../interceptor/index.js'
import type { SocketConnection } from '../interceptor/websocket.js'
import { detectModelCall, isProviderRequest } from '../providers/registry.js'
import { routeSocket } from '../context/realtime-socket.js'
import { wrapMcpTransport, type McpTransport, type McpTransportOptions } from '../tools/mcp-transport.js'

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

/** The run that takes a request to `url` now, if one claims it. */
function claimant(method: string, url: URL): RequestRoute | undefined {
  const run = currentRun()
  return run && (run.claims?.(method, url) ?? true) ? run : undefined
}

/**
 * The interception router, handed to `acquireInterception` by every run: each request goes to the run it
 * belongs to, or passes untouched.
 * @example
 * const release = acquireInterception(router)
 */
export const router: Router = Object.assign(async (request: Request): Promise<Response | undefined> => claimant(request.method, new URL(request.url))?.handle(request), {
  claims: (method: string, url: URL): boolean => claimant(method, url) !== undefined,
  isModelCall: (method: string, url: URL): boolean => currentRun()?.isModelCall?.(method, url) ?? isProviderRequest(method, url, state.options.hosts),
  report(error: Error): void {
    currentRun()?.report?.(error)
  },
  /** Model calls are a run's before the app's own mocks see them; other HTTP only when no app mock answered it. */
  preempts: (request: Request): boolean => currentRun()?.preempts?.(request) ?? false,
  /**
   * A realtime socket (a family with `socket`, OpenAI Realtime, known by its path) opened inside a run goes on that
   * run's tape, every frame of it, whatever async context later frames are sent from; any other socket is left.
   */
  socket(connection: SocketConnection): boolean {
    const run = claimant('POST', connection.url)
    const codec = detectModelCall('POST', connection.url, state.options.hosts)
    if (!run || !codec?.socket) return false
    routeSocket(connection, (request) => run.handle(request), (frame) => codec.parseRequest(frame, connection.url).model)
    return true
  },
})

/**
 * Wrap an MCP transport so its messages go on the tape of the run or test they are sent in
 * (`Scenario.run`, or the running test in whole-suite mode); outside both they go out untouched.
 * A replay never starts the server. Inside `s.run`, `lab.mcp(transport)` does the same.
 * @example
 * await client.connect(mcp(new StdioClientTransport({ command: 'node', args: ['server.mjs'] })))
 */
export function mcp<T extends McpTransport>(transport: T, options?: McpTransportOptions): T {
  return wrapMcpTransport(transport, router, options)
}

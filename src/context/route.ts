// The interception router: what an intercepted request is handed to. Kept apart from `state.ts` so that the
// runner setup files, which load the state in every test file, do not load the provider codecs behind it
// (issue 14: setup-file cost per test file); it loads with the scenario engine that attaches interception.
import { detectModelCall, providerOfHost } from '../providers/registry.js'
import type { ProviderFamily } from '../providers/types.js'
import type { SocketConnection } from '../interceptor/websocket.js'
import { routeSocket } from './realtime-socket.js'
import { state, type RequestRoute } from './state.js'

/**
 * The run a request made now belongs to: the one whose agent made it. A request
 * made outside every run passes through untouched.
 * @note AsyncLocalStorage context survives msw's interception of both `fetch`
 * and `node:http` (checked on Node 20), so there is no guessing fallback that
 * could route another test's request into this run.
 * @example
 * currentRoute()?.handle(request)
 */
function currentRoute(): RequestRoute | undefined {
  return state.runs.getStore() ?? state.attached ?? state.outside
}

/**
 * The interception router: the request goes to the run it belongs to, or passes untouched.
 * @example
 * acquireInterception(routeRequest)
 */
export const routeRequest = Object.assign(async (request: Request): Promise<Response | undefined> => currentRoute()?.handle(request), {
  claims(method: string, url: URL): boolean {
    const route = currentRoute()
    return route !== undefined && (route.claims?.(method, url) ?? true)
  },
  isModelCall: (method: string, url: URL): boolean => currentRoute()?.isModelCall?.(method, url) ?? isModelCall(method, url, state.options.hosts),
  report(error: Error): void {
    currentRoute()?.report?.(error)
  },
  /**
   * A realtime socket (a family with `socket`, OpenAI Realtime, known by its path) opened inside a run goes on that run's tape,
   * every frame of it, whatever async context later frames are sent from; any other socket is left.
   */
  socket(connection: SocketConnection): boolean {
    const route = currentRoute()
    const codec = detectModelCall('POST', connection.url, state.options.hosts)
    if (!route || !codec?.socket || !(route.claims?.('POST', connection.url) ?? true)) return false
    routeSocket(connection, (request) => route.handle(request), (frame) => codec.parseRequest(frame, connection.url).model)
    return true
  },
})

/**
 * Whether a request is a model call, or at least goes to a provider's host (so one fluxlab cannot
 * route, such as a WebSocket to `api.openai.com`, is refused rather than let through).
 * @example
 * isModelCall('GET', new URL('wss://api.openai.com/v1/realtime')) // true
 */
export function isModelCall(method: string, url: URL, hosts: Record<string, ProviderFamily> = {}): boolean {
  return detectModelCall(method, url, hosts) !== undefined || providerOfHost(url.host, hosts) !== undefined
}

/**
 * Whether the request's route answers it before the app's own msw or nock handlers (a model call).
 * @example
 * acquireInterception(routeRequest, preemptsRequest)
 */
export const preemptsRequest = (request: Request): boolean => currentRoute()?.preempts?.(request) ?? false

/**
 * Loaded into every Node process of a tree whose requests go on one tape (NODE_OPTIONS=--import, inherited by child
 * processes): intercepts `fetch` and `node:http` for the whole process and forwards each request, over a local socket
 * (`FLUX_TREE`, src/scenario/tree.ts), to the process that holds the tape: a test's process, where the run the child
 * was started in answers it, or the CLI under `fluxlab record|replay`, which holds the program's one run. A request
 * that is not the tape's comes back `pass` and goes out as it would without fluxlab. The program's code is not
 * changed and needs no fluxlab import.
 */
import { realpathSync } from 'node:fs'
import { acquireInterception, isPackageManager, liveFetch, redirectModeOf, upstreamed, type Admit, type ChildEnv } from '../sources/index.js'
import { upstreamFrom } from '../context/options.js'
import { FluxError } from '../errors.js'
import { detectModelCall, isProviderRequest } from '../providers/registry.js'
import type { ProviderFamily } from '../providers/registry.js'
import { forwardOverSocket, helloOverSocket, reportOverSocket } from '../sources/tree-wire.js'
import { endToEnd } from '../sources/tree-live.js'
import { WORKER_TREE } from '../sources/worker.js'
import { attachServerRequests, isForwardedRequest, requestRun, type RunAddress } from '../sources/server-requests.js'
import { importedInterceptors } from '../sources/interceptors-eager.js'
import { provideInterceptors } from '../sources/interceptors.js'
import http from 'node:http'
import https from 'node:https'

// A worker thread finds the tree on its global (its `env` may be the process's own); a process, in its environment.
const tree = ((globalThis as Record<symbol, NodeJS.ProcessEnv | undefined>)[WORKER_TREE] ?? process.env) as NodeJS.ProcessEnv
// A package manager's own process (npx starting an MCP server) is left as it is without fluxlab: its registry traffic
// is no call of the agent. Its children inherit this preload, and the program it starts is on the tape.
const packageManager = isPackageManager(process.argv[1], realpathSync)
// The interceptors this build imports, for the acquire below (src/sources/interceptors.ts).
provideInterceptors(importedInterceptors)
if (tree.FLUX_TREE && tree.FLUX_TREE_TOKEN) {
  // An app server under `fluxlab serve`: what it does while handling a test's browser request goes to that test's run.
  // Issue 39: serve checks the server's `--ready` url when one of its servers starts listening, rather than every 20 ms.
  if (tree.FLUX_SERVE) {
    const own = { path: tree.FLUX_TREE, token: tree.FLUX_TREE_TOKEN }
    attachServerRequests([http.Server.prototype, https.Server.prototype] as never, own, () => void helloOverSocket(own.path, own.token, { listening: true }))
  }
  if (!packageManager) acquireInterception(treeAdmit({ path: tree.FLUX_TREE, token: tree.FLUX_TREE_TOKEN }, tree.FLUX_TREE_HOSTS))
  // The run learns that this process can reach it: a child that never says so is warned about (src/scenario/tree.ts).
  void helloOverSocket(tree.FLUX_TREE, tree.FLUX_TREE_TOKEN)
}

let upstream: Record<string, URL> | undefined

/**
 * Issue 39: the tape went live for `request`, so this process sends it, as it sends a request that is not the tape's:
 * beneath fluxlab, through this process's own layers (its fetch wrappers and per-request dispatcher, kept on a copy of
 * the request; its global undici dispatcher). To `url` (where the tape's `upstream` put it), or where
 * this process's own `FLUX_UPSTREAM` puts it.
 */
function sendHere(request: Request, url: string, body: Uint8Array | undefined): Promise<Response> {
  try {
    upstream ??= upstreamFrom({}, tree)
  } catch (e) {
    upstream = {}
    console.error((e as Error).message)
  }
  const target = upstreamed(new URL(request.url), upstream)?.href ?? url
  const init = { method: request.method, headers: endToEnd(request.headers), redirect: redirectModeOf(request), signal: request.signal }
  return liveFetch(target === request.url ? new Request(request, init) : new Request(target, { ...init, body: body as Uint8Array<ArrayBuffer> | undefined }))
}

/**
 * A child of a test's run: model calls go to the test's process before this program's own mocks see them, every other
 * request when none of them answered. Its own children get the same socket and token (an explicit `env` drops them).
 * In an app server, the run is the one of the browser request being handled (`requestRun`), else the server's own.
 */
function treeAdmit(own: RunAddress, hostsJson: string | undefined): Admit {
  const address = () => requestRun.getStore() ?? own
  let hosts: Record<string, ProviderFamily> | undefined
  try {
    hosts = hostsJson ? (JSON.parse(hostsJson) as Record<string, ProviderFamily>) : undefined
  } catch {
    hosts = undefined
  }
  const send = (request: Request, { path, token } = address()): Promise<Response | undefined> =>
    forwardOverSocket(path, token, request, (url, body) => sendHere(request, url, body)).catch((e: unknown) => {
      // Never out unseen, and never a bare network error: the process that holds the tape is gone (the test ended).
      const error = new FluxError('FLUX_NOT_IN_TEST', {
        failed: `send ${request.method} ${request.url.split('?')[0]}`,
        reason:
          `this process was started inside a fluxlab run, and the process holding its tape cannot be reached (${(e as Error).message}), so the request ` +
          `was not sent`,
        fix: requestRun.getStore()
          ? 'Let the page finish what it asked the server for before the Playwright test ends (await the answer on the page).'
          : 'Wait for child processes to exit inside the test that starts them.',
      })
      console.error(error.message)
      return Response.error()
    })
  const ports: Record<string, string> = tree.FLUX_TREE_PORTS ? { FLUX_TREE_PORTS: tree.FLUX_TREE_PORTS } : {}
  const hostsEnv: Record<string, string> = hostsJson ? { FLUX_TREE_HOSTS: hostsJson } : {}
  const env = ({ path, token }: RunAddress): ChildEnv => ({ preload: import.meta.url, env: { FLUX_TREE: path, FLUX_TREE_TOKEN: token, ...ports, ...hostsEnv } })
  // In an app server, a test's request forwarded to another server of the tree passes: that server routes it.
  const forwarded = (request: Request) => tree.FLUX_SERVE !== undefined && isForwardedRequest(request)
  const nothing = async (): Promise<undefined> => undefined
  return (request, origin) => {
    const to = address()
    if (!request) return { preempts: false, answer: nothing, child: () => env(to) }
    const url = new URL(request.url)
    // What fluxlab cannot route here (an upgrade, a CONNECT): refused when it is a model call, and the run that started
    // this process fails with it; anything else passes with a warning, as in the test's own process.
    if (origin.unroutable)
      return { preempts: isProviderRequest(request.method, url, hosts), answer: nothing, report: (e) => void reportOverSocket(to.path, to.token, e) }
    if (forwarded(request)) return undefined
    return { preempts: detectModelCall(request.method, url, hosts) !== undefined, answer: () => send(request, to) }
  }
}

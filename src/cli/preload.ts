/**
 * Loaded into every Node process of a tree whose requests go on one tape (NODE_OPTIONS=--import, inherited by child
 * processes): intercepts `fetch` and `node:http` for the whole process and forwards each request to the process
 * that holds the tape. The program's code is not changed and needs no fluxlab import.
 * - Under `fluxlab record|replay` (`FLUX_CONTROL_URL`): to the CLI's control server, which holds the one run.
 * - A child process of a test or a scenario run (`FLUX_TREE`, src/scenario/tree.ts): to the test's process, over a
 *   local socket, where the run the child was started in answers it; a request that is not the tape's comes back
 *   `pass` and goes out as it would without fluxlab.
 */
import { acquireInterception, liveFetch, type ChildEnv, type Router } from '../interceptor/index.js'
import { FluxError } from '../errors.js'
import { detectModelCall } from '../providers/registry.js'
import type { ProviderFamily } from '../providers/types.js'
import { FRAME, FrameDecoder, type ForwardedRequest } from '../interceptor/frames.js'
import { forwardOverSocket } from '../interceptor/tree-wire.js'
import { WORKER_TREE } from '../interceptor/worker.js'

const url = process.env.FLUX_CONTROL_URL
const token = process.env.FLUX_CONTROL_TOKEN
const NULL_BODY = new Set([101, 204, 205, 304])

// A worker thread finds the tree on its global (its `env` may be the process's own); a process, in its environment.
const tree = ((globalThis as Record<symbol, NodeJS.ProcessEnv | undefined>)[WORKER_TREE] ?? process.env) as NodeJS.ProcessEnv
if (tree.FLUX_TREE && tree.FLUX_TREE_TOKEN) acquireInterception(treeRouter(tree.FLUX_TREE, tree.FLUX_TREE_TOKEN, tree.FLUX_TREE_HOSTS))
// Model calls go to the CLI before the program's own msw or nock mocks see them; other requests only when none answered.
else if (url && token) acquireInterception(Object.assign((request: Request) => forward(request, url, token), { preempts: (request: Request) => detectModelCall(request.method, new URL(request.url)) !== undefined }))

/**
 * A child of a test's run: model calls go to the test's process before this program's own mocks see them, every other
 * request when none of them answered. Its own children get the same socket and token (an explicit `env` drops them).
 */
function treeRouter(path: string, token: string, hostsJson: string | undefined): Router {
  let hosts: Record<string, ProviderFamily> | undefined
  try {
    hosts = hostsJson ? (JSON.parse(hostsJson) as Record<string, ProviderFamily>) : undefined
  } catch {
    hosts = undefined
  }
  const send = (request: Request): Promise<Response | undefined> =>
    forwardOverSocket(path, token, request).catch((e: unknown) => {
      // Never out unseen, and never a bare network error: the process that holds the tape is gone (the test ended).
      const error = new FluxError('FLUX_NOT_IN_TEST', {
        failed: `send ${request.method} ${request.url.split('?')[0]}`,
        reason: `this process was started inside a fluxlab run, and the process holding its tape cannot be reached (${(e as Error).message}), so the request was not sent`,
        fix: 'Wait for child processes to exit inside the test that starts them.',
      })
      console.error(error.message)
      return Response.error()
    })
  const env: ChildEnv = { preload: import.meta.url, env: { FLUX_TREE: path, FLUX_TREE_TOKEN: token, ...(hostsJson ? { FLUX_TREE_HOSTS: hostsJson } : {}) } }
  return Object.assign(send, {
    admit: (request: Request) => ({ preempts: detectModelCall(request.method, new URL(request.url), hosts) !== undefined, answer: () => send(request) }),
    child: () => env,
  })
}

async function forward(request: Request, control: string, token: string): Promise<Response> {
  const bytes = request.method === 'GET' || request.method === 'HEAD' ? null : Buffer.from(await request.arrayBuffer())
  const payload: ForwardedRequest = {
    method: request.method,
    url: request.url,
    headers: [...request.headers],
    body: bytes && bytes.length ? bytes.toString('base64') : null,
  }
  let res: Response
  try {
    // @note bypass(): this request goes to the CLI itself and must not be intercepted again.
    res = await liveFetch(new Request(control, { method: 'POST', headers: { 'x-flux-token': token, 'content-type': 'application/json' }, body: JSON.stringify(payload) }))
  } catch {
    return Response.error()
  }
  if (!res.ok || !res.body) return Response.error()
  const reader = res.body.getReader()
  const decoder = new FrameDecoder()
  const queue: Array<{ type: number; payload: Uint8Array }> = []
  let ended = false
  const next = async (): Promise<{ type: number; payload: Uint8Array } | undefined> => {
    while (queue.length === 0) {
      if (ended) return undefined
      const { done, value } = await reader.read()
      if (done) ended = true
      else queue.push(...decoder.push(value))
    }
    return queue.shift()
  }
  const head = await next()
  if (!head || head.type !== FRAME.head) return Response.error()
  const meta = JSON.parse(Buffer.from(head.payload).toString('utf8')) as { status: number; statusText: string; headers: Array<[string, string]> }
  const headers = new Headers(meta.headers)
  if (NULL_BODY.has(meta.status)) {
    void reader.cancel().catch(() => {})
    return new Response(null, { status: meta.status, statusText: meta.statusText, headers })
  }
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const f = await next().catch((e: unknown) => ({ type: FRAME.error, payload: Buffer.from(JSON.stringify({ message: String(e) })) }))
      if (!f || f.type === FRAME.end) controller.close()
      else if (f.type === FRAME.data) controller.enqueue(f.payload)
      else {
        const err = JSON.parse(Buffer.from(f.payload).toString('utf8')) as { message: string; code?: string }
        controller.error(Object.assign(new TypeError('terminated'), { cause: Object.assign(new Error(err.message), { code: err.code }) }))
      }
    },
    cancel() {
      void reader.cancel().catch(() => {})
    },
  })
  return new Response(body, { status: meta.status, statusText: meta.statusText, headers })
}

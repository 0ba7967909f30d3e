/**
 * Loaded into every Node process under `fluxlab record|replay` (NODE_OPTIONS=--import, inherited by
 * child processes): intercepts `fetch` and `node:http` for the whole process and forwards each
 * request to the CLI, which holds the one session of the run (so a tree of processes is one tape).
 * The program's code is not changed and needs no fluxlab import.
 */
import { acquireInterception, liveFetch } from '../interceptor/index.js'
import { detectModelCall } from '../providers/registry.js'
import { FRAME, FrameDecoder, type ForwardedRequest } from './frames.js'

const url = process.env.FLUX_CONTROL_URL
const token = process.env.FLUX_CONTROL_TOKEN
const NULL_BODY = new Set([101, 204, 205, 304])

// Model calls go to the CLI before the program's own msw or nock mocks see them; other requests only when none answered.
if (url && token) acquireInterception(Object.assign((request: Request) => forward(request, url, token), { preempts: (request: Request) => detectModelCall(request.method, new URL(request.url)) !== undefined }))

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

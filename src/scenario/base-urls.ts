/**
 * The loopback endpoint of the process tree (issue 26 item 3): a child process fluxlab cannot preload (a Python or
 * Go tool, a shell script that resets `NODE_OPTIONS`, a binary) reaches the provider through the base-URL variable
 * its SDK reads, pointed here. `http://127.0.0.1:<port>/<token>/<variable>/…` is the request of the child the token
 * names, to what that variable was (or the provider's own base URL): it goes to the run that started the child as
 * that request, so the fixture keeps the provider's host.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readFlag } from '../golden/update-mode.js'
import { state } from '../context/state.js'
import { familyTables } from '../providers/registry.js'

/** The base-URL variables set for a child, with the provider base each stands for when it is unset (each family's `vendors`). */
const baseUrlVars = () => familyTables.vendors.flatMap((v) => (v.base ? v.base.vars.map((name) => ({ name, base: v.base! })) : []))

/** Headers of the hop to the endpoint, not of the child's request. */
const HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'expect', 'te', 'trailer', 'upgrade'])
const RESPONSE_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding'])

/** Answers one request of the child with `token` (to `target`): `undefined` when no run of it takes it any more. */
export type BaseUrlAnswer = (token: string, request: Request) => Promise<Response | undefined>

interface Endpoint {
  server: Server
  /** Set once it listens. */
  port?: number
  listening: Promise<void>
}

const KEY = Symbol.for('fluxlab.base-urls.v1')
const g = globalThis as { [KEY]?: Endpoint }

/** Whether children get the base-URL variables: the `childBaseUrls` option, else `FLUX_CHILD_BASE_URLS`. */
export function childBaseUrls(): boolean {
  return state.options.childBaseUrls ?? readFlag('FLUX_CHILD_BASE_URLS')
}

/**
 * Open this process's endpoint (once; it does not keep the process alive), settled when it listens. Called when a run
 * starts, so a child it starts finds it listening: a child is started synchronously, and a port is bound a moment
 * after `listen`.
 * @example
 * openBaseUrls(answer)
 */
export function openBaseUrls(answer: BaseUrlAnswer): Promise<void> {
  if (g[KEY]) return g[KEY].listening
  const server = createServer((req, res) => void serve(req, res, answer))
  const endpoint: Endpoint = (g[KEY] = {
    server,
    listening: new Promise<void>((resolve) => {
      server.once('error', (e) => resolve(console.warn(`fluxlab: the base-URL endpoint for child processes could not listen: ${e.message}`)))
      server.listen(0, '127.0.0.1', () => resolve(void (endpoint.port = (server.address() as AddressInfo).port)))
    }),
  })
  server.unref()
  return endpoint.listening
}

/**
 * The variables a child with `token` gets: each base-URL variable pointed at the endpoint, with what it stood for
 * (this process's value, or the provider's base) kept in the path; none while the endpoint is not listening.
 * @example
 * Object.assign(env, baseUrlEnv(token))
 */
export function baseUrlEnv(token: string): Record<string, string> {
  const port = g[KEY]?.port
  if (port === undefined) return {}
  const out: Record<string, string> = {}
  for (const { name, base } of baseUrlVars()) {
    const to = encodeURIComponent((process.env[name] ?? base.url).replace(/\/+$/, ''))
    out[name] = `http://127.0.0.1:${port}/${token}/${to}`
  }
  return out
}

/** The request a path on the endpoint stands for: its token, and the URL it goes to (`undefined`: not one of ours). */
function target(path: string): { token: string; url: string } | undefined {
  const [, token, to, ...rest] = path.split('/')
  const base = decodeURIComponent(to ?? '')
  if (!token || !/^https?:\/\//.test(base)) return undefined
  // @note a vendor's SDKs may disagree on its base's version segment (the Anthropic SDK appends `/v1/messages` to its
  // base, the Vercel AI SDK's provider `/messages` to its own, which ends in /v1): the provider's own base takes both.
  const version = baseUrlVars().find((v) => v.base.url === base)?.base.version
  if (version !== undefined && rest[0] !== version) rest.unshift(version)
  return { token, url: `${base}/${rest.join('/')}` }
}

/**
 * A request a preloaded child sent to the endpoint (its SDK read the base-URL variable too), as the request it stands
 * for; any other request as it is.
 * @example
 * const request = throughEndpoint(forwarded)
 */
export function throughEndpoint(request: Request): Request {
  const port = g[KEY]?.port
  if (port === undefined || !request.url.startsWith(`http://127.0.0.1:${port}/`)) return request
  const to = target(new URL(request.url).pathname + new URL(request.url).search)
  return to ? new Request(to.url, request) : request
}

async function serve(req: IncomingMessage, res: ServerResponse, answer: BaseUrlAnswer): Promise<void> {
  try {
    const to = target(req.url ?? '/')
    if (!to) return void res.writeHead(404).end()
    const headers = new Headers()
    for (const [k, v] of Object.entries(req.headers)) if (!HOP.has(k) && v !== undefined) for (const one of Array.isArray(v) ? v : [v]) headers.append(k, one)
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks)
    const response = await answer(to.token, new Request(to.url, { method: req.method, headers, body }))
    if (!response || response.type === 'error') return void res.destroy()
    const out: Record<string, string> = {}
    response.headers.forEach((v, k) => (RESPONSE_HOP.has(k) ? undefined : (out[k] = v)))
    res.writeHead(response.status, response.statusText, out)
    res.flushHeaders()
    const reader = response.body?.getReader()
    res.on('close', () => void reader?.cancel().catch(() => {}))
    for (let r = await reader?.read(); r && !r.done; r = await reader!.read()) res.write(r.value)
    res.end()
  } catch {
    res.destroy()
  }
}

import { sha256Hex, stableJson } from './stable-json.js'
import type { CanonicalRequest } from './cell.js'
import { normalizeValue, type Normalizer } from './normalize.js'
import type { Redactor, RequestBody } from './redact.js'
import { familyTables } from '../providers/registry.js'

/**
 * Body fields that change between two runs of the same agent and never count
 * toward a match. Users add their own with `ignore` (JSON paths, `[*]` for
 * every array item).
 */
const DEFAULT_IGNORE_PATHS: readonly string[] = ['metadata.user_id', 'user', 'prompt_cache_key', 'safety_identifier']

/**
 * @note Ids a provider minted and a later request echoes back (`familyTables.mintedId`, from each family's
 * `mintedIds`), and the `id` of objects whose clients invent it (`clientIdOwners`), are replaced by positional
 * placeholders, so a replay still matches exactly.
 */

export interface CanonicalOptions {
  redactor: Redactor
  ignore?: readonly string[]
  /** `normalize` rules: applied to the canonical request's path and body strings, only when there are some. */
  normalize?: Normalizer
}

/**
 * The canonical redacted form of a request: what its key is computed from.
 * @example
 * canonicalRequest('POST', new URL('https://api.openai.com/v1/chat/completions'), '{"model":"gpt-4.1"}', { redactor })
 */
export function canonicalRequest(method: string, url: URL, bodyText: string, opts: CanonicalOptions): CanonicalRequest {
  const redacted = opts.redactor.request(url.href, parsedBody(bodyText), bodyText)
  const redactedUrl = new URL(redacted.url)
  const path = redactedUrl.pathname + sortedQuery(keptQuery(redactedUrl))
  const body = canonicalBody(redacted.body, opts)
  // @note SPEC §3: the key and the stored request are normalized; what is sent and what is answered never are.
  const rules = opts.normalize?.rules
  if (rules?.length) return { method: method.toUpperCase(), path: normalizeValue(path, rules) as string, body: normalizeValue(body, rules) }
  return { method: method.toUpperCase(), path, body }
}

/**
 * A request body as the redactor takes it: parsed JSON, or its text (a multipart body without its random boundary).
 * @example
 * parsedBody('{"x":1}') // { json: { x: 1 } }
 */
function parsedBody(bodyText: string): RequestBody {
  if (bodyText === '') return null
  try {
    return { json: JSON.parse(bodyText) as unknown }
  } catch {
    return { text: withoutBoundary(bodyText) }
  }
}

/**
 * The canonical form of a redacted body: JSON with ignored paths removed and minted ids numbered; non-JSON text as `{ text }`.
 * @example
 * canonicalBody({ json: { user: 'u1', x: 1 } }, { redactor }) // { x: 1 }
 */
function canonicalBody(body: RequestBody, opts: CanonicalOptions): unknown {
  if (body === null) return null
  if ('text' in body) return { text: body.text }
  const redacted = body.json
  for (const p of DEFAULT_IGNORE_PARTS) removePath(redacted, p)
  for (const p of opts.ignore ?? []) removePath(redacted, parsedPath(p))
  return numberIds(redacted, new Map())
}

/** The first line of a multipart body: `--` and the boundary the client drew at random for this request. */
const MULTIPART_START = /^--([^\r\n]{1,200})\r\n/

/**
 * A multipart body with its boundary replaced by a fixed word, so two uploads of the same parts
 * have the same key.
 * @example
 * withoutBoundary('--x7f\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n--x7f--\r\n')
 * // '--<boundary>\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n--<boundary>--\r\n'
 */
function withoutBoundary(text: string): string {
  const boundary = MULTIPART_START.exec(text)?.[1]
  return boundary === undefined ? text : text.split(boundary).join('<boundary>')
}

/**
 * SHA-256 of the stable JSON of a canonical request.
 * @example
 * requestKey(canonicalRequest(...)) // 'sha256:3f1c…'
 */
export function requestKey(req: CanonicalRequest): string {
  return `sha256:${sha256Hex(stableJson(req))}`
}

/**
 * The key of a tool call: SHA-256 of its name and its redacted, JSON-safe args.
 * @example
 * toolKey('read', { path: 'a.txt' }) // 'sha256:…'
 */
export function toolKey(name: string, args: unknown): string {
  return `sha256:${sha256Hex(stableJson({ name, args }))}`
}

/**
 * An HTTP request to a host that is not a model provider, as a tool call: named
 * `<METHOD> <host><path>`, with the redacted sorted query and the canonical body as args.
 * @example
 * httpToolCall('GET', new URL('http://127.0.0.1:9/weather?city=Paris'), '', { redactor })
 * // { name: 'GET 127.0.0.1:9/weather', args: { query: { city: 'Paris' } }, key: 'sha256:…' }
 */
export function httpToolCall(
  method: string,
  url: URL,
  bodyText: string,
  opts: CanonicalOptions & { mcp?: boolean },
): { name: string; args: Record<string, unknown>; key: string; rpcId?: string | number; legacyKey?: string } {
  const redacted = opts.redactor.request(url.href, parsedBody(bodyText), bodyText)
  const query = keptQuery(new URL(redacted.url)).sort(([a], [b]) => (a < b ? -1 : 1))
  const args: Record<string, unknown> = {}
  if (query.length) args.query = Object.fromEntries(query)
  const body = canonicalBody(redacted.body, opts)
  // @note SPEC §3: a JSON-RPC message's id is positional, like a provider-minted id: a client shared
  // across tests carries its ids from test to test. The id the recording answered is kept apart (`rpcId`).
  const rpc = jsonRpc(body)
  if (rpc && 'id' in rpc) rpc.id = '<jsonrpc-id>'
  if (body !== null) args.body = body
  // @note issue 28: an MCP progress token is positional too (the official client sends the request's id), so parallel
  // calls made in another order have other tokens. A fixture recorded before this keyed the token itself: `legacyKey`.
  const meta = (rpc?.params as { _meta?: Record<string, unknown> } | undefined)?._meta
  const token = meta && typeof meta === 'object' && 'progressToken' in meta ? meta.progressToken : undefined
  let legacyArgs: Record<string, unknown> | undefined
  if (meta && token !== undefined) {
    legacyArgs = structuredClone(args)
    meta.progressToken = '<progress-token>'
  }
  // @note MCP over stdio (src/sources/mcp-transport.ts): the client's answer to a server request (sampling, roots) is protocol, not a tool.
  const answer = url.protocol === 'stdio:' && rpc !== undefined && rpc.method === undefined && ('result' in rpc || 'error' in rpc)
  const name = answer ? 'mcp response' : (mcpName(method, rpc, opts.mcp) ?? `${method} ${url.host}${url.pathname}`)
  const rpcId = rpc ? rpcIdOf(bodyText) : undefined
  return { name, args, key: toolKey(name, args), ...(rpcId !== undefined ? { rpcId } : {}), ...(legacyArgs ? { legacyKey: toolKey(name, legacyArgs) } : {}) }
}

/**
 * The MCP session's setup and upkeep (named by `httpToolCall`): connecting, listing, the GET stream, closing.
 * None of it is the agent's doing, so it is matched by method and never required.
 * @example
 * isMcpHandshake('mcp initialize') // true; isMcpHandshake('mcp get_weather') // false
 */
export function isMcpHandshake(name: string): boolean {
  return /^mcp (initialize|ping|stream|close|notifications\/.+|(tools|prompts|resources|resources\/templates)\/list|logging\/setLevel)$/.test(name)
}

/** The JSON-RPC 2.0 request in a canonical body, if it is one. */
function jsonRpc(body: unknown): Record<string, unknown> | undefined {
  return body && typeof body === 'object' && !Array.isArray(body) && (body as { jsonrpc?: unknown }).jsonrpc === '2.0'
    ? (body as Record<string, unknown>)
    : undefined
}

/** The id the client sent (for answering with it on replay). */
function rpcIdOf(bodyText: string): string | number | undefined {
  if (!bodyText.includes('"jsonrpc"')) return undefined
  try {
    const id = (JSON.parse(bodyText) as { id?: unknown }).id
    return typeof id === 'string' || typeof id === 'number' ? id : undefined
  } catch {
    return undefined
  }
}

/**
 * MCP over streamable HTTP (a JSON-RPC body with an MCP method, or the MCP session headers): named by
 * what it does, not by host and port: `mcp get_weather` (a tools/call), `mcp initialize`, `mcp stream` (the GET
 * SSE stream), `mcp close` (DELETE). A server on another port replays the same.
 */
function mcpName(method: string, rpc: Record<string, unknown> | undefined, mcpHeaders = false): string | undefined {
  const m = typeof rpc?.method === 'string' ? rpc.method : undefined
  const isMcp =
    mcpHeaders || (m !== undefined && /^(initialize|ping|tools\/|resources\/|prompts\/|notifications\/|completion\/|logging\/|sampling\/|roots\/)/.test(m))
  if (!isMcp) return undefined
  if (m === 'tools/call') {
    const tool = (rpc?.params as { name?: unknown } | undefined)?.name
    return typeof tool === 'string' ? `mcp ${tool}` : 'mcp tools/call'
  }
  if (m) return `mcp ${m}`
  return method === 'GET' ? 'mcp stream' : method === 'DELETE' ? 'mcp close' : undefined
}

/**
 * The query parameters that count toward a key: every one but a secret (`?key=`, `?api_key=`, a token), whose
 * whole value the redactor replaced.
 * @note SPEC §3 ("URL without secret query params"), issue 24: a replay sends the placeholder key, whose redacted
 * form differs from the recorded key's, so a key in the query made every such request drift.
 */
function keptQuery(url: URL): Array<[string, string]> {
  return [...url.searchParams.entries()].filter(([, v]) => !WHOLE_PLACEHOLDER.test(v))
}
const WHOLE_PLACEHOLDER = /^\[REDACTED:[0-9a-f]{8}\]$/

function sortedQuery(query: Array<[string, string]>): string {
  const entries = query.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  if (entries.length === 0) return ''
  // @note URLSearchParams percent-encodes a placeholder (`%5BREDACTED%3A…%5D`), which the secret scan
  // then reads as a `?key=` credential and refuses to write: keep placeholders literal.
  return `?${new URLSearchParams(entries).toString().replace(/%5BREDACTED%3A([0-9a-f]{8})%5D/g, '[REDACTED:$1]')}`
}

function numberIds(value: unknown, seen: Map<string, string>, owner?: string): unknown {
  if (typeof value === 'string') {
    const m = familyTables.mintedId.exec(value)
    return m ? placeholder(value, m[1], seen) : value
  }
  if (Array.isArray(value)) return value.map((v) => numberIds(v, seen))
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value))
      out[k] =
        k === 'id' && typeof v === 'string' && owner !== undefined && familyTables.clientIdOwners.has(owner)
          ? placeholder(v, 'client_id', seen)
          : numberIds(v, seen, k)
    return out
  }
  return value
}

function placeholder(id: string, prefix: string, seen: Map<string, string>): string {
  let p = seen.get(id)
  if (!p) {
    const n = [...seen.values()].filter((v) => v.startsWith(`${prefix}_<`)).length + 1
    p = `${prefix}_<${n}>`
    seen.set(id, p)
  }
  return p
}

type PathPart = string | number | '*'

const DEFAULT_IGNORE_PARTS = DEFAULT_IGNORE_PATHS.map(parsePath)
const parsedPaths = new Map<string, PathPart[]>()
/** {@link parsePath}, remembered: the same `ignore` paths come with every request of a run. */
function parsedPath(path: string): PathPart[] {
  let parts = parsedPaths.get(path)
  if (!parts) {
    if (parsedPaths.size >= 256) parsedPaths.clear()
    parsedPaths.set(path, (parts = parsePath(path)))
  }
  return parts
}

/**
 * Parse `messages[*].content` / `metadata.user_id` / `$.a.b` into parts.
 * @example
 * parsePath('messages[2].content') // ['messages', 2, 'content']
 */
function parsePath(path: string): PathPart[] {
  const parts: PathPart[] = []
  const re = /([^.[\]]+)|\[(\*|\d+)\]/g
  for (const m of path.replace(/^\$\.?/, '').matchAll(re)) {
    if (m[1] !== undefined) parts.push(m[1])
    else parts.push(m[2] === '*' ? '*' : Number(m[2]))
  }
  return parts
}

function removePath(root: unknown, parts: PathPart[]): void {
  if (parts.length === 0 || root === null || typeof root !== 'object') return
  const [head, ...rest] = parts
  const targets: Array<[Record<string, unknown> | unknown[], string | number]> = []
  if (head === '*') {
    if (Array.isArray(root)) root.forEach((_, i) => targets.push([root, i]))
    else Object.keys(root).forEach((k) => targets.push([root as Record<string, unknown>, k]))
  } else targets.push([root as Record<string, unknown>, head])
  for (const [obj, k] of targets) {
    if (rest.length === 0) {
      if (Array.isArray(obj)) continue // @note removing array items would shift positions; only object keys are dropped
      delete (obj as Record<string, unknown>)[k as string]
    } else removePath((obj as Record<string | number, unknown>)[k], rest)
  }
}

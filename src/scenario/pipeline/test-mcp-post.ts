/**
 * TEST-ONLY: an MCP POST as the pipeline identifies it, for the unit tests of the MCP cancel (the unanswered-request
 * tests drive a recording run instead). No entry point imports this file, so it never ships in `dist/`.
 * @example
 * const call = mcpPost(1, { id: 0, method: 'tools/call', params: { name: 'mark_item' } }, { name: 'mcp mark_item' })
 */
import type { HttpToolRequest } from './call.js'

const MCP_URL = 'http://127.0.0.1:4010/mcp'

/** Request `seq` with JSON-RPC `body` (its `id` is the call's `rpcId`) on `session`, named `mcp <method>` unless `name`. */
export function mcpPost(
  seq: number,
  body: object,
  o: { session?: string; signal?: AbortSignal; headers?: Record<string, string>; name?: string } = {},
): Readonly<HttpToolRequest> {
  const text = JSON.stringify({ jsonrpc: '2.0', ...body })
  const headers = { 'mcp-session-id': o.session ?? 's1', ...o.headers }
  const request = new Request(MCP_URL, { method: 'POST', headers, body: text, signal: o.signal })
  const name = o.name ?? `mcp ${(body as { method: string }).method}`
  const rpcId = (body as { id?: number }).id
  return {
    channel: 'tool',
    kind: 'http',
    seq,
    n: seq,
    id: `tool#${seq}`,
    step: `tool#${seq} ${name}`,
    key: '',
    request,
    url: new URL(MCP_URL),
    bytes: Buffer.from(text),
    name,
    args: {},
    ...(rpcId !== undefined ? { rpcId } : {}),
  }
}

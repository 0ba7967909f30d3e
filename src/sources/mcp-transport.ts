/**
 * MCP over stdio (or any other MCP SDK `Transport`) on the tool channel. The wrapper turns each
 * JSON-RPC message the client sends into a request on the run's pipeline, named and keyed as MCP
 * over streamable HTTP is (`mcp get_weather`, the JSON-RPC id positional), and answered by the
 * server messages that message brought back, one NDJSON line each, as a recorded response. So a
 * recording stores `http`-kind cells at `stdio://<server>/`, and a replay serves them without
 * starting the server: the child process is spawned (the wrapped transport's `start()`) only when
 * a message really goes live. See docs/decisions/0008-mcp-stdio.md.
 */
import { basename } from 'node:path'
import { offTapeMessage, sentBy } from './live.js'
import type { Admit, Origin } from './source.js'

const MCP: Origin = { via: 'mcp' }
import { NDJSON, readLines } from '../providers/ndjson.js'

/**
 * What fluxlab needs of an MCP transport (the official SDK's `StdioClientTransport`, or any
 * `Transport`): structural, so fluxlab does not depend on the SDK.
 */
export interface McpTransport {
  start(): Promise<void>
  send(message: never, options?: never): Promise<void>
  close(): Promise<void>
}

export interface McpTransportOptions {
  /**
   * The server's name on the tape and in the trace (`stdio://<name>/`). Default: the command's
   * file name (`StdioClientTransport`'s `command`), else `server`. Its arguments are never stored.
   */
  name?: string
}

/** A JSON-RPC 2.0 message as the SDK hands it over. */
interface Message {
  id?: string | number
  method?: string
  [k: string]: unknown
}

/** The wrapped transport as fluxlab drives it. */
interface Inner {
  start(): Promise<void>
  send(message: Message, options?: unknown): Promise<void>
  close(): Promise<void>
  onmessage?: (message: Message, extra?: unknown) => void
  onclose?: () => void
  onerror?: (error: Error) => void
}

/** Answers one message's request: the run's response, or `undefined` when no run takes it (it goes out untouched). */

/** The server messages one client message brought back, while they come. */
interface Answers {
  /** The request's id (a request); a notification or a response has none. */
  id?: string | number
  /** The request's progress token (`params._meta.progressToken`), if it asked for progress. */
  token?: string | number
  /** The request was answered (or needs no answer): the stream ends when the next message is sent. */
  done: boolean
  controller: ReadableStreamDefaultController<Uint8Array>
  body: ReadableStream<Uint8Array>
  closed: boolean
}

const encoder = new TextEncoder()
const isRequest = (m: Message) => typeof m.method === 'string' && m.id !== undefined
const isResponse = (m: Message) => m.method === undefined && m.id !== undefined
const requestedToken = (m: Message) => (m.params as { _meta?: { progressToken?: string | number } } | undefined)?._meta?.progressToken

/**
 * Wrap an MCP transport so its messages go on the tape of the run that admits them (`admit`). The result is
 * the same transport to its client (its prototype is the original, so `pid` or `stderr` still read).
 * @example
 * const transport = wrapMcpTransport(new StdioClientTransport({ command: 'node', args: ['server.mjs'] }), admit)
 */
export function wrapMcpTransport<T extends McpTransport>(transport: T, admit: Admit, options: McpTransportOptions = {}): T {
  const inner = transport as unknown as Inner
  const url = new URL(`stdio://${hostLabel(options.name ?? serverName(transport))}/`)
  const wrapper = Object.create(transport) as Inner
  wrapper.onmessage = undefined
  wrapper.onclose = undefined
  wrapper.onerror = undefined

  let started: Promise<void> | undefined
  let closed = false
  let notified = false
  let liveError: unknown
  /** A message went out untouched (no run took it): server messages without a recorded answer are expected. */
  let untouched = false
  let warned = false
  const open = new Set<Answers>()
  let latest: Answers | undefined
  const readers = new Set<ReadableStreamDefaultReader<Uint8Array>>()

  const end = (a: Answers) => {
    if (a.closed) return
    a.closed = true
    open.delete(a)
    a.controller.close()
  }
  const notifyClose = () => {
    if (notified) return
    notified = true
    wrapper.onclose?.()
  }
  const start = () => (started ??= inner.start())

  // A server message joins the answers of the request it answers (by id) or reports progress on (by token), else of
  // the latest message sent.
  // @note issue 28: progress went to the latest message, so with parallel calls one call's cell held the others' progress.
  inner.onmessage = (m) => {
    const token = m.method === 'notifications/progress' ? (m.params as { progressToken?: unknown } | undefined)?.progressToken : undefined
    const owner = token === undefined ? undefined : [...open].find((a) => !a.done && a.token === token)
    const target = isResponse(m) ? [...open].find((a) => !a.done && a.id === m.id) : (owner ?? (latest && !latest.closed ? latest : undefined))
    if (!target) {
      // @note nothing was sent yet (or the message answers a request that went out untouched): it is on no tape. Said once.
      if (!untouched && !warned) {
        warned = true
        console.warn(
          `[fluxlab] MCP server ${url.host} sent ${m.method ?? `a response to ${String(m.id)}`} before the client sent anything: it reaches the client, but ` +
            `it is not recorded, so a replay will not send it.`,
        )
      }
      return wrapper.onmessage?.(m)
    }
    target.controller.enqueue(encoder.encode(`${JSON.stringify(m)}\n`))
    if (isResponse(m)) {
      target.done = true
      if (target !== latest) end(target)
    }
  }
  inner.onerror = (e) => wrapper.onerror?.(e)
  inner.onclose = () => {
    // @note the server went away by itself (it exited, its stdout closed): the messages still waiting for their
    // answers end with a transport error, so a replay closes the client at the same point instead of leaving it waiting.
    for (const a of [...open]) {
      if (closed || a.done) end(a)
      else {
        a.closed = true
        open.delete(a)
        a.controller.error(Object.assign(new Error(`MCP server ${url.host} closed its stdio before answering`), { name: 'McpServerClosed' }))
      }
    }
    notifyClose()
  }

  /** Send one message for real: the server starts on the first one. */
  const live = async (m: Message): Promise<Response> => {
    try {
      await start()
      if (latest?.done) end(latest)
      let controller!: ReadableStreamDefaultController<Uint8Array>
      const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) })
      const answers: Answers = { id: isRequest(m) ? m.id : undefined, token: requestedToken(m), done: !isRequest(m), controller, body, closed: false }
      open.add(answers)
      latest = answers
      await inner.send(m)
      return new Response(body, { status: 200, headers: { 'content-type': NDJSON } })
    } catch (e) {
      liveError = e
      throw e
    }
  }

  /** Hand the answer's messages to the client as they come. */
  const pump = async (body: ReadableStream<Uint8Array>) => {
    const reader = body.getReader()
    readers.add(reader)
    try {
      await readLines(reader, (line) => wrapper.onmessage?.(JSON.parse(line) as Message))
    } catch (e) {
      if (closed) return
      // The answer failed mid-stream (live, or as recorded): the server is gone, as it was when it was recorded.
      wrapper.onerror?.(e instanceof Error ? e : new Error(String(e)))
      notifyClose()
    } finally {
      readers.delete(reader)
    }
  }

  wrapper.start = async () => {
    // @note SPEC §3 / issue 16: the server is not started here: a replay answers from the tape and never spawns it.
  }
  wrapper.send = async (message, sendOptions) => {
    const m = message
    const request = sentBy(
      new Request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'mcp-protocol-version': 'stdio' }, body: JSON.stringify(m) }),
      () => live(m),
    )
    const response = await admit(request, MCP)?.answer()
    if (!response) {
      // No run takes it (outside every test and scenario): it goes out untouched, as HTTP does.
      untouched = true
      await start()
      if (latest?.done) end(latest)
      latest = undefined
      return inner.send(m, sendOptions)
    }
    if (response.headers.get('x-fluxlab') === 'off-tape') throw new Error(await offTapeMessage(response))
    if (response.type === 'error' || !response.body) {
      if (response.type === 'error')
        throw (
          liveError ?? new Error(`[fluxlab] Failed to send ${m.method ?? 'a response'} to MCP server ${url.host}: the recorded message failed on its transport`)
        )
      return
    }
    void pump(response.body)
  }
  wrapper.close = async () => {
    if (closed) return
    closed = true
    for (const a of [...open]) end(a)
    for (const r of readers) void r.cancel().catch(() => {})
    if (started)
      await started.then(
        () => inner.close(),
        () => {},
      )
    notifyClose()
  }
  return wrapper as unknown as T
}

/** Commands that run the server named by their first argument (`node server.mjs`, `npx -y @scope/server-x`). */
const RUNNERS = new Set(['node', 'npx', 'bun', 'bunx', 'deno', 'tsx', 'python', 'python3', 'uv', 'uvx', 'pnpm', 'yarn'])

/**
 * `StdioClientTransport` keeps its command in `_serverParams`: the server is named by its file name
 * (for a runner like `node` or `npx`, by the script or package it runs), never by the other arguments.
 */
function serverName(transport: object): string {
  const params = (transport as { _serverParams?: { command?: unknown; args?: unknown } })._serverParams
  if (typeof params?.command !== 'string' || !params.command) return 'server'
  const command = basename(params.command).replace(/\.(exe|cmd)$/i, '')
  const args = Array.isArray(params.args) ? params.args.filter((a): a is string => typeof a === 'string') : []
  const script = RUNNERS.has(command) ? args.find((a) => !a.startsWith('-') && a !== 'run' && a !== 'exec') : undefined
  return script ? basename(script).replace(/\.[cm]?[jt]s$|\.py$/, '') : command
}

/** A name usable as a URL host: lowercase letters, digits, dots and dashes. */
function hostLabel(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9.-]+/g, '-')
      .replace(/^[-.]+|[-.]+$/g, '') || 'server'
  )
}

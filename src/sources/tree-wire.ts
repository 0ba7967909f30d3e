/**
 * The wire of a process tree's one tape: a child process a test started sends each request it makes to the test's
 * process over a local socket (a Unix socket, a named pipe on Windows), one connection a request, and gets the
 * answer back chunk by chunk. Both ways are frames (`./frames.ts`): the request is a `head` (`TreeRequest`), its body
 * as `data`, then `end`; the answer is a `head`, `data`…, `end` (or `error`), or one `pass`: not the tape's. When the
 * tape goes live for it, a `live` comes first: the child sends the request itself and streams what came back to the
 * tape the same way (`./tree-live.ts`), then reads the tape's answer.
 * @note a raw socket, not `node:http`: the child's own `node:http` is intercepted, and the parent's may be too.
 */
import { connect, createServer, type Server, type Socket } from 'node:net'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { encodeFrame, FRAME, socketFrames } from './frames.js'
import { failedAs } from './refused-network.js'
import { askChild, endToEnd, relayLive, streamedAnswer, wireFailure, wireJson as json, type LiveSender, type WireHead } from './tree-live.js'

/** The head of one forwarded request. */
interface TreeRequest {
  /** Which child sent it (`FLUX_TREE_TOKEN`): the parent knows the run and the command line by it. */
  token: string
  method: string
  url: string
  headers: Array<[string, string]>
}

/** A request the child refused before it could forward it (a model call fluxlab cannot route): the run fails with it. */
interface TreeReport {
  token: string
  report: { message: string; code?: string }
}

/** A process of the tree loaded the preload: the run that started it knows its requests can reach it. */
interface TreeHello {
  token: string
  hello: true
  /** Said again when a server of the process starts listening (under `fluxlab serve`: its `--ready` check runs then). */
  listening?: true
}

/**
 * A fresh socket path for a tree: in `dir` (Unix), or a named pipe (Windows).
 * @example
 * treeSocketPath(tmpdir(), 'fluxlab-123-ab12cd34') // '/tmp/fluxlab-123-ab12cd34.sock'
 */
export const treeSocketPath = (dir: string, id: string): string => (process.platform === 'win32' ? `\\\\.\\pipe\\${id}` : join(dir, `${id}.sock`))

/**
 * A file of the build (`preload.js`, `holder.js`): next to this module in `dist/`, or the built one when fluxlab runs
 * from its sources.
 * @example
 * builtFile('preload.js')?.href // 'file:///…/node_modules/fluxlab/dist/preload.js'
 */
export function builtFile(name: string): URL | undefined {
  for (const rel of [`./${name}`, `../../dist/${name}`]) {
    const url = new URL(rel, import.meta.url)
    if (existsSync(fileURLToPath(url))) return url
  }
  return undefined
}

/**
 * A connection to `path`; a process that started this one a moment ago may still be opening it, so a missing or
 * refusing socket is tried again for a while (about a second in all).
 */
async function connected(path: string, tries = 20): Promise<Socket> {
  for (let i = 1; ; i++) {
    try {
      return await new Promise<Socket>((resolve, reject) => {
        const socket = connect(path)
        socket.once('connect', () => resolve(socket))
        socket.once('error', reject)
      })
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (i >= tries || (code !== 'ENOENT' && code !== 'ECONNREFUSED')) throw e
      await sleep(50)
    }
  }
}

/**
 * Send one request to the process that holds the tape, at `path`, and return its answer as it streams: a Response,
 * or `undefined` when the parent says it is not the tape's (the child sends it as it would without fluxlab).
 * When the tape goes live for it, `live(url, body)` sends it from this process (issue 39: to `url`, where the tape's
 * `upstream` put it), and what came back streams to the tape, which answers with what it recorded; a send that
 * failed answers with the very error `live` threw. Rejects when the parent cannot be reached.
 * @example
 * const response = await forwardOverSocket(process.env.FLUX_TREE, process.env.FLUX_TREE_TOKEN, request, sendHere)
 */
export async function forwardOverSocket(
  path: string,
  token: string,
  request: Request,
  live?: (url: string, body: Uint8Array | undefined) => Promise<Response>,
): Promise<Response | undefined> {
  // @note read from a copy: on `pass` the child sends the request itself (a server of its own tree, issue 38), and a
  // request whose body was read cannot be sent ("TypeError: unusable").
  const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : new Uint8Array(await request.clone().arrayBuffer())
  const socket = await connected(path)
  const next = socketFrames(socket)
  const head: TreeRequest = { token, method: request.method, url: request.url, headers: [...request.headers] }
  socket.write(encodeFrame(FRAME.head, JSON.stringify(head)))
  if (body?.byteLength) socket.write(encodeFrame(FRAME.data, body))
  socket.write(encodeFrame(FRAME.end))
  let first = await next()
  let sent: Promise<{ error: unknown } | undefined> | undefined
  if (first?.type === FRAME.live) {
    const { url } = json<{ url: string }>(first)
    sent = relayLive(socket, () => (live ? live(url, body) : Promise.reject(new Error('this process cannot send requests itself'))))
    first = await next()
  }
  if (!first) throw new Error('the process holding the tape closed the connection before it answered')
  if (first.type === FRAME.pass) return (socket.end(), undefined)
  if (first.type === FRAME.error) throw wireFailure(first).cause as Error
  if (first.type !== FRAME.head) throw new Error(`the process holding the tape answered frame type ${first.type} before the head`)
  const meta = json<WireHead>(first)
  if (meta.status === 0) {
    socket.end()
    const failed = await sent
    return failed ? failedAs(failed.error) : Response.error()
  }
  return streamedAnswer(meta, next, (ok) => void (ok ? socket.end() : socket.destroy()))
}

/**
 * Tell the process that holds the tape about a request this child refused (`FLUX_UNROUTABLE`): its run fails with it,
 * as it would for the same request in its own process. Never throws; the child's own stderr has it already.
 * @example
 * void reportOverSocket(path, token, error)
 */
export async function reportOverSocket(path: string, token: string, error: Error & { code?: string }): Promise<void> {
  try {
    const socket = await connected(path)
    const head: TreeReport = { token, report: { message: error.message, ...(error.code ? { code: error.code } : {}) } }
    socket.end(Buffer.concat([encodeFrame(FRAME.head, JSON.stringify(head)), encodeFrame(FRAME.end)]))
  } catch {
    // the parent is gone: nothing to tell
  }
}

/**
 * Say to the process that holds the tape that this process loaded the preload (at its start): a child that exits
 * without a word from any process of its tree never reached the run, and its run warns. Never throws; tried a few
 * times only, so a process whose parent is gone is not held back.
 * @example
 * void helloOverSocket(path, token)
 */
export async function helloOverSocket(path: string, token: string, o: { listening?: boolean } = {}): Promise<void> {
  try {
    const socket = await connected(path, 3)
    const head: TreeHello = { token, hello: true, ...(o.listening ? { listening: true } : {}) }
    socket.end(Buffer.concat([encodeFrame(FRAME.head, JSON.stringify(head)), encodeFrame(FRAME.end)]))
  } catch {
    // the parent is gone: nothing to tell
  }
}

/** What a server of the tree hears besides requests. */
interface Heard {
  /** What a child refused. */
  report?(r: TreeReport): void
  /** Any word from a process with `token`: a hello, a report or a request. */
  contact?(token: string): void
  /** A server of a process of the tree started listening. */
  listening?(): void
}

/**
 * Answers one request of a child (`undefined`: not the tape's, the child sends it itself); `live` asks the child to send
 * it itself and gives back what came back (issue 39), for when the tape goes live for it.
 */
type Answer = (head: TreeRequest, request: Request, live: LiveSender) => Promise<Response | undefined>

/**
 * Listen at `path` for the requests of child processes, and answer each with `answer`; `heard` takes the rest. The server does not keep the process alive.
 * @example
 * const server = await serveOverSocket(path, (head, request) => route(head.token)?.handle(request))
 */
export function serveOverSocket(path: string, answer: Answer, heard: Heard = {}): Server {
  const server = createServer((socket) => void serve(socket, answer, heard))
  server.listen(path)
  server.unref()
  return server
}

async function serve(socket: Socket, answer: Answer, heard: Heard): Promise<void> {
  socket.on('error', () => {})
  const next = socketFrames(socket)
  const send = (type: (typeof FRAME)[keyof typeof FRAME], payload?: Uint8Array | string) => !socket.destroyed && socket.write(encodeFrame(type, payload))
  try {
    const first = await next()
    if (first?.type !== FRAME.head) return void socket.destroy()
    const said = json<TreeRequest | TreeReport | TreeHello>(first)
    heard.contact?.(said.token)
    if ('hello' in said) return void (said.listening && heard.listening?.(), socket.end())
    if ('report' in said) return void (heard.report?.(said), socket.end())
    const head = said
    const chunks: Uint8Array[] = []
    for (let f = await next(); f && f.type !== FRAME.end; f = await next()) if (f.type === FRAME.data) chunks.push(f.payload)
    const body = head.method === 'GET' || head.method === 'HEAD' ? undefined : Buffer.concat(chunks)
    // @note issue 39: the child's client gave up (its connection closed before the answer ended): the request is aborted
    // here too, so a live call the child was sending is on the tape as the client's abort, as in the child's own process.
    const gone = new AbortController()
    let over = false
    const finish = (frame: Buffer) => void ((over = true), socket.end(frame))
    const giveUp = () => over || gone.abort()
    socket.once('end', giveUp).once('close', giveUp)
    const request = new Request(head.url, { method: head.method, headers: endToEnd(head.headers), body, signal: gone.signal })
    const response = await answer(head, request, askChild(socket, next))
    if (!response) return finish(encodeFrame(FRAME.pass))
    send(
      FRAME.head,
      JSON.stringify({ status: response.type === 'error' ? 0 : response.status, statusText: response.statusText, headers: [...response.headers] }),
    )
    if (response.body) {
      const reader = response.body.getReader()
      socket.on('close', () => void reader.cancel().catch(() => {}))
      try {
        for (;;) {
          const { done, value } = await reader.read()
          if (done) break
          if (value?.byteLength) send(FRAME.data, value)
        }
      } catch (e) {
        const err = e as Error & { cause?: { message?: string; code?: string } }
        return finish(encodeFrame(FRAME.error, JSON.stringify({ message: err.cause?.message ?? err.message, code: err.cause?.code })))
      }
    }
    finish(encodeFrame(FRAME.end))
  } catch (e) {
    if (!socket.destroyed) socket.end(encodeFrame(FRAME.error, JSON.stringify({ message: String((e as Error)?.message ?? e) })))
  }
}

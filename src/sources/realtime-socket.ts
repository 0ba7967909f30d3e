/**
 * A realtime WebSocket (OpenAI Realtime, Gemini Live) on the model channel. Each frame the client sends is a
 * request on the run's pipeline (`POST wss://…/v1/realtime?model=…`, its body the frame), and its
 * answer is every server frame that arrived after it and before the client's next frame, one line
 * each, as a timed chunk. Opening the socket is the first request (`{"type":"websocket.open"}`),
 * answered by the frames the server sent before the client sent any (`session.created`). So a
 * recording stores ordinary model cells, and a replay hands the client the recorded server frames
 * after the frame that caused them, with no connection opened. See docs/realtime.md.
 */
import { NDJSON, readLines } from '../providers/ndjson.js'
import { OPEN_FRAME } from '../providers/socket.js'
import { offTapeMessage, sentBy, upstreamed } from './live.js'
import type { RealSocket, SocketConnection } from './source.js'

type Route = (request: Request) => Promise<Response | undefined>
/** The model a frame names, read by the family's codec (`setup.model`, the URL's `model`). */
type ModelOf = (frame: unknown) => string | undefined

const MODELS_KEY = Symbol.for('fluxlab.socket-models.v1')
const models: WeakMap<Request, string> =
  ((globalThis as Record<symbol, unknown>)[MODELS_KEY] as WeakMap<Request, string> | undefined) ??
  (((globalThis as Record<symbol, unknown>)[MODELS_KEY] = new WeakMap<Request, string>()) as WeakMap<Request, string>)

/**
 * The model of the realtime session a frame's request belongs to, as named by an earlier frame
 * (Gemini Live names it only in `setup`): what a recorded cell says when its own frame names none.
 * @example
 * const model = codec.parseRequest(body, url).model ?? socketModel(request)
 */
export function socketModel(request: Request): string | undefined {
  return models.get(request)
}

/** The server frames one client frame brought back, while they come (recording). */
interface Answers {
  controller: ReadableStreamDefaultController<Uint8Array>
  closed: boolean
}

const encoder = new TextEncoder()

/**
 * Subprotocols that carry a credential (`openai-insecure-api-key.<key>`, the way a browser-style
 * `WebSocket` authenticates to OpenAI): sent live, never put on the request the tape sees.
 */
const CREDENTIAL_PROTOCOL = /(^|[-.])(api-?key|key|token|auth|bearer)([-.]|$)/i

/**
 * Put one intercepted realtime socket on the tape of `route`: record its frames (the real server is
 * reached at its host's upstream when one is set) or replay them. `replayKey`: the placeholder key a replay filled,
 * when a subprotocol carries one (`replayKeyFor` its variable, or `REPLAY_KEY`).
 * @example
 * routeSocket(connection, (request) => run.handle(request), (frame) => codec.parseRequest(frame, connection.url).model)
 */
export function routeSocket(connection: SocketConnection, route: Route, modelOf: ModelOf, replayKey?: string): void {
  const { url } = connection
  let model: string | undefined
  const recorded = connection.protocols.filter((p) => !CREDENTIAL_PROTOCOL.test(p))
  let real: RealSocket | undefined
  let latest: Answers | undefined
  let closed = false
  /** Frames go to the pipeline one at a time, in the order the client sent them. */
  let queue: Promise<unknown> = Promise.resolve()
  /** Answers reach the client one after another, in the order of the frames that caused them. */
  let delivered: Promise<unknown> = Promise.resolve()

  const end = () => {
    if (!latest || latest.closed) return
    latest.closed = true
    latest.controller.close()
  }
  const answers = (): Response => {
    end()
    let controller!: ReadableStreamDefaultController<Uint8Array>
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) })
    latest = { controller, closed: false }
    return new Response(body, { status: 200, headers: { 'content-type': NDJSON } })
  }

  /** Opening the socket for real: the server's first frames answer it. */
  const open = async (upstream: Record<string, URL>): Promise<Response> => {
    real = connection.openReal(upstreamUrl(url, upstream), connection.protocols)
    real.onMessage((data) => {
      if (latest && !latest.closed) latest.controller.enqueue(encoder.encode(`${oneLine(data)}\n`))
    })
    real.onClose((code, reason) => {
      end()
      if (!closed) connection.close(code === 1005 || code === 1006 ? 1000 : code, reason)
    })
    const response = answers()
    await real.opened
    return response
  }
  const sendFrame = async (data: string): Promise<Response> => {
    if (!real) throw new Error(`the realtime socket to ${url.host} is not open`)
    await real.opened
    const response = answers()
    real.send(data)
    return response
  }

  const request = (body: string, send: (upstream: Record<string, URL>) => Promise<Response>): Request => {
    // @note the key travels in a subprotocol that is kept out of the request (and so the fixture): when it is the
    // placeholder a replay fills, a header carrying it lets recording refuse the socket with FLUX_NO_KEY.
    const headers = {
      'content-type': 'application/json',
      ...(recorded.length ? { 'sec-websocket-protocol': recorded.join(', ') } : {}),
      ...(replayKey !== undefined ? { 'x-fluxlab-key': replayKey } : {}),
    }
    const req = sentBy(new Request(url.href, { method: 'POST', headers, body }), send)
    model = modelOf(safeParse(body)) ?? model
    if (model) models.set(req, model)
    return req
  }

  const submit = (req: Request) => {
    const answered = queue.then(() => route(req))
    queue = answered.catch(() => {})
    delivered = Promise.all([delivered, answered]).then(
      ([, response]) => deliver(response),
      (e: unknown) => fail(e),
    )
  }

  /** Hand one answer's frames to the client as they come. */
  const deliver = async (response: Response | undefined): Promise<void> => {
    if (closed) return
    if (!response || response.type === 'error' || !response.body) return fail(new Error(`the realtime server at ${url.host} could not be reached`))
    if (response.headers.get('x-fluxlab') === 'off-tape') return fail(new Error(await offTapeMessage(response)))
    try {
      await readLines(response.body.getReader(), (line) => {
        if (!closed) connection.send(line)
      })
    } catch (e) {
      fail(e)
    }
  }
  /** What fluxlab cannot answer closes the socket as a server error (1011); the run fails with the reason. */
  const fail = (e: unknown) => {
    if (closed) return
    closed = true
    const reason = e instanceof Error ? e.message : String(e)
    connection.close(1011, truncateReason(reason))
  }

  submit(request(JSON.stringify(OPEN_FRAME), open))
  connection.onFrame((data) => submit(request(data, () => sendFrame(data))))
  connection.onClose(() => {
    closed = true
    end()
    real?.close()
  })
}

/** The URL a recording connects to: the same path and query at the host's upstream (`http` → `ws`, `https` → `wss`). */
function upstreamUrl(url: URL, upstream: Record<string, URL>): URL {
  const target = upstreamed(url, upstream)
  if (!target) return url
  target.protocol = target.protocol === 'https:' || target.protocol === 'wss:' ? 'wss:' : 'ws:'
  return target
}

/** A server frame as one NDJSON line: a JSON frame with line breaks in it is written compact. */
function oneLine(data: string): string {
  if (!data.includes('\n')) return data
  try {
    return JSON.stringify(JSON.parse(data))
  } catch {
    return data.replace(/\r?\n/g, ' ')
  }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** A close reason is at most 123 bytes. */
function truncateReason(reason: string): string {
  const bytes = encoder.encode(reason)
  return bytes.length <= 123 ? reason : `${new TextDecoder().decode(bytes.slice(0, 120))}...`
}

/**
 * The provider the end-to-end fixture projects talk to, run by the parent test on 127.0.0.1:
 * - `POST /v1/chat/completions` streams real recorded OpenAI traffic
 *   (openai-chat/test_run_stream_sync_streams_real_model.yaml): turn 1 asks for `get_capital`,
 *   turn 2 (the request carries the tool result) answers. The country is taken from the prompt
 *   and swapped into the recorded bytes, so concurrent tests with different prompts get different answers.
 * - `GET /geo/capital?country=UK` is the agent's tool: a non-model host, on fluxlab's tool channel.
 * Every request is logged; `rendezvous` holds first-turn model requests until that many are waiting,
 * which only happens when the runner really records them at the same time.
 */
import { createServer, type ServerResponse } from 'node:http'
import { createServer as createNetServer, type AddressInfo } from 'node:net'
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises'
import { loadExchanges, splitBody, type Exchange } from '../../support/index.js'

export const CAPITALS: Record<string, string> = { UK: 'London', France: 'Paris', Japan: 'Tokyo', Italy: 'Rome', Spain: 'Madrid', Germany: 'Berlin' }

const [TOOL_TURN, ANSWER_TURN] = loadExchanges('openai-chat/test_run_stream_sync_streams_real_model.yaml')

/** The recorded bytes, with the country (and its capital) of the prompt swapped in. */
function forCountry(ex: Exchange, country: string): Exchange {
  const swaps: Array<[string, string]> = [
    ['"arguments":"UK"', `"arguments":"${country}"`],
    ['"content":" UK"', `"content":" ${country}"`],
    ['"content":" London"', `"content":" ${CAPITALS[country]}"`],
  ]
  let body = ex.body
  for (const [from, to] of swaps) body = body.split(from).join(to)
  return { ...ex, body }
}
if (!TOOL_TURN.body.includes('"arguments":"UK"') || !ANSWER_TURN.body.includes('"content":" London"'))
  throw new Error('capital-server: the recorded traffic no longer has the bytes it swaps')

export interface LoggedRequest {
  kind: 'model' | 'tool'
  method: string
  path: string
  country?: string
  /** Model turn: 1 = asks for the tool, 2 = answers with the tool result. */
  turn?: 1 | 2
  /** `x-stainless-retry-count` of model requests. */
  retry?: string
}

export interface CapitalServer {
  readonly url: string
  readonly requests: LoggedRequest[]
  readonly hits: number
  /** True once `rendezvous` first-turn requests were waiting together. */
  readonly rendezvousMet: boolean
  close(): Promise<void>
}

export interface CapitalServerOptions {
  /** Hold first-turn model requests until this many wait at once (released anyway after `rendezvousTimeoutMs`). */
  rendezvous?: number
  rendezvousTimeoutMs?: number
  /** Only first-turn requests for these countries take part in the rendezvous (default: every one). */
  rendezvousCountries?: string[]
  /** Milliseconds between the events of a streamed answer (default: one event a turn of the event loop). */
  paceMs?: number
}

/**
 * Start the provider on an ephemeral port.
 * @example
 * const server = await startCapitalServer()
 * await runVitest(project, ['capital.test.ts'], { PROVIDER_URL: server.url })
 */
export async function startCapitalServer(opts: CapitalServerOptions = {}): Promise<CapitalServer> {
  const requests: LoggedRequest[] = []
  const waiting: Array<() => void> = []
  let rendezvousMet = false

  const rendezvous = (): Promise<void> =>
    new Promise((resolve) => {
      waiting.push(resolve)
      if (waiting.length >= (opts.rendezvous ?? 0)) {
        rendezvousMet = true
        for (const release of waiting.splice(0)) release()
      } else setTimeout(resolve, opts.rendezvousTimeoutMs ?? 8_000).unref()
    })

  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://local')
      const body = Buffer.concat(chunks).toString('utf8')
      if (req.method === 'GET' && url.pathname === '/geo/capital') {
        const country = url.searchParams.get('country') ?? ''
        requests.push({ kind: 'tool', method: 'GET', path: req.url ?? '', country })
        const capital = CAPITALS[country]
        return json(res, capital ? 200 : 404, capital ? { country, capital } : { error: `unknown country ${country}` })
      }
      if (req.method === 'POST' && url.pathname === '/v1/chat/completions') {
        const parsed = JSON.parse(body) as { messages: Array<{ role: string; content: unknown }> }
        const prompt = String(parsed.messages.find((m) => m.role === 'user')?.content ?? '')
        const country = /capital of (?:the )?(\w+)/.exec(prompt)?.[1] ?? ''
        const turn = parsed.messages.some((m) => m.role === 'tool') ? 2 : 1
        const retry = String(req.headers['x-stainless-retry-count'] ?? '')
        requests.push({ kind: 'model', method: 'POST', path: req.url ?? '', country, turn, retry })
        // An unknown request is answered with a non-retryable 400 so a wrong test fails fast, not after SDK backoff.
        if (!CAPITALS[country] || parsed.messages.length > 3)
          return json(res, 400, { error: { message: `capital-server: no recorded turn for ${JSON.stringify(prompt)} (${parsed.messages.length} messages)` } })
        const ex = forCountry(turn === 1 ? TOOL_TURN : ANSWER_TURN, country)
        const meets = turn === 1 && opts.rendezvous && (!opts.rendezvousCountries || opts.rendezvousCountries.includes(country))
        void (meets ? rendezvous() : Promise.resolve()).then(() => stream(res, ex, opts.paceMs))
        return
      }
      json(res, 404, { error: { message: `capital-server: nothing at ${req.method} ${req.url}` } })
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get hits() {
      return requests.length
    },
    get rendezvousMet() {
      return rendezvousMet
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/** A URL where nothing listens: a server that was started, then closed. */
export async function downProviderUrl(): Promise<string> {
  const s = await startCapitalServer()
  await s.close()
  return s.url
}

export interface Tripwire {
  /** TCP connections anything made to the address since the tripwire was set. */
  readonly connections: number
  close(): Promise<void>
}

/**
 * Listen where a closed provider was (`url`) and count every connection made to it, closing each at once: the
 * provider stays down (a request fails as it would with nothing there), and a request that tried to reach it is seen.
 * @example
 * await server.close()
 * const wire = await tripwire(server.url)
 * // … replay …
 * expect(wire.connections).toBe(0)
 */
export async function tripwire(url: string): Promise<Tripwire> {
  const { hostname, port } = new URL(url)
  let connections = 0
  const server = createNetServer((socket) => {
    connections++
    socket.destroy()
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(Number(port), hostname, () => resolve())
  })
  return {
    get connections() {
      return connections
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'x-should-retry': 'false', 'content-length': Buffer.byteLength(text) }).end(text)
}

async function stream(res: ServerResponse, ex: Exchange, paceMs?: number): Promise<void> {
  res.writeHead(ex.status, { ...ex.headers, 'x-request-id': `req_${Math.random().toString(16).slice(2)}`, date: new Date().toUTCString() })
  res.flushHeaders()
  for (const piece of splitBody(ex.body, 'events')) {
    if (res.destroyed) return
    res.write(piece)
    await (paceMs ? sleep(paceMs) : nextTurn())
  }
  res.end()
}

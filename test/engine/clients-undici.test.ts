/**
 * The npm `undici` package called directly (`request`, `fetch`, `stream`, a custom `Agent`), which
 * msw never sees: recorded against the local provider server, replayed with the server closed
 * and the key unset, with the same bytes and chunk boundaries. A WebSocket to a provider host,
 * which fluxlab cannot route, fails the run instead of going live.
 */
import { createHash } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { Writable, type Duplex } from 'node:stream'
import { scenario, type Lab, type Outcome, type ScenarioOptions } from 'fluxlab'
import { matchers } from 'fluxlab/matchers'
import { Agent, fetch as undiciFetch, ProxyAgent, request, stream, WebSocket } from 'undici'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { loadExchanges, type ProviderServer } from '../support/index.js'
import { readJsonl, serve, tempDir, track, useEngineSandbox } from './helpers.js'

useEngineSandbox()
expect.extend(matchers)

/** Captured before any interception exists, as a client built at module top level captures it. */
const earlyFetch = globalThis.fetch

const KEY = 'sk-undici-test-0123456789abcdef'
const savedKey = process.env.OPENAI_API_KEY
beforeEach(() => {
  delete process.env.OPENAI_API_KEY
})
afterEach(() => {
  if (savedKey === undefined) delete process.env.OPENAI_API_KEY
  else process.env.OPENAI_API_KEY = savedKey
})

const SSE = 'openai-chat/openai-text.chunks.txt'
const JSON_FILE = 'openai-chat/openai-text.json'
const [sse] = loadExchanges(SSE)
const [json] = loadExchanges(JSON_FILE)

interface Got {
  status: number
  type: string | undefined
  chunks: Buffer[]
  text: string
}

const got = (status: number, type: string | undefined, chunks: Buffer[]): Got => ({ status, type, chunks, text: Buffer.concat(chunks).toString('utf8') })

const headers = () => ({ 'content-type': 'application/json', authorization: `Bearer ${process.env.OPENAI_API_KEY}` })
const body = (stream: boolean) => JSON.stringify({ model: 'gpt-4.1-nano', stream, messages: [{ role: 'user', content: 'Invent a holiday' }] })

async function viaRequest(url: string, streaming: boolean, dispatcher?: Agent | ProxyAgent): Promise<Got> {
  const res = await request(url, { method: 'POST', headers: headers(), body: body(streaming), ...(dispatcher ? { dispatcher } : {}) })
  // @note 'data' events, not async iteration: a Readable's iterator joins whatever is buffered.
  const chunks: Buffer[] = []
  await new Promise<void>((resolve, reject) => {
    res.body.on('data', (c: Buffer) => chunks.push(Buffer.from(c)))
    res.body.on('end', resolve)
    res.body.on('error', reject)
  })
  return got(res.statusCode, res.headers['content-type'] as string | undefined, chunks)
}

async function viaFetch(fetchFn: typeof undiciFetch | typeof fetch, url: string, streaming: boolean, dispatcher?: Agent | ProxyAgent): Promise<Got> {
  const init = { method: 'POST', headers: headers(), body: body(streaming), ...(dispatcher ? { dispatcher } : {}) }
  const res = await (fetchFn as typeof undiciFetch)(url, init)
  const chunks: Buffer[] = []
  const reader = res.body!.getReader()
  for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(Buffer.from(r.value))
  return got(res.status, res.headers.get('content-type') ?? undefined, chunks)
}

async function viaStream(url: string): Promise<Got> {
  const chunks: Buffer[] = []
  let status = 0
  let type: string | undefined
  await stream(url, { method: 'POST', headers: headers(), body: body(true) }, (data) => {
    status = data.statusCode
    type = data.headers['content-type'] as string | undefined
    return new Writable({
      write(c: Buffer, _enc, done) {
        chunks.push(Buffer.from(c))
        done()
      },
    })
  })
  return got(status, type, chunks)
}

/** Record with a key against the live server; close it; replay with the key unset. */
async function recordThenReplay<R>(name: string, server: ProviderServer, agent: (lab: Lab) => Promise<R>, options: ScenarioOptions = {}) {
  const dir = tempDir()
  process.env.OPENAI_API_KEY = KEY
  const first = await scenario(name, { ...options, dir })
  expect(first.mode).toBe('record')
  const recorded = await first.run(agent)
  const recordHits = server.hits
  delete process.env.OPENAI_API_KEY
  await server.close()
  const second = await scenario(name, { ...options, dir })
  expect(second.mode).toBe('replay')
  const replayed = await second.run(agent)
  return { recorded, replayed, recordHits, replayHits: server.hits - recordHits, cells: readJsonl(`${dir}/${name}/model.jsonl`) }
}

/** The model cells hold the calls; the replay reached nothing and gave the client the recorded bytes, cut the same way. */
function expectRecordedAndReplayed(
  rr: { recorded: Outcome<Got[]>; replayed: Outcome<Got[]>; recordHits: number; replayHits: number; cells: Array<Record<string, any>> },
  bodies: string[],
): void {
  expect(rr.recordHits).toBe(bodies.length)
  expect(rr.cells.map((c) => [c.family, c.url])).toEqual(bodies.map(() => ['openai-chat', expect.stringMatching(/\/v1\/chat\/completions$/)]))
  expect(JSON.stringify(rr.cells)).not.toContain(KEY)
  expect(rr.recorded.modelCalls).toHaveLength(bodies.length)
  expect(rr.replayHits).toBe(0)
  expect(rr.replayed.hermetic).toBe(true)
  expect(rr.replayed).toReplayFaithfully()
  expect(rr.recorded.result.map((g) => g.text)).toEqual(bodies)
  expect(rr.replayed.result.map((g) => g.text)).toEqual(bodies)
  console.log(
    JSON.stringify(rr.recorded.result.map((g) => g.chunks.map((c) => c.length))),
    JSON.stringify(rr.replayed.result.map((g) => g.chunks.map((c) => c.length))),
    JSON.stringify(rr.cells.map((c) => c.response.chunks.map((x: any) => Buffer.byteLength(x.text ?? '')))),
  )
  expect(rr.replayed.result.map((g) => g.chunks.map((c) => c.length))).toEqual(rr.recorded.result.map((g) => g.chunks.map((c) => c.length)))
  expect(rr.replayed.result.map((g) => [g.status, g.type])).toEqual(rr.recorded.result.map((g) => [g.status, g.type]))
}

describe('undici through the global dispatcher', () => {
  test('request() records a JSON completion and an SSE stream, and replays both byte-exact', async () => {
    const server = await serve([json, sse])
    const url = `${server.url}${json.path}`
    const rr = await recordThenReplay('undici-request', server, async () => [await viaRequest(url, false), await viaRequest(url, true)])
    expectRecordedAndReplayed(rr, [json.body, sse.body])
    expect(rr.replayed.result[1].chunks.length).toBeGreaterThan(5)
    expect(rr.replayed.modelCalls[0].text).toContain('Galaxy Day')
  })

  test('fetch() streams SSE chunk by chunk in both runs', async () => {
    const server = await serve([sse])
    const rr = await recordThenReplay('undici-fetch', server, async () => [await viaFetch(undiciFetch, `${server.url}${sse.path}`, true)])
    expectRecordedAndReplayed(rr, [sse.body])
    expect(rr.replayed.result[0].chunks.length).toBeGreaterThan(5)
  })

  test('stream() records and replays an SSE body', async () => {
    const server = await serve([sse])
    const rr = await recordThenReplay('undici-stream', server, async () => [await viaStream(`${server.url}${sse.path}`)])
    expectRecordedAndReplayed(rr, [sse.body])
  })

  test('a fetch captured before interception started (a client built at module top level) is routed too', async () => {
    // Captured at module load, before any interception: Node's own fetch, not the interceptor's `fetchProxy`.
    expect(earlyFetch.name).toBe('fetch')
    const server = await serve([sse])
    const rr = await recordThenReplay('early-fetch', server, async () => [await viaFetch(earlyFetch, `${server.url}${sse.path}`, true)])
    expectRecordedAndReplayed(rr, [sse.body])
  })
})

describe('undici with a dispatcher of its own', () => {
  test('request() and fetch() through new Agent() are recorded and replayed without reaching the network', async () => {
    const server = await serve([json, sse])
    const url = `${server.url}${json.path}`
    const agents: Agent[] = []
    const rr = await recordThenReplay('undici-agent', server, async () => {
      const agent = new Agent()
      agents.push(agent)
      try {
        return [await viaRequest(url, false, agent), await viaFetch(undiciFetch, url, true, agent)]
      } finally {
        await agent.close()
      }
    })
    expectRecordedAndReplayed(rr, [json.body, sse.body])
    expect(agents).toHaveLength(2)
  })
})

/** An HTTP proxy on 127.0.0.1 that tunnels CONNECT requests and counts every connection made to it. */
async function startProxy(): Promise<{ url: string; connections: number; tunnels: string[] }> {
  const state = { url: '', connections: 0, tunnels: [] as string[] }
  const sockets: Duplex[] = []
  const server: Server = createServer((_req, res) => res.writeHead(405).end())
  server.on('connection', (socket) => {
    state.connections++
    sockets.push(socket)
  })
  server.on('connect', (req, client: Duplex) => {
    state.tunnels.push(req.url ?? '')
    const [host, port] = (req.url ?? '').split(':')
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      upstream.pipe(client).pipe(upstream)
    })
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'))
    sockets.push(upstream)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  track({
    close: () =>
      new Promise<void>((r) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => r())
      }),
  })
  return state
}

describe('undici through a ProxyAgent', () => {
  test('a call through a ProxyAgent is recorded and replayed, and neither run opens the proxy', async () => {
    const server = await serve([sse])
    const proxy = await startProxy()
    const url = `${server.url}${sse.path}`
    // the proxy works: without fluxlab the call goes through it
    const direct = new ProxyAgent(proxy.url)
    await viaFetch(undiciFetch, url, true, direct).catch(() => undefined)
    await direct.close()
    expect(proxy.tunnels).toEqual([server.url.replace('http://', '')])
    server.queue(sse)
    const before = proxy.connections
    const rr = await recordThenReplay('undici-proxy-agent', server, async () => {
      const dispatcher = new ProxyAgent(proxy.url)
      try {
        return [await viaRequest(url, true, dispatcher)]
      } finally {
        await dispatcher.close()
      }
    })
    expectRecordedAndReplayed({ ...rr, recordHits: rr.recordHits - 1 }, [sse.body])
    expect(proxy.connections).toBe(before)
  })
})

/** A WebSocket server on 127.0.0.1 that greets every client with one text message. */
async function startSocketServer(): Promise<{ url: string; host: string; upgrades: number }> {
  const state = { url: '', host: '', upgrades: 0 }
  const server: Server = createServer((_req, res) => res.writeHead(426).end())
  const sockets: Duplex[] = []
  server.on('upgrade', (req, socket: Duplex) => {
    state.upgrades++
    sockets.push(socket)
    const accept = createHash('sha1').update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64')
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-accept: ${accept}\r\n\r\n`)
    socket.write(Buffer.concat([Buffer.from([0x81, 5]), Buffer.from('hello')]))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const { port } = server.address() as AddressInfo
  state.host = `127.0.0.1:${port}`
  state.url = `ws://${state.host}`
  track({
    close: () =>
      new Promise<void>((r) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => r())
      }),
  })
  return state
}

/** Open a WebSocket and report its first message or its failure. */
function firstMessage(url: string): Promise<string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url)
    ws.onmessage = (e) => {
      resolve(`message ${String(e.data)}`)
      ws.close()
    }
    ws.onerror = () => resolve('error')
  })
}

describe('undici requests fluxlab cannot route', () => {
  test('a WebSocket to a provider host is refused and fails the run with FLUX_UNROUTABLE', async () => {
    const ws = await startSocketServer()
    const s = await scenario('undici-ws-provider', { dir: tempDir(), hosts: { [ws.host]: 'openai-chat' } })
    let seen = ''
    const run = s.run(async () => {
      seen = await firstMessage(`${ws.url}/v1/realtime`)
    })
    await expect(run).rejects.toThrow(
      /FLUX_UNROUTABLE: Failed to send GET 127\.0\.0\.1:\d+\/v1\/realtime: it is a model call made through an undici websocket upgrade/,
    )
    expect(seen).toBe('error')
    expect(ws.upgrades).toBe(0)
  })

  test('a WebSocket to any other host goes to the network, with a warning naming it', async () => {
    const ws = await startSocketServer()
    const warnings: string[] = []
    const warn = console.warn
    console.warn = (...a: unknown[]) => void warnings.push(a.join(' '))
    try {
      const out = await (await scenario('undici-ws-tool', { dir: tempDir() })).run(() => firstMessage(`${ws.url}/events`))
      expect(out.result).toBe('message hello')
    } finally {
      console.warn = warn
    }
    expect(ws.upgrades).toBe(1)
    expect(warnings).toEqual([
      expect.stringMatching(/^\[fluxlab\] GET http:\/\/127\.0\.0\.1:\d+\/events is an undici websocket upgrade: fluxlab does not record or replay it/),
    ])
  })
})

/**
 * Issue 16 item 2: a realtime WebSocket (OpenAI Realtime) recorded frame by frame and replayed
 * with no connection, driven by the `openai` SDK's realtime client over the global `WebSocket`,
 * against a local `ws` server reached through the upstream map (the fixture keeps the vendor host).
 */
import { readFileSync, readdirSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import OpenAI from 'openai'
import { OpenAIRealtimeWebSocket } from 'openai/realtime/websocket'
import { fluxlab as fluxlabCli } from '../cli/support.js'
import { OpenAIRealtimeWS } from 'openai/realtime/ws'
import { WebSocket as UndiciWebSocket } from 'undici'
import { WebSocketServer, type WebSocket as ServerSocket } from 'ws'
import { scenario } from 'fluxlab'
import { afterEach, beforeAll, expect, test } from 'vitest'
import { tempDir, track, useEngineSandbox } from './helpers.js'

useEngineSandbox()

// @note Node 22 has a global `WebSocket` (undici's); Node 20 has it only behind --experimental-websocket. The same class from the undici package stands in.
beforeAll(() => {
  const g = globalThis as { WebSocket?: unknown }
  g.WebSocket ??= UndiciWebSocket
})
afterEach(() => {
  delete process.env.FLUX_UPSTREAM
})

/** A real-looking key: it must reach the server live and never the fixture. */
const KEY = `sk-proj-${'Ab3dE5gH7jK9mN1pQ3sT5vX7zB9cD1fG3hJ5kL7nP9rS1tV3'}`
const SECRET_IN_FRAME = `sk-proj-${'Zy9xW8vU7tS6rQ5pO4nM3lK2jI1hG0fE9dC8bA7zY6xW5vU4'}`

interface Seen {
  frames: string[]
  protocols: string[]
  paths: string[]
}

/** A local OpenAI Realtime server: `session.created` on connect, then an answer to each client event. */
async function realtimeServer(): Promise<{ url: string; seen: Seen; close(): Promise<void> }> {
  const seen: Seen = { frames: [], protocols: [], paths: [] }
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: (p) => (p.has('realtime') ? 'realtime' : false) })
  wss.on('connection', (socket: ServerSocket, req) => {
    seen.paths.push(req.url ?? '')
    seen.protocols.push(String(req.headers['sec-websocket-protocol']))
    const send = (e: object) => socket.send(JSON.stringify(e))
    send({ type: 'session.created', event_id: 'evt_1', session: { id: 'sess_1', model: 'gpt-realtime' } })
    if (req.url?.includes('binary=1')) socket.send(Buffer.from(JSON.stringify({ type: 'rate_limits.updated', event_id: 'evt_b' })), { binary: true })
    socket.on('message', (raw) => {
      const text = String(raw)
      seen.frames.push(text)
      const event = JSON.parse(text) as { type: string; session?: { instructions?: string }; item?: object }
      if (event.type === 'session.update')
        send({ type: 'session.updated', event_id: 'evt_2', session: { model: 'gpt-realtime', instructions: event.session?.instructions } })
      if (event.type === 'conversation.item.create') send({ type: 'conversation.item.created', event_id: 'evt_3', item: event.item })
      if (event.type === 'response.create') {
        send({ type: 'response.created', event_id: 'evt_4', response: { id: 'resp_1', status: 'in_progress' } })
        setTimeout(() => {
          send({ type: 'response.output_text.delta', event_id: 'evt_5', response_id: 'resp_1', delta: 'Why did the ' })
          send({ type: 'response.output_text.delta', event_id: 'evt_6', response_id: 'resp_1', delta: 'socket close?' })
          send({
            type: 'response.done',
            event_id: 'evt_7',
            response: {
              id: 'resp_1',
              status: 'completed',
              usage: { total_tokens: 60, input_tokens: 42, output_tokens: 18, input_token_details: { cached_tokens: 10 } },
            },
          })
        }, 60)
      }
    })
  })
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()))
  const server = {
    url: `http://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate()
        wss.close(() => resolve())
      }),
  }
  track(server)
  return server
}

interface Talk {
  events: string[]
  text: string
}

/**
 * One realtime turn with the SDK: wait for the session, configure it, wait, ask, wait for the answer.
 * `events` interleaves what the client sent (`> type`) with what it received, in order.
 */
const agent =
  (instructions = `Be brief. Never say ${SECRET_IN_FRAME}.`) =>
  async (): Promise<Talk> => {
    const client = new OpenAI({ apiKey: KEY, baseURL: 'https://api.openai.com/v1', maxRetries: 0 })
    const rt = new OpenAIRealtimeWebSocket({ model: 'gpt-realtime' }, client)
    const events: string[] = []
    let text = ''
    rt.on('event', (e) => events.push(e.type))
    rt.on('response.output_text.delta', (e) => (text += e.delta))
    const failed = new Promise<never>((_, reject) => {
      rt.on('error', (e) => reject(e))
      rt.socket.addEventListener('close', (e) => reject(new Error(`socket closed ${e.code} ${e.reason}`)))
    })
    const send = (event: Parameters<typeof rt.send>[0]) => {
      events.push(`> ${event.type}`)
      rt.send(event)
    }
    const next = (type: 'session.created' | 'session.updated' | 'response.done') => Promise.race([new Promise((resolve) => rt.once(type, resolve)), failed])
    await next('session.created')
    send({ type: 'session.update', session: { type: 'realtime', instructions } })
    await next('session.updated')
    const done = next('response.done')
    send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Tell me a joke' }] } })
    send({ type: 'response.create' })
    await done
    rt.close()
    return { events, text }
  }

const EVENTS = [
  'session.created',
  '> session.update',
  'session.updated',
  '> conversation.item.create',
  '> response.create',
  'conversation.item.created',
  'response.created',
  'response.output_text.delta',
  'response.output_text.delta',
  'response.done',
]

function fixtureText(dir: string): string {
  const root = join(dir, 'joke')
  return readdirSync(root)
    .map((f) => readFileSync(join(root, f), 'utf8'))
    .join('\n')
}

async function record(dir: string) {
  const server = await realtimeServer()
  process.env.FLUX_UPSTREAM = `api.openai.com=${server.url}`
  const rec = await (await scenario('joke', { dir })).run(agent())
  delete process.env.FLUX_UPSTREAM
  return { server, rec }
}

test('records every frame both ways through the upstream, the fixture keeping the vendor host and no key', async () => {
  const dir = tempDir()
  const { server, rec } = await record(dir)
  expect(rec.result).toEqual({ events: EVENTS, text: 'Why did the socket close?' })
  // Live: the SDK's key reached the server in its subprotocol, and every client frame was sent once.
  expect(server.seen.paths).toEqual(['/v1/realtime?model=gpt-realtime'])
  expect(server.seen.protocols[0]).toContain(`openai-insecure-api-key.${KEY}`)
  expect(server.seen.frames.map((f) => (JSON.parse(f) as { type: string }).type)).toEqual(['session.update', 'conversation.item.create', 'response.create'])

  const cells = readFileSync(join(dir, 'joke/model.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map(
      (l) => JSON.parse(l) as { url: string; family: string; request: { body: { type: string } }; response: { chunks: Array<{ t: number; data?: string }> } },
    )
  expect(cells.map((c) => c.family)).toEqual(['openai-realtime', 'openai-realtime', 'openai-realtime', 'openai-realtime'])
  expect(cells.map((c) => c.url)).toEqual(Array(4).fill('wss://api.openai.com/v1/realtime?model=gpt-realtime'))
  expect(cells.map((c) => c.request.body.type)).toEqual(['websocket.open', 'session.update', 'conversation.item.create', 'response.create'])
  const text = fixtureText(dir)
  expect(text).not.toContain(KEY)
  expect(text).not.toContain(SECRET_IN_FRAME)
  expect(text).not.toContain('127.0.0.1')
  // The trace shows each frame and what followed it.
  expect(rec.trace()).toContain(
    [
      '1 model#1 openai-realtime gpt-realtime · in 0 · out 0',
      '    > websocket.open',
      '    < session.created',
      '2 model#2 openai-realtime gpt-realtime · in 0 · out 0',
      '    > session.update',
      '    < session.updated',
      '3 model#3 openai-realtime gpt-realtime · in 0 · out 0',
      '    > conversation.item.create',
      '4 model#4 openai-realtime gpt-realtime · in 42 · out 18 · cache read 10 · completed',
      '    > response.create',
      '    < conversation.item.created, response.created, response.output_text.delta ×2, response.done',
    ].join('\n'),
  )
  // Usage from `response.done` reaches the outcome, and cost follows from it.
  expect(rec.usage).toMatchObject({ input: 42, output: 18, cacheRead: 10 })
  expect(rec.cost({ 'gpt-realtime': { input: 4, output: 16 } }).total).toBeCloseTo((42 * 4 + 18 * 16) / 1e6, 10)
})

test('fluxlab show lists each frame and the events that answered it, in the terminal and in the HTML viewer', async () => {
  const dir = tempDir()
  await record(dir)
  const tree = await fluxlabCli(['show', 'joke', '--dir', dir], { cwd: dir })
  expect(tree.code, tree.output).toBe(0)
  expect(tree.stdout).toContain('[websocket] > response.create · < conversation.item.created, response.created, response.output_text.delta ×2, response.done')
  const file = join(dir, 'trace.html')
  const r = await fluxlabCli(['show', 'joke', '--dir', dir, '--html', file], { cwd: dir })
  expect(r.code, r.output).toBe(0)
  expect(readFileSync(file, 'utf8')).toContain(
    '<span class="transport websocket">WebSocket</span> sent <code>session.update</code> · received <code>session.updated</code>',
  )
})

test('replays offline under CI=1 with the server closed: no connection, the same frames in the same order, each after the frame that caused it', async () => {
  const dir = tempDir()
  const { server, rec } = await record(dir)
  await server.close()
  // A server the replay could reach, were it to open a connection: it must see none.
  const bystander = await realtimeServer()
  process.env.FLUX_UPSTREAM = `api.openai.com=${bystander.url}`
  process.env.CI = '1'
  const out = await (await scenario('joke', { dir })).run(agent())
  expect(out.result).toEqual(rec.result)
  expect((out.result as Talk).events).toEqual(EVENTS)
  expect(out.hermetic).toBe(true)
  expect(out.usage).toMatchObject({ input: 42, output: 18 })
  expect(bystander.seen.paths).toEqual([])
})

test("recording with fluxlab's placeholder key in the subprotocol is FLUX_NO_KEY, and no socket opens", async () => {
  const server = await realtimeServer()
  process.env.FLUX_UPSTREAM = `api.openai.com=${server.url}`
  const keyless = async () => {
    const client = new OpenAI({ apiKey: 'fluxlab-replay-no-key', baseURL: 'https://api.openai.com/v1', maxRetries: 0 })
    const rt = new OpenAIRealtimeWebSocket({ model: 'gpt-realtime' }, client)
    rt.on('error', () => {})
    await new Promise((resolve) => rt.socket.addEventListener('close', resolve))
  }
  const failure = await (await scenario('keyless', { dir: tempDir() })).run(keyless).then(
    () => undefined,
    (e: Error) => e,
  )
  delete process.env.FLUX_UPSTREAM
  expect(failure?.message).toContain('FLUX_NO_KEY')
  expect(server.seen.paths).toEqual([])
  await server.close()
})

test('a socket fluxlab does not take (not a realtime path) to a provider host still fails the run with FLUX_UNROUTABLE', async () => {
  const server = await realtimeServer()
  const host = new URL(server.url).host
  const s = await scenario('other-socket', { dir: tempDir(), hosts: { [host]: 'openai-chat' } })
  const run = s.run(
    () =>
      new Promise<string>((resolve) => {
        const ws = new WebSocket(`ws://${host}/v1/other`, ['realtime'])
        ws.onmessage = () => resolve('message')
        ws.onerror = () => resolve('error')
        ws.onclose = () => resolve('closed')
      }),
  )
  await expect(run).rejects.toThrow(
    /FLUX_UNROUTABLE: Failed to send GET 127\.0\.0\.1:\d+\/v1\/other: it is a model call made through an undici websocket upgrade/,
  )
  expect(server.seen.paths).toEqual([])
})

test('replays with timing "recorded": the recorded gap between response.created and the deltas is kept; unset, it is not', async () => {
  const dir = tempDir()
  const server = await realtimeServer()
  process.env.FLUX_UPSTREAM = `api.openai.com=${server.url}`
  /** How long after `response.created` the `response.done` came. */
  const gap = () =>
    new Promise<number>((resolve, reject) => {
      const ws = new WebSocket('wss://api.openai.com/v1/realtime?model=gpt-realtime', ['realtime'])
      let created = 0
      ws.onmessage = (e) => {
        const type = (JSON.parse(String(e.data)) as { type: string }).type
        if (type === 'session.created') ws.send(JSON.stringify({ type: 'response.create' }))
        if (type === 'response.created') created = performance.now()
        if (type === 'response.done') {
          ws.close()
          resolve(performance.now() - created)
        }
      }
      ws.onclose = (e) => reject(new Error(`closed ${e.code}`))
    })
  const live = (await (await scenario('paced', { dir })).run(gap)).result
  expect(live).toBeGreaterThanOrEqual(50)
  await server.close()
  delete process.env.FLUX_UPSTREAM
  process.env.CI = '1'
  const paced = (await (await scenario('paced', { dir, timing: 'recorded' })).run(gap)).result
  const unpaced = (await (await scenario('paced', { dir })).run(gap)).result
  expect(paced).toBeGreaterThanOrEqual(50)
  expect(unpaced).toBeLessThan(50)
})

test('a client frame that differs from the recording is drift: a warning naming the changed field, the recorded answer still served', async () => {
  const dir = tempDir()
  await (await record(dir)).server.close()
  process.env.CI = '1'
  const out = await (await scenario('joke', { dir })).run(agent('Be verbose.'))
  expect(out.result).toMatchObject({ events: EVENTS })
  expect(out.warnings.map((w) => [w.code, w.step])).toEqual([['model_request_drift', 'model#2']])
  expect(out.warnings[0].message).toContain('session.instructions differs')
})

test('a client frame of another event type is a divergence naming both types, and the socket is closed as a server error', async () => {
  const dir = tempDir()
  await (await record(dir)).server.close()
  process.env.CI = '1'
  const other = async () => {
    const client = new OpenAI({ apiKey: KEY, baseURL: 'https://api.openai.com/v1', maxRetries: 0 })
    const rt = new OpenAIRealtimeWebSocket({ model: 'gpt-realtime' }, client)
    rt.on('error', () => {})
    await new Promise((resolve) => rt.socket.addEventListener('open', resolve))
    const closed = new Promise<{ code: number }>((resolve) => rt.socket.addEventListener('close', (e) => resolve(e)))
    rt.send({ type: 'input_audio_buffer.clear' })
    return (await closed).code
  }
  const out = await (await scenario('joke', { dir })).run(other)
  expect(out.result).toBe(1011)
  expect(out.divergences[0]).toMatchObject({ code: 'model_index_overflow', severity: 'failure', step: 'model#2' })
  expect(out.divergences[0].message).toContain('it is a realtime input_audio_buffer.clear event where the recording has session.update')
})

test('the SDK realtime client built on the `ws` package (node:http upgrade) is refused with FLUX_UNROUTABLE, never sent live', async () => {
  const server = await realtimeServer()
  process.env.FLUX_UPSTREAM = `api.openai.com=${server.url}`
  const s = await scenario('ws-package', { dir: tempDir() })
  const run = s.run(async () => {
    const client = new OpenAI({ apiKey: KEY, baseURL: 'https://api.openai.com/v1', maxRetries: 0 })
    const rt = new OpenAIRealtimeWS({ model: 'gpt-realtime' }, client)
    return new Promise<string>((resolve) => {
      rt.on('error', () => resolve('error'))
      rt.socket.on('open', () => resolve('open'))
    })
  })
  await expect(run).rejects.toThrow(
    /FLUX_UNROUTABLE: Failed to send GET api\.openai\.com\/v1\/realtime: it is a model call made through a node:http websocket upgrade \(the `ws` package\)/,
  )
  expect(server.seen.paths).toEqual([])
})

test('a run that ends with its socket still open records and replays (the last answer is kept open, as recorded)', async () => {
  const dir = tempDir()
  const server = await realtimeServer()
  process.env.FLUX_UPSTREAM = `api.openai.com=${server.url}`
  const leaveOpen = async () => {
    const client = new OpenAI({ apiKey: KEY, baseURL: 'https://api.openai.com/v1', maxRetries: 0 })
    const rt = new OpenAIRealtimeWebSocket({ model: 'gpt-realtime' }, client)
    await new Promise((resolve) => rt.once('session.created', resolve))
    const done = new Promise<{ response: { status?: string } }>((resolve) => rt.once('response.done', resolve))
    rt.send({ type: 'response.create' })
    return (await done).response.status
  }
  const rec = await (await scenario('open', { dir })).run(leaveOpen)
  expect(rec.result).toBe('completed')
  await server.close()
  delete process.env.FLUX_UPSTREAM
  process.env.CI = '1'
  const out = await (await scenario('open', { dir })).run(leaveOpen)
  expect(out.result).toBe('completed')
  expect(out.hermetic).toBe(true)
})

test('a binary server frame is recorded and replayed as its text, in its place', async () => {
  const dir = tempDir()
  const server = await realtimeServer()
  process.env.FLUX_UPSTREAM = `api.openai.com=${server.url}`
  const firstTwo = () =>
    new Promise<unknown[]>((resolve, reject) => {
      const ws = new WebSocket('wss://api.openai.com/v1/realtime?model=gpt-realtime&binary=1', ['realtime'])
      const got: unknown[] = []
      ws.onmessage = (e) => {
        got.push(e.data)
        if (got.length === 2) {
          ws.close()
          resolve(got)
        }
      }
      ws.onclose = (e) => reject(new Error(`closed ${e.code}`))
    })
  const rec = await (await scenario('binary', { dir })).run(firstTwo)
  expect(rec.result).toEqual([expect.stringContaining('session.created'), '{"type":"rate_limits.updated","event_id":"evt_b"}'])
  await server.close()
  delete process.env.FLUX_UPSTREAM
  process.env.CI = '1'
  const out = await (await scenario('binary', { dir })).run(firstTwo)
  expect(out.result).toEqual(rec.result)
})

const GEMINI_KEY = `AIza${'Sy0123456789abcdefghijklmnopqrstuvw'}`
const LIVE_PATH = '/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent'

/** A local Gemini Live server: `setupComplete` after `setup`, a model turn (binary frames, as Gemini sends them) after `clientContent`. */
async function liveServer(): Promise<{ url: string; seen: Seen; close(): Promise<void> }> {
  const seen: Seen = { frames: [], protocols: [], paths: [] }
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  wss.on('connection', (socket: ServerSocket, req) => {
    seen.paths.push(req.url ?? '')
    const send = (m: object) => socket.send(Buffer.from(JSON.stringify(m)), { binary: true })
    socket.on('message', (raw) => {
      const text = String(raw)
      seen.frames.push(text)
      const m = JSON.parse(text) as Record<string, unknown>
      if (m.setup) send({ setupComplete: {} })
      if (m.clientContent) {
        send({ serverContent: { modelTurn: { parts: [{ text: 'A socket walks ' }] } } })
        send({ serverContent: { modelTurn: { parts: [{ text: 'into a bar.' }] } } })
        send({ serverContent: { turnComplete: true }, usageMetadata: { promptTokenCount: 21, responseTokenCount: 7, totalTokenCount: 28 } })
      }
    })
  })
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()))
  const server = {
    url: `http://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate()
        wss.close(() => resolve())
      }),
  }
  track(server)
  return server
}

/** One Live turn over the global WebSocket, as a browser-style client speaks it. */
const liveTurn = () =>
  new Promise<{ kinds: string[]; text: string }>((resolve, reject) => {
    const ws = new WebSocket(`wss://generativelanguage.googleapis.com${LIVE_PATH}?key=${GEMINI_KEY}`)
    ws.binaryType = 'arraybuffer'
    const kinds: string[] = []
    let text = ''
    ws.onopen = () => ws.send(JSON.stringify({ setup: { model: 'models/gemini-live-2.5-flash', systemInstruction: { parts: [{ text: 'Be brief.' }] } } }))
    ws.onmessage = (e) => {
      const m = JSON.parse(typeof e.data === 'string' ? e.data : new TextDecoder().decode(e.data as ArrayBuffer)) as {
        setupComplete?: object
        serverContent?: { modelTurn?: { parts: Array<{ text: string }> }; turnComplete?: boolean }
      }
      kinds.push(Object.keys(m)[0])
      if (m.setupComplete) ws.send(JSON.stringify({ clientContent: { turns: [{ role: 'user', parts: [{ text: 'Tell me a joke' }] }], turnComplete: true } }))
      for (const p of m.serverContent?.modelTurn?.parts ?? []) text += p.text
      if (m.serverContent?.turnComplete) {
        ws.close()
        resolve({ kinds, text })
      }
    }
    ws.onclose = (e) => reject(new Error(`closed ${e.code} ${e.reason}`))
  })

test('Gemini Live: recorded through the upstream with the key in the URL kept out of the fixture, replayed offline with usage', async () => {
  const dir = tempDir()
  const server = await liveServer()
  process.env.FLUX_UPSTREAM = `generativelanguage.googleapis.com=${server.url}`
  const rec = await (await scenario('live', { dir })).run(liveTurn)
  expect(rec.result).toEqual({ kinds: ['setupComplete', 'serverContent', 'serverContent', 'serverContent'], text: 'A socket walks into a bar.' })
  expect(server.seen.paths).toEqual([`${LIVE_PATH}?key=${GEMINI_KEY}`])
  expect(rec.usage).toMatchObject({ input: 21, output: 7 })
  expect(rec.trace()).toContain('3 model#3 gemini-live gemini-live-2.5-flash · in 21 · out 7 · turnComplete\n    > clientContent\n    < serverContent ×3')
  const root = join(dir, 'live')
  const text = readdirSync(root)
    .map((f) => readFileSync(join(root, f), 'utf8'))
    .join('\n')
  expect(text).not.toContain(GEMINI_KEY)
  expect(text).toContain('generativelanguage.googleapis.com')
  await server.close()
  delete process.env.FLUX_UPSTREAM

  process.env.CI = '1'
  const out = await (await scenario('live', { dir })).run(liveTurn)
  expect(out.result).toEqual(rec.result)
  expect(out.hermetic).toBe(true)
  expect(out.usage).toMatchObject({ input: 21, output: 7 })
})

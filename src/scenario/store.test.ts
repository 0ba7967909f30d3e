// The scenario layer over an in-memory fixture store (issue 40 item 3): record → replay → divergence, with no file
// written. The agent talks to a local provider (a model endpoint and a weather tool) that counts what reaches it.
import { existsSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { useFixtureStore } from '../store/current.js'
import { memoryStore } from '../store/memory.js'
import { scenario } from './scenario.js'

const ROOT = '/virtual-fluxlab/scenarios'
const MODE_ENV = ['CI', 'FLUX_GOLDEN', 'FLUX_OFFLINE', 'OPENAI_API_KEY'] as const

let server: Server
let url = ''
const hits: string[] = []
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (d: Buffer) => (body += d.toString()))
    req.on('end', () => {
      hits.push(`${req.method} ${req.url}`)
      res.setHeader('content-type', 'application/json')
      if (req.url?.startsWith('/weather')) return res.end(JSON.stringify({ sky: req.url.includes('Oslo') ? 'snow' : 'sun' }))
      const { messages, stream } = JSON.parse(body) as { messages: Array<{ content: string }>; stream?: boolean }
      const content = `You asked: ${messages.at(-1)!.content}`
      if (stream) return sse(res, content)
      res.end(JSON.stringify({
        id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-4o-mini-2024-07-18',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 },
      }))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))

/** An OpenAI chat stream of `content`, a word an event. */
function sse(res: import('node:http').ServerResponse, content: string): void {
  res.setHeader('content-type', 'text/event-stream')
  const chunk = (delta: object, finish: string | null = null) => {
    const event = { id: 'chatcmpl-2', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini-2024-07-18', choices: [{ index: 0, delta, finish_reason: finish }] }
    return `data: ${JSON.stringify(event)}\n\n`
  }
  for (const word of content.split(' ')) res.write(chunk({ content: `${word} ` }))
  res.end(`${chunk({}, 'stop')}data: [DONE]\n\n`)
}

/** The agent asking for a stream: the raw text it was sent. */
async function streamingAgent(question: string): Promise<string> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: question }] }),
  })
  return res.text()
}

let store: ReturnType<typeof memoryStore>
const saved: Record<string, string | undefined> = {}
let restore = () => {}
beforeEach(() => {
  for (const k of MODE_ENV) {
    saved[k] = process.env[k]
    delete process.env[k]
  }
  hits.length = 0
  store = memoryStore()
  restore = useFixtureStore(store)
})
afterEach(() => {
  restore()
  for (const k of MODE_ENV) if (saved[k] === undefined) delete process.env[k]
  else process.env[k] = saved[k]
})

/** The agent: one model call, then the weather tool for each city. */
async function agent(question: string, cities: string[] = []): Promise<string> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test-not-a-key' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: question }] }),
  })
  const answer = ((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0].message.content
  const skies = await Promise.all(cities.map(async (c) => ((await (await fetch(`${url}/weather?city=${c}`)).json()) as { sky: string }).sky))
  return [answer, ...skies].join(' | ')
}

const text = (file: string) => {
  const bytes = store.readFile(join(ROOT, file))
  return bytes && Buffer.from(bytes).toString('utf8')
}

describe('a scenario over an in-memory store', () => {
  test('records into the store: its files are there and none on disk', async () => {
    const s = await scenario('weather', { dir: ROOT })
    expect(s.mode).toBe('record')
    const out = await s.run(() => agent('Weather in Oslo?', ['Oslo']))
    expect(out.result).toBe('You asked: Weather in Oslo? | snow')
    expect(hits).toEqual(['POST /v1/chat/completions', 'GET /weather?city=Oslo'])
    expect(text('weather/scenario.yaml')).toMatch(/^name: weather$/m)
    expect(text('weather/model.jsonl')?.trim().split('\n')).toHaveLength(1)
    expect(text('weather/tools.jsonl')).toContain('"url":"' + url + '/weather?city=Oslo"')
    expect(existsSync(ROOT)).toBe(false)
  })

  test('replays from the store: the same result, and no request reaches the provider', async () => {
    await (await scenario('weather', { dir: ROOT })).run(() => agent('Weather in Oslo?', ['Oslo']))
    hits.length = 0
    process.env.FLUX_OFFLINE = '1'
    const s = await scenario('weather', { dir: ROOT })
    expect(s.mode).toBe('replay')
    const out = await s.run(() => agent('Weather in Oslo?', ['Oslo']))
    expect(out.result).toBe('You asked: Weather in Oslo? | snow')
    expect(out.hermetic).toBe(true)
    expect(hits).toEqual([])
  })

  test('a replay whose request differs from the recording is served by position, with a drift that names the change', async () => {
    await (await scenario('weather', { dir: ROOT })).run(() => agent('Weather in Oslo?'))
    process.env.FLUX_OFFLINE = '1'
    const s = await scenario('weather', { dir: ROOT })
    const out = await s.run(() => agent('Weather in Rome?'))
    expect(out.result).toBe('You asked: Weather in Oslo?')
    expect(out.divergences.map((d) => [d.code, d.severity, d.step])).toEqual([['model_request_drift', 'warning', 'model#1']])
    expect(out.divergences[0].diff).toEqual([{ path: 'messages[0].content', kind: 'changed', recorded: 'Weather in Oslo?', actual: 'Weather in Rome?' }])
    expect(out.failures).toEqual([])
    expect(hits.filter((h) => h.startsWith('POST'))).toHaveLength(1)
  })

  test('a recorded call the replay never makes is a failure of its outcome', async () => {
    await (await scenario('weather', { dir: ROOT })).run(() => agent('Weather?', ['Oslo', 'Rome']))
    process.env.FLUX_OFFLINE = '1'
    const out = await (await scenario('weather', { dir: ROOT })).run(() => agent('Weather?', ['Oslo']))
    expect(out.result).toBe('You asked: Weather? | snow')
    expect(out.failures.map((d) => [d.code, d.step])).toEqual([['unused_interaction', 'tool#2']])
    expect(out.failures[0].message).toMatch(/^recorded tool#2 GET 127\.0\.0\.1:\d+\/weather was never called$/)
  })

  test('a cell edited in the store is refused when replay would serve it (digest_mismatch)', async () => {
    await (await scenario('weather', { dir: ROOT })).run(() => agent('Weather in Oslo?'))
    const file = join(ROOT, 'weather/model.jsonl')
    store.writeFile(file, text('weather/model.jsonl')!.replace('You asked:', 'You said:'))
    process.env.FLUX_OFFLINE = '1'
    const err = await (await scenario('weather', { dir: ROOT })).run(() => agent('Weather in Oslo?')).then(() => undefined, (e: Error) => e)
    expect(err?.message).toMatch(/digest_mismatch/)
  })

  test('a re-record replaces the fixture whole: the tool calls it no longer makes are gone, and replay reads the new one', async () => {
    await (await scenario('weather', { dir: ROOT })).run(() => agent('Weather in Oslo?', ['Oslo']))
    process.env.FLUX_OFFLINE = '1'
    await (await scenario('weather', { dir: ROOT })).run(() => agent('Weather in Oslo?', ['Oslo']))
    delete process.env.FLUX_OFFLINE
    process.env.FLUX_GOLDEN = 'update'
    const again = await scenario('weather', { dir: ROOT })
    expect(again.mode).toBe('record')
    await again.run(() => agent('Weather in Rome?'))
    expect(text('weather/tools.jsonl')).toBeUndefined()
    delete process.env.FLUX_GOLDEN
    process.env.FLUX_OFFLINE = '1'
    const out = await (await scenario('weather', { dir: ROOT })).run(() => agent('Weather in Rome?'))
    expect(out.result).toBe('You asked: Weather in Rome?')
  })

  test('a fixture is read from the store in use: another store at the same path has none, so it records', async () => {
    await (await scenario('weather', { dir: ROOT })).run(() => agent('Weather in Oslo?'))
    expect((await scenario('weather', { dir: ROOT })).mode).toBe('replay')
    const undo = useFixtureStore(memoryStore())
    try {
      expect((await scenario('weather', { dir: ROOT })).mode).toBe('record')
    } finally {
      undo()
    }
  })

  test('under CI a missing fixture is refused, and nothing is written', async () => {
    process.env.CI = '1'
    const err = await scenario('weather', { dir: ROOT }).then(() => undefined, (e: Error) => e)
    expect(err?.message).toMatch(/FLUX_/)
    expect(store.files.size).toBe(0)
    expect(hits).toEqual([])
  })

  test('a streamed answer is replayed from the store byte for byte', async () => {
    const recorded = await (await scenario('stream', { dir: ROOT })).run(() => streamingAgent('Weather in Oslo?'))
    expect(recorded.result).toContain('data: [DONE]')
    expect(recorded.text).toBe('You asked: Weather in Oslo? ')
    process.env.FLUX_OFFLINE = '1'
    const replayed = await (await scenario('stream', { dir: ROOT })).run(() => streamingAgent('Weather in Oslo?'))
    expect(replayed.result).toBe(recorded.result)
    expect(hits).toEqual(['POST /v1/chat/completions'])
  })

  test('s.replay() builds the outcome from the fixture in the store alone', async () => {
    await (await scenario('weather', { dir: ROOT })).run(() => agent('Weather in Oslo?', ['Oslo']))
    hits.length = 0
    const out = await (await scenario('weather', { dir: ROOT })).replay()
    expect(out.modelCalls.map((c) => c.text)).toEqual(['You asked: Weather in Oslo?'])
    expect(out.calls.map((c) => c.name)).toEqual([expect.stringMatching(/^GET 127\.0\.0\.1:\d+\/weather$/)])
    expect(hits).toEqual([])
  })

  test('every scenario() of an unchanged fixture is handed the same checked, frozen read', async () => {
    await (await scenario('weather', { dir: ROOT })).run(() => agent('Weather in Oslo?', ['Oslo']))
    const a = (await scenario('weather', { dir: ROOT })).fixture!
    const b = (await scenario('weather', { dir: ROOT })).fixture!
    expect(b).toBe(a)
    expect(Object.isFrozen(a.model[0].response)).toBe(true)
    store.writeFile(join(ROOT, 'weather/trace.snap'), 'edited\n')
    expect((await scenario('weather', { dir: ROOT })).fixture).not.toBe(a)
  })

  test('a fault injected at the tool step is served in its place, the model call before it from the store, which it leaves as it was', async () => {
    await (await scenario('weather', { dir: ROOT })).run(() => agent('Weather in Oslo?', ['Oslo']))
    hits.length = 0
    const tools = text('weather/tools.jsonl')
    const s = await scenario('weather', { dir: ROOT })
    const out = await s.injectAt('tool#1', { output: { sky: 'hail' } }).run(() => agent('Weather in Oslo?', ['Oslo']))
    expect(out.result).toBe('You asked: Weather in Oslo? | hail')
    expect(text('weather/tools.jsonl')).toBe(tools)
    expect(hits).toEqual([])
  })
})

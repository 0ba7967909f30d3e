/**
 * For unit tests of the scenario layer over an in-memory fixture store (issue 40 item 3): a local provider (an OpenAI
 * chat endpoint, plain or streamed, and a weather tool) that logs what reaches it, the agents that talk to it, and a
 * sandbox per test (mode variables unset, a fresh memory store in use).
 */
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest'
import { useFixtureStore } from '../../store/current.js'
import { memoryStore } from '../../store/memory.js'

const MODE_ENV = ['CI', 'FLUX_GOLDEN', 'FLUX_OFFLINE', 'FLUX_AUTO_RESURRECT', 'OPENAI_API_KEY'] as const

/** What a test file gets: the provider's URL and log, the store of the running test, and the agents. */
interface TestProvider {
  readonly url: string
  readonly hits: string[]
  readonly store: ReturnType<typeof memoryStore>
  /** One model call, then the weather tool for each city: the answer and the skies, joined by ` | `. */
  agent(question: string, cities?: string[]): Promise<string>
  /** One streamed model call: the raw text the agent was sent. */
  streamingAgent(question: string): Promise<string>
}

/**
 * Call once at the top of a test file.
 * @example
 * const provider = useTestProvider()
 * test('records', async () => { await (await scenario('x', { dir: '/virtual' })).run(() => provider.agent('Hi?')) })
 */
export function useTestProvider(): TestProvider {
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (d: Buffer) => (body += d.toString()))
    req.on('end', () => {
      hits.push(`${req.method} ${req.url}`)
      res.setHeader('content-type', 'application/json')
      if (req.url?.startsWith('/weather')) return res.end(JSON.stringify({ sky: req.url.includes('Oslo') ? 'snow' : 'sun' }))
      const { messages, stream } = JSON.parse(body) as { messages: Array<{ content: string }>; stream?: boolean }
      const content = `You asked: ${messages.at(-1)!.content}`
      if (stream) return sse(res, content)
      const choices = [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }]
      const usage = { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 }
      res.end(JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-4o-mini-2024-07-18', choices, usage }))
    })
  })
  const hits: string[] = []
  let url = ''
  let store = memoryStore()
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((r) => server.close(() => r())))
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
    for (const k of MODE_ENV) {
      if (saved[k] === undefined) delete process.env[k]
      else process.env[k] = saved[k]
    }
  })
  const ask = (body: object) =>
    fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return {
    get url() {
      return url
    },
    hits,
    get store() {
      return store
    },
    async agent(question, cities = []) {
      const res = await ask({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: question }] })
      const answer = ((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0].message.content
      const sky = async (c: string) => ((await (await fetch(`${url}/weather?city=${c}`)).json()) as { sky: string }).sky
      const skies = await Promise.all(cities.map(sky))
      return [answer, ...skies].join(' | ')
    },
    async streamingAgent(question) {
      return (await ask({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: question }] })).text()
    },
  }
}

/** An OpenAI chat stream of `content`, a word an event. */
function sse(res: ServerResponse, content: string): void {
  res.setHeader('content-type', 'text/event-stream')
  const chunk = (delta: object, finish: string | null = null) => {
    const choices = [{ index: 0, delta, finish_reason: finish }]
    return `data: ${JSON.stringify({ id: 'chatcmpl-2', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini-2024-07-18', choices })}\n\n`
  }
  for (const word of content.split(' ')) res.write(chunk({ content: `${word} ` }))
  res.end(`${chunk({}, 'stop')}data: [DONE]\n\n`)
}

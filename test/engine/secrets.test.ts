/**
 * Secrets never reach a fixture or an error message (SPEC §4): redacted before
 * hashing and before disk, scanned on every write and every read.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import stableStringify from 'fast-json-stable-stringify'
import OpenAI from 'openai'
import { describe, expect, test } from 'vitest'
import { isFluxError, scenario, type Lab, type Manifest, type ModelCell, type ToolCell } from 'fluxlab'
import { writeFixture } from '../../src/cassette/fixture-write.js'
import { openaiBaseURL, type Exchange, type ProviderServer } from '../support/index.js'
import { fetchChunks, listFiles, readJsonl, recordThenReplay, serve, startWeatherServer, tempDir, useEngineSandbox, type TinyServer } from './helpers.js'

useEngineSandbox()

const pick = (alphabet: string, n: number) => [...randomBytes(n)].map((b) => alphabet[b % alphabet.length]).join('')
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const b64url = (s: string | Buffer) => Buffer.from(s).toString('base64url')

/** Real-looking credentials, fresh per run: nothing here is a real secret. */
const KEYS = {
  openai: `sk-proj-${pick(ALNUM, 48)}`,
  anthropic: `sk-ant-api03-${pick(ALNUM, 60)}`,
  google: `AIza${pick(ALNUM, 35)}`,
  aws: `AKIA${pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}`,
  github: `ghp_${pick(ALNUM, 36)}`,
  jwt: `${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url(JSON.stringify({ sub: pick(ALNUM, 12), iat: 1700000000 }))}.${b64url(randomBytes(32))}`,
  pem: generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  /** The one the provider sends back, split across two chunks. */
  returned: `sk-ant-api03-${pick(ALNUM, 60)}`,
}
/** Every key and a distinctive tail of it (catches a partly redacted key), plus each base64 line of the PEM. */
const NEEDLES = [
  ...Object.entries(KEYS)
    .filter(([k]) => k !== 'pem')
    .flatMap(([, v]) => [v, v.slice(-16)]),
  ...KEYS.pem.split('\n').filter((l) => l.length >= 16 && !l.startsWith('-----')),
]
const expectNoSecret = (text: string) => {
  for (const n of NEEDLES) expect(text.includes(n), `leaked …${n.slice(-6)}`).toBe(false)
}

/** An OpenAI chat SSE stream whose text holds `KEYS.returned`, and the write size that cuts the key in two. */
function leakyExchange(): { exchange: Exchange; chunkSize: number } {
  const event = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-leak', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
  const body =
    event({ role: 'assistant', content: 'Your new key is ' }) +
    event({ content: `${KEYS.returned} keep it safe.` }) +
    event({}, 'stop') +
    `data: ${JSON.stringify({ id: 'chatcmpl-leak', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [], usage: { prompt_tokens: 40, completion_tokens: 30, total_tokens: 70 } })}\n\n` +
    'data: [DONE]\n\n'
  const exchange: Exchange = {
    method: 'POST',
    path: '/v1/chat/completions',
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8' },
    body,
  }
  return { exchange, chunkSize: body.indexOf(KEYS.returned) + 20 }
}

/** An agent that puts every key into headers, URLs and bodies of model calls and of a plain-HTTP tool. */
const leakyAgent = (server: ProviderServer, weather: TinyServer) => async () => {
  const client = new OpenAI({ baseURL: openaiBaseURL(server), apiKey: KEYS.openai, maxRetries: 0 })
  const prompt = `Rotate these: ${KEYS.anthropic} ${KEYS.aws} ${KEYS.github} ${KEYS.jwt}\n${KEYS.pem}`
  let chat = ''
  const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: prompt }], stream: true })
  for await (const chunk of stream) chat += chunk.choices[0]?.delta.content ?? ''
  const gemini = await fetchChunks(`${server.url}/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse&key=${KEYS.google}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': KEYS.google },
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: `my key is ${KEYS.google} ok` }] }] }),
  })
  const claude = await fetchChunks(`${server.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEYS.anthropic, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 64, stream: true, messages: [{ role: 'user', content: `use ${KEYS.openai}` }] }),
  })
  const forecast = await fetchChunks(`${weather.url}/weather?city=Paris&api_key=${KEYS.github}`, { headers: { authorization: `Bearer ${KEYS.jwt}` } })
  const posted = await fetchChunks(`${weather.url}/weather?city=Lyon`, { method: 'POST', body: JSON.stringify({ aws: KEYS.aws, pem: KEYS.pem }) })
  return { chat, gemini: gemini.text, claude: claude.text, forecast: forecast.text, posted: posted.text }
}

describe('recording', () => {
  test('writes no key anywhere in the fixture, keeps placeholders, and the replay still works', async () => {
    const { exchange, chunkSize } = leakyExchange()
    const server = await serve([exchange, 'gemini/google-text.chunks.txt', 'anthropic/anthropic-text.chunks.txt'], { chunking: chunkSize, delayMs: 20 })
    const weather = await startWeatherServer()
    const agent = leakyAgent(server, weather)
    const rr = await recordThenReplay('leaky', server, agent)

    expect(rr.recorded.result.chat).toBe(`Your new key is ${KEYS.returned} keep it safe.`)
    const files = listFiles(rr.fixture)
    expect(files).toEqual(['model.jsonl', 'scenario.yaml', 'tools.jsonl', 'trace.snap'])
    for (const f of files) expectNoSecret(readFileSync(join(rr.fixture, f), 'utf8'))
    const model = readFileSync(join(rr.fixture, 'model.jsonl'), 'utf8')
    const tools = readFileSync(join(rr.fixture, 'tools.jsonl'), 'utf8')
    expect(model).toMatch(/\[REDACTED:[0-9a-f]{8}\]/)
    expect(tools).toMatch(/\[REDACTED:[0-9a-f]{8}\]/)

    const cells = readJsonl(join(rr.fixture, 'model.jsonl'))
    expect(cells.map((c) => c.family)).toEqual(['openai-chat', 'gemini', 'anthropic'])
    expect(cells[1].url).toMatch(/[?&]key=(\[|%5B)REDACTED/)
    // SPEC §3: a secret query parameter is not part of the request's key (a replay sends a placeholder there).
    expect(cells[1].request.path).toBe('/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse')
    // the returned key arrived in two chunks: the placeholder sits where it starts, the rest is cut from the next chunk
    const texts: string[] = cells[0].response.chunks.map((c: { text: string }) => c.text)
    const at = texts.findIndex((t) => /\[REDACTED:[0-9a-f]{8}\]$/.test(t))
    expect(at).toBeGreaterThanOrEqual(0)
    expect(texts[at + 1].startsWith(' keep it safe.')).toBe(true)
    expect(cells[0].text).toMatch(/^Your new key is \[REDACTED:[0-9a-f]{8}\] keep it safe\.$/)
    expect(readJsonl(join(rr.fixture, 'tools.jsonl')).map((c) => c.name)).toEqual([`GET ${weather.host}/weather`, `POST ${weather.host}/weather`])

    await weather.close()
    expect(rr.replayHits).toBe(0)
    expect(rr.replayed.divergences).toEqual([])
    expect(rr.replayed.hermetic).toBe(true)
    expect(rr.replayed.result.chat).toBe(cells[0].text)
    const { chat: _recordedChat, ...sameInBoth } = rr.recorded.result
    expect(rr.replayed.result).toMatchObject(sameInBoth)
  })

  test('an off-tape request carrying a key gets error text and divergences without it', async () => {
    const server = await serve(['openai-chat/openai-text.json'])
    const agent = (extra: boolean) => async () => {
      const client = new OpenAI({ baseURL: openaiBaseURL(server), apiKey: KEYS.openai, maxRetries: 0 })
      const ask = (content: string) => client.chat.completions.create({ model: 'gpt-4.1-nano', messages: [{ role: 'user', content }] })
      await ask(extra ? `changed: ${KEYS.github}` : 'Invent a holiday.')
      if (extra)
        return ask(`and ${KEYS.anthropic} ${KEYS.jwt}`).then(
          () => 'no error',
          (e: Error) => e.message,
        )
      return 'recorded'
    }
    const rr = await recordThenReplay('off-tape', server, agent(false))
    expect(rr.replayed.result).toBe('recorded')
    const out = await (await scenario('off-tape', { dir: join(rr.fixture, '..') })).run(agent(true))
    expect(out.result).toContain('[fluxlab]')
    expect(out.divergences.map((d) => d.code)).toEqual(['model_request_drift', 'model_index_overflow'])
    expectNoSecret(out.result)
    expectNoSecret(JSON.stringify(out.divergences))
  })
})

describe('reading a fixture', () => {
  test('rejects a hand-inserted key with FLUX_CREDENTIAL_FOUND naming the file, line and JSON path, not the key', async () => {
    const server = await serve(['openai-chat/test_tool_use_basic.yaml'])
    const agent = async (lab: Lab) => {
      const client = new OpenAI({ baseURL: openaiBaseURL(server), apiKey: 'sk-test', maxRetries: 0 })
      const ask = async (content: string) => {
        const s = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], stream: true })
        for await (const _ of s);
      }
      await ask('first')
      await lab.tool('multiply', async () => 2869461)()
      await ask('second')
    }
    const rr = await recordThenReplay('tampered', server, agent)
    expect(rr.replayed.divergences).toEqual([])
    const file = join(rr.fixture, 'model.jsonl')
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n')
    const cell = JSON.parse(lines[1])
    cell.request.body.messages[0].content = `my key is ${KEYS.openai}`
    lines[1] = stableStringify(cell)
    writeFileSync(file, `${lines.join('\n')}\n`)

    const error = await scenario('tampered', { dir: join(rr.fixture, '..') }).catch((e: unknown) => e)
    expect(isFluxError(error, 'FLUX_CREDENTIAL_FOUND')).toBe(true)
    const message = (error as Error).message
    expect(message).toContain('model.jsonl:2')
    expect(message).toContain('request.body.messages[0].content')
    expect(message).toContain('openai-key')
    expectNoSecret(message)
    expectNoSecret((error as Error).stack ?? '')
  })
})

describe('writing a fixture', () => {
  const manifest: Manifest = {
    formatVersion: 1,
    fluxlabVersion: '0.1.0',
    name: 'leaky',
    recordedAt: '2026-01-01T00:00:00.000Z',
    models: ['gpt-4o-mini'],
    providerHosts: ['api.openai.com'],
    cassetteMaxBytes: 1024 * 1024,
    redaction: 'v1:00000000',
  }
  const cell = (content: string): ModelCell => ({
    seq: 1,
    step: 'model#1',
    key: `sha256:${'0'.repeat(64)}`,
    family: 'openai-chat',
    url: 'https://api.openai.com/v1/chat/completions',
    request: { method: 'POST', path: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content }] } },
    response: { status: 200, headers: { 'content-type': 'application/json' }, chunks: [{ t: 1, text: '{"choices":[]}' }] },
    usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
    text: '',
    toolCalls: [],
    durationMs: 1,
    truncated: false,
  })
  const tool = (output: unknown): ToolCell => ({
    seq: 2,
    step: 'tool#1',
    kind: 'fn',
    name: 'lookup',
    key: `sha256:${'1'.repeat(64)}`,
    args: {},
    output,
    durationMs: 1,
    truncated: false,
  })

  test.each([
    ['a model cell', () => ({ model: [cell(`key ${KEYS.anthropic}`)], tools: [], trace: 'ok\n' })],
    ['a tool cell', () => ({ model: [cell('hi')], tools: [tool({ token: KEYS.github })], trace: 'ok\n' })],
    ['trace.snap (written last)', () => ({ model: [cell('hi')], tools: [], trace: `final: ${KEYS.aws}\n` })],
  ])('an unredacted key in %s throws FLUX_CREDENTIAL_FOUND and writes nothing', (_, parts) => {
    const dir = join(tempDir(), 'leaky')
    let error: unknown
    try {
      writeFixture({ dir, manifest, ...parts() })
    } catch (e) {
      error = e
    }
    expect(isFluxError(error, 'FLUX_CREDENTIAL_FOUND')).toBe(true)
    expect((error as Error).message).toMatch(/Nothing was written/)
    expectNoSecret((error as Error).message)
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([])
  })

  test('an unredacted key leaves an existing fixture byte-identical', () => {
    const dir = join(tempDir(), 'leaky')
    writeFixture({ dir, manifest, model: [cell('hi')], tools: [], trace: 'ok\n' })
    const before = Object.fromEntries(listFiles(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]))
    expect(Object.keys(before)).toEqual(['model.jsonl', 'scenario.yaml', 'trace.snap'])
    expect(() => writeFixture({ dir, manifest, model: [cell('bye')], tools: [], trace: `final: ${KEYS.jwt}\n` })).toThrow(/credential_found/)
    expect(Object.fromEntries(listFiles(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]))).toEqual(before)
  })
})

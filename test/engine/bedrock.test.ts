/**
 * AWS Bedrock (issue 16): the real `@aws-sdk/client-bedrock-runtime` (node:http, SigV4, binary
 * event streams) against a local Bedrock Runtime. Record a tool call and its answer through
 * Converse, ConverseStream, InvokeModel and InvokeModelWithResponseStream, then replay with the
 * AWS keys unset and CI=1: the SDK gets the same frames at the same byte boundaries (its CRC32
 * checks pass), the trace has usage and cost, and no credential reaches the fixture.
 */
import { randomBytes } from 'node:crypto'
import { createServer as createHttp2Server } from 'node:http2'
import type { AddressInfo } from 'node:net'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
  InternalServerException,
  InvokeModelWithResponseStreamCommand,
  ServiceUnavailableException,
  ThrottlingException,
  type ContentBlock,
  type Message,
} from '@aws-sdk/client-bedrock-runtime'
import { NodeHttpHandler } from '@smithy/node-http-handler'
import { scenario, type Lab } from 'fluxlab'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { readFixture } from '../../src/cassette/fixture.js'
import { renderHtml } from '../../src/cli/html/render.js'
import { runView } from '../../src/cli/steps.js'
import { PRICES_AS_OF } from '../../src/pricing/table.js'
import { ANSWER, TOOL_USE_ID, frame, startBedrockServer, type BedrockServer } from '../support/bedrock-server.js'
import { readJsonl, tempDir, track, useEngineSandbox } from './helpers.js'

useEngineSandbox()

// Real-looking, made-up credentials built at run time (no key-shaped literal in the repository): an STS
// access key id (ASIA…), its secret, and a session token; and a long-term key id (AKIA…) a model echoes.
const pick = (alphabet: string, n: number) => [...randomBytes(n)].map((b) => alphabet[b % alphabet.length]).join('')
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
const ACCESS_KEY_ID = ['AS', 'IA', pick(UPPER, 16)].join('')
const LONG_TERM_KEY_ID = ['AK', 'IA', pick(UPPER, 16)].join('')
const SECRET_ACCESS_KEY = pick('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+', 40)
const SESSION_TOKEN = `IQoJb3JpZ2luX2Vj${pick('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+', 600)}`
const AWS_VARS = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE', 'AWS_REGION', 'AWS_EC2_METADATA_DISABLED'] as const
const saved: Record<string, string | undefined> = {}
beforeEach(() => {
  for (const k of AWS_VARS) {
    saved[k] = process.env[k]
    delete process.env[k]
  }
  // The credential chain must never ask an instance metadata service (a link-local address) in these tests.
  process.env.AWS_EC2_METADATA_DISABLED = 'true'
})
afterEach(() => {
  for (const k of AWS_VARS) {
    if (saved[k] === undefined) delete process.env[k]
    else process.env[k] = saved[k]
  }
})

const MODEL = 'anthropic.claude-3-5-haiku-20241022-v1:0'
const TOOLS = {
  tools: [
    {
      toolSpec: { name: 'get_weather', description: 'Weather in a city.', inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } } } } },
    },
  ],
}

/**
 * The client a user builds: credentials from the environment (the default chain), the endpoint of the local Bedrock.
 * @note the Bedrock Runtime client sends over HTTP/2 by default (`NodeHttp2Handler`), which no interception
 * sees; its HTTP/1.1 handler, the one every other AWS client uses, is (docs/providers.md).
 */
const client = (server: BedrockServer) =>
  new BedrockRuntimeClient({ region: 'us-east-1', endpoint: server.url, maxAttempts: 1, requestHandler: new NodeHttpHandler() })

async function record<R>(server: BedrockServer, name: string, agent: (lab: Lab) => Promise<R>) {
  const dir = tempDir()
  process.env.AWS_ACCESS_KEY_ID = ACCESS_KEY_ID
  process.env.AWS_SECRET_ACCESS_KEY = SECRET_ACCESS_KEY
  process.env.AWS_SESSION_TOKEN = SESSION_TOKEN
  const s = await scenario(name, { dir })
  expect(s.mode).toBe('record')
  const recorded = await s.run(agent)
  const hits = server.requests.length
  await server.close()
  delete process.env.AWS_ACCESS_KEY_ID
  delete process.env.AWS_SECRET_ACCESS_KEY
  delete process.env.AWS_SESSION_TOKEN
  process.env.CI = '1'
  const again = await scenario(name, { dir })
  expect(again.mode).toBe('replay')
  const replayed = await again.run(agent)
  // The placeholders are gone again after the run.
  expect(process.env.AWS_ACCESS_KEY_ID).toBeUndefined()
  return { recorded, replayed, hits, fixture: join(dir, name) }
}

/** Every file of a fixture as one string: what must hold no credential. */
const fixtureText = (dir: string) =>
  readdirSync(dir)
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n')

function expectNoCredentials(dir: string): void {
  const all = fixtureText(dir)
  for (const secret of [ACCESS_KEY_ID, LONG_TERM_KEY_ID, SECRET_ACCESS_KEY, SESSION_TOKEN.slice(16, 56), 'Credential=', 'Signature='])
    expect(all).not.toContain(secret)
}

const userTurn: Message = { role: 'user', content: [{ text: 'Weather in Paris?' }] }
const toolResult = (id: string, json: Record<string, string | number>): Message => ({
  role: 'user',
  content: [{ toolResult: { toolUseId: id, content: [{ json }] } }],
})
/** The agent's tool, wrapped so replay never runs it. */
const weatherTool = (lab: Lab) => lab.tool('get_weather', async ({ city }: { city: string }, _o: { toolCallId: string }) => ({ city, tempC: 18, sky: 'sunny' }))

describe('@aws-sdk/client-bedrock-runtime', () => {
  test('Converse: a tool call, then the answer, identically in replay with the AWS keys unset', async () => {
    const server = await startBedrockServer()
    track(server)
    const agent = async (lab: Lab) => {
      const bedrock = client(server)
      const weather = weatherTool(lab)
      const first = await bedrock.send(new ConverseCommand({ modelId: MODEL, system: [{ text: 'Answer briefly.' }], messages: [userTurn], toolConfig: TOOLS }))
      const call = first.output?.message?.content?.find((b): b is ContentBlock.ToolUseMember => 'toolUse' in b && b.toolUse !== undefined)?.toolUse
      const second = await bedrock.send(
        new ConverseCommand({
          modelId: MODEL,
          system: [{ text: 'Answer briefly.' }],
          messages: [
            userTurn,
            first.output!.message!,
            toolResult(call!.toolUseId!, await weather(call!.input as { city: string }, { toolCallId: call!.toolUseId! })),
          ],
          toolConfig: TOOLS,
        }),
      )
      return { call, stop: [first.stopReason, second.stopReason], text: second.output?.message?.content?.[0]?.text, usage: [first.usage, second.usage] }
    }
    const { recorded, replayed, hits, fixture } = await record(server, 'converse', agent)
    expect(hits).toBe(2)
    expect(recorded.result).toEqual({
      call: { toolUseId: TOOL_USE_ID, name: 'get_weather', input: { city: 'Paris' } },
      stop: ['tool_use', 'end_turn'],
      text: ANSWER,
      usage: [
        { inputTokens: 380, outputTokens: 51, totalTokens: 431 },
        { inputTokens: 412, outputTokens: 14, totalTokens: 426 },
      ],
    })
    expect(replayed.result).toEqual(recorded.result)
    expect(replayed.hermetic).toBe(true)
    expect(replayed.divergences).toEqual([])
    // The signed request carried the credentials; the fixture does not.
    expect(String(server.requests[0].headers.authorization)).toContain(`Credential=${ACCESS_KEY_ID}/`)
    expect(server.requests[0].headers['x-amz-security-token']).toBe(SESSION_TOKEN)
    expectNoCredentials(fixture)
    const cells = readJsonl(join(fixture, 'model.jsonl'))
    expect(cells.map((c) => [c.family, c.model, c.finishReason, c.usage.input, c.usage.output])).toEqual([
      ['bedrock', MODEL, 'tool_use', 380, 51],
      ['bedrock', MODEL, 'end_turn', 412, 14],
    ])
    expect(cells[0].toolCalls).toEqual([{ id: TOOL_USE_ID, name: 'get_weather', args: { city: 'Paris' } }])
    expect(cells[1].text).toBe(ANSWER)
    // Priced as Claude 3.5 Haiku ($0.8 / $4 per million tokens): 792 in, 65 out.
    expect(replayed.cost().total).toBeCloseTo((792 * 0.8 + 65 * 4) / 1e6, 9)
  })

  test('ConverseStream: the SDK reads the recorded event-stream frames, split where they were, with valid CRCs', async () => {
    const server = await startBedrockServer()
    track(server)
    const agent = async (lab: Lab) => {
      const bedrock = client(server)
      const weather = weatherTool(lab)
      const turns = []
      const messages: Message[] = [userTurn]
      for (let i = 0; i < 2; i++) {
        const res = await bedrock.send(new ConverseStreamCommand({ modelId: MODEL, messages, toolConfig: TOOLS }))
        const events: string[] = []
        let text = ''
        let input = ''
        let tool: { toolUseId?: string; name?: string } | undefined
        let usage: unknown
        let stop: string | undefined
        for await (const e of res.stream!) {
          events.push(Object.keys(e)[0])
          if (e.contentBlockStart?.start?.toolUse) tool = e.contentBlockStart.start.toolUse
          text += e.contentBlockDelta?.delta?.text ?? ''
          input += e.contentBlockDelta?.delta?.toolUse?.input ?? ''
          if (e.messageStop) stop = e.messageStop.stopReason
          if (e.metadata) usage = e.metadata.usage
        }
        turns.push({ events, text, tool, input, stop, usage })
        if (tool) {
          messages.push(
            { role: 'assistant', content: [{ toolUse: { toolUseId: tool.toolUseId, name: tool.name, input: JSON.parse(input) } }] },
            toolResult(tool.toolUseId!, await weather(JSON.parse(input), { toolCallId: tool.toolUseId! })),
          )
        }
      }
      return turns
    }
    const { recorded, replayed, fixture } = await record(server, 'converse-stream', agent)
    expect(recorded.result[0]).toMatchObject({ tool: { toolUseId: TOOL_USE_ID, name: 'get_weather' }, input: '{"city":"Paris"}', stop: 'tool_use' })
    expect(recorded.result[1]).toMatchObject({ text: ANSWER, stop: 'end_turn', usage: { inputTokens: 412, outputTokens: 14, totalTokens: 426 } })
    expect(recorded.result[1].events).toEqual(['messageStart', 'contentBlockDelta', 'contentBlockDelta', 'contentBlockStop', 'messageStop', 'metadata'])
    expect(replayed.result).toEqual(recorded.result)
    expect(replayed.divergences).toEqual([])
    const cells = readJsonl(join(fixture, 'model.jsonl'))
    // Stored byte-exact, at the boundaries the server wrote (frame 2 in two writes).
    for (const [i, cell] of cells.entries()) {
      const stored = cell.response.chunks.map((c: { text?: string; b64?: string }) =>
        c.b64 !== undefined ? Buffer.from(c.b64, 'base64') : Buffer.from(c.text!, 'utf8'),
      )
      const frames = server.written[i]
      expect(Buffer.concat(stored)).toEqual(Buffer.concat(frames))
      expect(stored.map((b: Buffer) => b.length)).toEqual([frames[0].length, 7, frames[1].length - 7, ...frames.slice(2).map((f) => f.length)])
      expect(cell.response.headers['content-type']).toBe('application/vnd.amazon.eventstream')
    }
    expect(cells.map((c) => [c.finishReason, c.usage.input, c.usage.output, c.text])).toEqual([
      ['tool_use', 380, 51, ''],
      ['end_turn', 412, 14, ANSWER],
    ])
    expect(cells[0].toolCalls).toEqual([{ id: TOOL_USE_ID, name: 'get_weather', args: { city: 'Paris' } }])
    expectNoCredentials(fixture)
    // The viewer shows the frames decoded, one a line, not the binary body.
    const fx = readFixture(fixture)
    const view = runView(fx)
    const body = view.steps.find((s) => s.channel === 'model')!.responseBody!
    expect(body.split('\n').map((l) => l.split(' ').slice(0, 2).join(' '))).toEqual([
      'event messageStart',
      'event contentBlockStart',
      'event contentBlockDelta',
      'event contentBlockDelta',
      'event contentBlockStop',
      'event messageStop',
      'event metadata',
    ])
    expect(body).toContain(`event contentBlockStart {"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"${TOOL_USE_ID}","name":"get_weather"}}`)
    expect(renderHtml(view, { dir: fixture, manifest: fx.manifest, pricesAsOf: PRICES_AS_OF })).toContain(
      'event metadata {&quot;usage&quot;:{&quot;inputTokens&quot;:380',
    )
  })

  test('InvokeModel and InvokeModelWithResponseStream with a Claude body: read by the Anthropic parser, replayed', async () => {
    const server = await startBedrockServer()
    track(server)
    const body = (messages: unknown[]) =>
      JSON.stringify({
        anthropic_version: 'bedrock-2023-05-31',
        max_tokens: 200,
        system: 'Answer briefly.',
        tools: [{ name: 'get_weather', input_schema: { type: 'object' } }],
        messages,
      })
    const agent = async (lab: Lab) => {
      const bedrock = client(server)
      const weather = weatherTool(lab)
      const user = { role: 'user', content: 'Weather in Paris?' }
      const first = JSON.parse(
        new TextDecoder().decode((await bedrock.send(new InvokeModelCommand({ modelId: MODEL, contentType: 'application/json', body: body([user]) }))).body),
      )
      const tool = first.content[0]
      const next = [
        user,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: tool.id, content: JSON.stringify(await weather(tool.input, { toolCallId: tool.id })) }] },
      ]
      const res = await bedrock.send(new InvokeModelWithResponseStreamCommand({ modelId: MODEL, contentType: 'application/json', body: body(next) }))
      let text = ''
      for await (const e of res.body!) {
        const event = JSON.parse(new TextDecoder().decode(e.chunk!.bytes))
        if (event.type === 'content_block_delta') text += event.delta.text
      }
      return { tool: tool.name, args: tool.input, text }
    }
    const { recorded, replayed, fixture } = await record(server, 'invoke', agent)
    expect(recorded.result).toEqual({ tool: 'get_weather', args: { city: 'Paris' }, text: ANSWER })
    expect(replayed.result).toEqual(recorded.result)
    expect(replayed.divergences).toEqual([])
    const cells = readJsonl(join(fixture, 'model.jsonl'))
    expect(cells.map((c) => [c.family, c.model, c.finishReason, c.usage.input, c.usage.output, c.text])).toEqual([
      ['bedrock', MODEL, 'tool_use', 371, 48, ''],
      ['bedrock', MODEL, 'end_turn', 402, 15, ANSWER],
    ])
    expect(cells[0].toolCalls).toEqual([{ id: 'toolu_bdrk_01A9F2xQ7uN3kLpV8sWcYtRz', name: 'get_weather', args: { city: 'Paris' } }])
    expectNoCredentials(fixture)
  })

  test('credentials the model streams back (one split across two frames and two chunks) are redacted inside the frames; the SDK replays valid frames', async () => {
    const half = LONG_TERM_KEY_ID.length / 2
    const secretFrames = [
      frame('messageStart', { role: 'assistant' }),
      frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: `Found ${ACCESS_KEY_ID} and ${LONG_TERM_KEY_ID.slice(0, half)}` } }),
      frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: `${LONG_TERM_KEY_ID.slice(half)}; aws_secret_access_key=${SECRET_ACCESS_KEY}` } }),
      frame('contentBlockStop', { contentBlockIndex: 0 }),
      frame('messageStop', { stopReason: 'end_turn' }),
      frame('metadata', { usage: { inputTokens: 30, outputTokens: 40, totalTokens: 70 }, metrics: { latencyMs: 90 } }),
    ]
    const frames = Buffer.concat(secretFrames)
    // Written in two chunks that cut frame 3 (and so the key's second half) in the middle.
    const cut = secretFrames[0].length + secretFrames[1].length + 30
    const server = await startBedrockServer(() => ({
      status: 200,
      headers: { 'content-type': 'application/vnd.amazon.eventstream' },
      body: [frames.subarray(0, cut), frames.subarray(cut)],
    }))
    track(server)
    const agent = async () => {
      const res = await client(server).send(new ConverseStreamCommand({ modelId: MODEL, messages: [userTurn] }))
      let text = ''
      const events: string[] = []
      for await (const e of res.stream!) {
        events.push(Object.keys(e)[0])
        text += e.contentBlockDelta?.delta?.text ?? ''
      }
      return { text, events }
    }
    const { recorded, replayed, fixture } = await record(server, 'secret-stream', agent)
    expect(recorded.result.text).toBe(`Found ${ACCESS_KEY_ID} and ${LONG_TERM_KEY_ID}; aws_secret_access_key=${SECRET_ACCESS_KEY}`)
    // Replay: every frame decodes (the SDK checks both CRC32s of each) and carries placeholders.
    expect(replayed.result.events).toEqual(recorded.result.events)
    expect(replayed.result.text).toMatch(/^Found \[REDACTED:[0-9a-f]{8}\] and \[REDACTED:[0-9a-f]{8}\]; aws_secret_access_key=\[REDACTED:[0-9a-f]{8}\]$/)
    expectNoCredentials(fixture)
    const [cell] = readJsonl(join(fixture, 'model.jsonl'))
    expect(cell.text).toBe(replayed.result.text)
    expect(cell.response.chunks).toHaveLength(secretFrames.length)
  })

  test("the client's default HTTP/2 handler is not intercepted, and a warning names the host and the fix", async () => {
    // A local Bedrock over cleartext HTTP/2, which is what the default handler speaks to an http:// endpoint.
    const h2 = createHttp2Server((req, res) => {
      req.resume()
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(
          JSON.stringify({
            output: { message: { role: 'assistant', content: [{ text: ANSWER }] } },
            stopReason: 'end_turn',
            usage: { inputTokens: 5, outputTokens: 9, totalTokens: 14 },
          }),
        )
      })
    })
    await new Promise<void>((r) => h2.listen(0, '127.0.0.1', r))
    track({ close: () => new Promise<void>((r) => h2.close(() => r())) })
    const origin = `http://127.0.0.1:${(h2.address() as AddressInfo).port}`
    const warnings: Array<Error & { code?: string }> = []
    const onWarning = (w: Error & { code?: string }) => warnings.push(w)
    process.on('warning', onWarning)
    process.env.AWS_ACCESS_KEY_ID = ACCESS_KEY_ID
    process.env.AWS_SECRET_ACCESS_KEY = SECRET_ACCESS_KEY
    try {
      const s = await scenario('http2', { dir: tempDir() })
      const out = await s
        .run(async () => {
          const bedrock = new BedrockRuntimeClient({ region: 'us-east-1', endpoint: origin, maxAttempts: 1 })
          const r = await bedrock.send(new ConverseCommand({ modelId: MODEL, messages: [userTurn] }))
          bedrock.destroy()
          return r.output?.message?.content?.[0]?.text
        })
        .catch((e: Error) => e)
      await new Promise((r) => setImmediate(r))
      const mine = warnings.filter((w) => w.code === 'FLUX_HTTP2_UNSEEN')
      expect(mine.map((w) => w.message)).toEqual([
        `[fluxlab] an HTTP/2 session to ${origin} is not intercepted: its requests are neither recorded nor replayed (they go to the network). A Bedrock Runtime client sends over HTTP/2 by default: give it the HTTP/1.1 handler, \`new BedrockRuntimeClient({ requestHandler: new NodeHttpHandler() })\` (from '@smithy/node-http-handler').`,
      ])
      // Not intercepted: the client got its answer from the network, and the run saw no model call.
      expect(out).not.toBeInstanceOf(Error)
      const outcome = out as Exclude<typeof out, Error>
      expect(outcome.result).toBe(ANSWER)
      expect(outcome.modelCalls).toEqual([])
    } finally {
      process.off('warning', onWarning)
    }
  })

  test('under FLUX_OFFLINE an HTTP/2 session is refused before it connects (issue 24: 263 Bedrock connects left a suite)', async () => {
    let connections = 0
    const h2 = createHttp2Server(() => {})
    h2.on('connection', () => connections++)
    await new Promise<void>((r) => h2.listen(0, '127.0.0.1', r))
    track({ close: () => new Promise<void>((r) => h2.close(() => r())) })
    const origin = `http://127.0.0.1:${(h2.address() as AddressInfo).port}`
    const dir = tempDir()
    const agent = async () => {
      const bedrock = new BedrockRuntimeClient({
        region: 'us-east-1',
        endpoint: origin,
        maxAttempts: 1,
        credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET_ACCESS_KEY },
      })
      try {
        return await bedrock.send(new ConverseCommand({ modelId: MODEL, messages: [userTurn] }))
      } finally {
        bedrock.destroy()
      }
    }
    // A fixture of another call, so the scenario replays (FLUX_OFFLINE refuses a recording at once).
    const server = await startBedrockServer()
    track(server)
    await (await scenario('offline-h2', { dir })).run(async () => {
      const bedrock = new BedrockRuntimeClient({
        region: 'us-east-1',
        endpoint: server.url,
        maxAttempts: 1,
        requestHandler: new NodeHttpHandler(),
        credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET_ACCESS_KEY },
      })
      await bedrock.send(new ConverseCommand({ modelId: MODEL, messages: [userTurn] }))
    })
    process.env.FLUX_OFFLINE = '1'
    const failed = await (await scenario('offline-h2', { dir })).run(agent).then(
      () => undefined,
      (e: Error) => e,
    )
    expect(String(failed)).toContain('FLUX_OFFLINE: Failed to open an HTTP/2 session to')
    expect(connections).toBe(0)
  })

  describe('injected faults reach the SDK as its own exceptions', () => {
    const converseLoop = (server: BedrockServer, maxAttempts: number) => async (lab: Lab) => {
      const bedrock = new BedrockRuntimeClient({
        region: 'us-east-1',
        endpoint: server.url,
        maxAttempts,
        retryMode: 'standard',
        requestHandler: new NodeHttpHandler(),
      })
      const weather = weatherTool(lab)
      const first = await bedrock.send(new ConverseCommand({ modelId: MODEL, messages: [userTurn], toolConfig: TOOLS }))
      const call = first.output!.message!.content!.find((b) => b.toolUse)!.toolUse!
      const second = await bedrock.send(
        new ConverseCommand({
          modelId: MODEL,
          messages: [
            userTurn,
            first.output!.message!,
            toolResult(call.toolUseId!, await weather(call.input as { city: string }, { toolCallId: call.toolUseId! })),
          ],
          toolConfig: TOOLS,
        }),
      )
      return second.output?.message?.content?.[0]?.text
    }
    async function recorded() {
      const server = await startBedrockServer()
      track(server)
      const dir = tempDir()
      process.env.AWS_ACCESS_KEY_ID = ACCESS_KEY_ID
      process.env.AWS_SECRET_ACCESS_KEY = SECRET_ACCESS_KEY
      await (await scenario('faults', { dir })).run(converseLoop(server, 1))
      await server.close()
      delete process.env.AWS_ACCESS_KEY_ID
      delete process.env.AWS_SECRET_ACCESS_KEY
      return { s: await scenario('faults', { dir }), server }
    }

    test.each([
      [429, ThrottlingException],
      [500, InternalServerException],
      [503, ServiceUnavailableException],
    ] as const)('an injected %i is the SDK exception when it may not retry, and is retried from the tape when it may', async (status, Exception) => {
      const { s, server } = await recorded()
      const refused = await s.injectAt('model#2', { status }).run(converseLoop(server, 1))
      expect(refused.error).toBeInstanceOf(Exception)
      expect(String((refused.error as Error).message)).toContain('injected by fluxlab')
      const retried = await s.injectAt('model#2', { status }).run(converseLoop(server, 2))
      expect(retried.error).toBeUndefined()
      expect(retried.result).toBe(ANSWER)
      expect(retried.modelCalls.map((c) => c.status)).toEqual([200, status, 200])
    })
  })
})

/**
 * A local AWS Bedrock Runtime on 127.0.0.1 (port 0) for the real `@aws-sdk/client-bedrock-runtime`:
 * Converse and InvokeModel answer JSON; ConverseStream and InvokeModelWithResponseStream answer
 * binary AWS event streams (`application/vnd.amazon.eventstream`) written by the SDK's own codec
 * (`@smithy/core/event-streams`, what `@smithy/eventstream-codec` re-exports), one flushed write
 * per frame, and one frame split across two writes so a boundary falls inside a frame.
 *
 * Point the client at it with `endpoint: server.url` (and any credentials; it does not check the
 * signature, it keeps the headers so tests can). Never contacts any public address.
 *
 * Each call answers a two-step tool exchange: a request whose last message carries no tool result
 * is answered with a `get_weather` tool call, one that carries a result with the text
 * `It is 18°C and sunny in Paris.` (a non-ASCII character, so frames are not all UTF-8 aligned).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { EventStreamCodec } from '@smithy/core/event-streams'

const codec = new EventStreamCodec(
  (b) => Buffer.from(b).toString('utf8'),
  (s) => new Uint8Array(Buffer.from(s, 'utf8')),
)

/** One AWS event stream frame, as Bedrock writes it. */
export function frame(eventType: string, payload: unknown, messageType: 'event' | 'exception' = 'event'): Uint8Array {
  const typeHeader = messageType === 'event' ? ':event-type' : ':exception-type'
  return codec.encode({
    headers: {
      ':message-type': { type: 'string', value: messageType },
      [typeHeader]: { type: 'string', value: eventType },
      ':content-type': { type: 'string', value: 'application/json' },
    },
    body: new Uint8Array(Buffer.from(JSON.stringify(payload), 'utf8')),
  })
}

export const ANSWER = 'It is 18°C and sunny in Paris.'
export const TOOL_USE_ID = 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q'

export interface BedrockRequest {
  path: string
  headers: IncomingHttpHeaders
  json: Record<string, unknown>
}

export interface BedrockServer {
  url: string
  requests: BedrockRequest[]
  /** The frames (bytes) each streamed answer was written as, in order. */
  written: Uint8Array[][]
  close(): Promise<void>
}

/** Bedrock's `p` field: padding of random length that hides the payload's size. */
const pad = (n: number) => 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123'.slice(0, n)

function wantsAnswer(json: Record<string, unknown>): boolean {
  const messages = (json.messages ?? []) as Array<{ content?: unknown }>
  const last = JSON.stringify(messages.at(-1)?.content ?? '')
  return last.includes('toolResult') || last.includes('tool_result')
}

function converseJson(answer: boolean): unknown {
  const content = answer ? [{ text: ANSWER }] : [{ toolUse: { toolUseId: TOOL_USE_ID, name: 'get_weather', input: { city: 'Paris' } } }]
  return {
    output: { message: { role: 'assistant', content } },
    stopReason: answer ? 'end_turn' : 'tool_use',
    usage: answer ? { inputTokens: 412, outputTokens: 14, totalTokens: 426 } : { inputTokens: 380, outputTokens: 51, totalTokens: 431 },
    metrics: { latencyMs: 612 },
  }
}

function converseFrames(answer: boolean): Uint8Array[] {
  const body = answer
    ? [
        frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'It is 18°C' }, p: pad(7) }),
        frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: ' and sunny in Paris.' }, p: pad(13) }),
        frame('contentBlockStop', { contentBlockIndex: 0, p: pad(3) }),
      ]
    : [
        frame('contentBlockStart', { contentBlockIndex: 0, start: { toolUse: { toolUseId: TOOL_USE_ID, name: 'get_weather' } }, p: pad(11) }),
        frame('contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input: '{"city":' } }, p: pad(5) }),
        frame('contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input: '"Paris"}' } }, p: pad(9) }),
        frame('contentBlockStop', { contentBlockIndex: 0, p: pad(2) }),
      ]
  return [
    frame('messageStart', { role: 'assistant', p: pad(20) }),
    ...body,
    frame('messageStop', { stopReason: answer ? 'end_turn' : 'tool_use', p: pad(4) }),
    frame('metadata', {
      usage: answer ? { inputTokens: 412, outputTokens: 14, totalTokens: 426 } : { inputTokens: 380, outputTokens: 51, totalTokens: 431 },
      metrics: { latencyMs: 598 },
      p: pad(6),
    }),
  ]
}

/** Claude's native Messages answer (InvokeModel with an `anthropic_version` body). */
function anthropicJson(answer: boolean, model: string): unknown {
  const content = answer
    ? [{ type: 'text', text: ANSWER }]
    : [{ type: 'tool_use', id: 'toolu_bdrk_01A9F2xQ7uN3kLpV8sWcYtRz', name: 'get_weather', input: { city: 'Paris' } }]
  return {
    id: 'msg_bdrk_01HcXq2Lk9vV7fTgYwPzR3mN',
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: answer ? 'end_turn' : 'tool_use',
    stop_sequence: null,
    usage: answer ? { input_tokens: 402, output_tokens: 15 } : { input_tokens: 371, output_tokens: 48 },
  }
}

/** Claude's native stream events, each wrapped as Bedrock does: a `chunk` frame of `{"bytes": base64}`. */
function anthropicStreamFrames(model: string): Uint8Array[] {
  const events = [
    {
      type: 'message_start',
      message: {
        id: 'msg_bdrk_01Stream',
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        usage: { input_tokens: 402, output_tokens: 1 },
      },
    },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'It is 18°C' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' and sunny in Paris.' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 15 } },
    { type: 'message_stop', 'amazon-bedrock-invocationMetrics': { inputTokenCount: 402, outputTokenCount: 15, invocationLatency: 700, firstByteLatency: 300 } },
  ]
  return events.map((e) => frame('chunk', { bytes: Buffer.from(JSON.stringify(e)).toString('base64'), p: pad(5) }))
}

/**
 * Start the server. `override` may answer a request itself (a throttle, an error frame).
 * @example
 * const server = await startBedrockServer()
 * const client = new BedrockRuntimeClient({ region: 'us-east-1', endpoint: server.url, credentials })
 */
export async function startBedrockServer(
  override?: (req: BedrockRequest) => { status: number; headers: Record<string, string>; body: Uint8Array | Uint8Array[] } | undefined,
): Promise<BedrockServer> {
  const requests: BedrockRequest[] = []
  const written: Uint8Array[][] = []
  const server = createServer(async (req, res) => {
    const parts: Buffer[] = []
    for await (const c of req) parts.push(c as Buffer)
    const text = Buffer.concat(parts).toString('utf8')
    const path = req.url ?? '/'
    const json = (text ? JSON.parse(text) : {}) as Record<string, unknown>
    const received = { path, headers: req.headers, json }
    requests.push(received)
    const m = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream)$/.exec(path)
    const special = override?.(received)
    if (special) {
      res.writeHead(special.status, { 'x-amzn-requestid': crypto.randomUUID(), ...special.headers })
      for (const b of Array.isArray(special.body) ? special.body : [special.body]) {
        res.write(b)
        await sleep(5)
      }
      res.end()
      return
    }
    if (!m) {
      res.writeHead(404, { 'content-type': 'application/json', 'x-amzn-errortype': 'UnknownOperationException' })
      res.end(JSON.stringify({ message: `no route ${path}` }))
      return
    }
    const model = decodeURIComponent(m[1])
    const answer = wantsAnswer(json)
    const head = { 'x-amzn-requestid': crypto.randomUUID(), date: new Date().toUTCString() }
    if (m[2] === 'converse' || m[2] === 'invoke') {
      const body = m[2] === 'converse' ? converseJson(answer) : anthropicJson(answer, model.replace(/^(?:us\.)?anthropic\./, '').replace(/-v\d+:\d+$/, ''))
      res.writeHead(200, { ...head, 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
      return
    }
    const frames = m[2] === 'converse-stream' ? converseFrames(answer) : anthropicStreamFrames(model)
    written.push(frames)
    res.writeHead(200, { ...head, 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-bedrock-content-type': 'application/json' })
    for (const [i, f] of frames.entries()) {
      // One frame split in two writes: a chunk boundary inside a frame (at byte 7, inside the prelude).
      // @note 25 ms apart, so the reader sees each write as its own chunk even on a loaded machine.
      if (i === 1) {
        res.write(f.subarray(0, 7))
        await sleep(25)
        res.write(f.subarray(7))
      } else res.write(f)
      await sleep(25)
    }
    res.end()
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    written,
    close: () => new Promise<void>((r) => server.close(() => r())),
  }
}

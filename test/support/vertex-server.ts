/**
 * A local Vertex AI on 127.0.0.1 (port 0): Claude (`…/publishers/anthropic/models/<m>:rawPredict`
 * and `:streamRawPredict`, Anthropic's Messages format) and Gemini (`…/publishers/google/models/<m>:
 * generateContent` and `:streamGenerateContent?alt=sse`). Each answers a two-step tool exchange:
 * a `get_weather` call first, then `It is 18°C and sunny in Paris.` once a tool result comes back.
 *
 * Point `@anthropic-ai/vertex-sdk` at it with `baseURL: server.url + '/v1'`, and `@ai-sdk/google-vertex`
 * with `baseURL: server.url + '/v1/projects/<p>/locations/<l>/publishers/google'`; give both a
 * google-auth-library client holding an access token, so no Google auth call is made. The request
 * headers are kept, so tests can check what was sent. Never contacts any public address.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'

export const ANSWER = 'It is 18°C and sunny in Paris.'

export interface VertexRequest {
  path: string
  headers: IncomingHttpHeaders
  json: Record<string, any>
}

export interface VertexServer {
  url: string
  requests: VertexRequest[]
  close(): Promise<void>
}

const CLAUDE = /\/v1\/projects\/[^/]+\/locations\/[^/]+\/publishers\/anthropic\/models\/([^/:]+):(rawPredict|streamRawPredict)$/
const GEMINI = /\/v1\/projects\/[^/]+\/locations\/[^/]+\/publishers\/google\/models\/([^/:]+):(generateContent|streamGenerateContent)(\?alt=sse)?$/

const sse = (events: unknown[], named: boolean) => events.map((e) => `${named ? `event: ${(e as { type: string }).type}\n` : ''}data: ${JSON.stringify(e)}\n\n`)

function claude(answer: boolean, model: string, stream: boolean): { type: string; body: string[] } {
  const usage = answer ? { input_tokens: 420, output_tokens: 16 } : { input_tokens: 388, output_tokens: 54 }
  const content = answer
    ? [{ type: 'text', text: ANSWER }]
    : [{ type: 'tool_use', id: 'toolu_vrtx_01Kq8ZcN3xWm5Rt7Yb2LpD4f', name: 'get_weather', input: { city: 'Paris' } }]
  const stop = answer ? 'end_turn' : 'tool_use'
  if (!stream)
    return {
      type: 'application/json',
      body: [JSON.stringify({ id: 'msg_vrtx_01AbCdEfGh', type: 'message', role: 'assistant', model, content, stop_reason: stop, stop_sequence: null, usage })],
    }
  const block = answer ? { type: 'text', text: '' } : { type: 'tool_use', id: 'toolu_vrtx_01Kq8ZcN3xWm5Rt7Yb2LpD4f', name: 'get_weather', input: {} }
  const deltas = answer
    ? [
        { type: 'text_delta', text: 'It is 18°C' },
        { type: 'text_delta', text: ' and sunny in Paris.' },
      ]
    : [
        { type: 'input_json_delta', partial_json: '{"city":' },
        { type: 'input_json_delta', partial_json: '"Paris"}' },
      ]
  return {
    type: 'text/event-stream',
    body: sse(
      [
        {
          type: 'message_start',
          message: {
            id: 'msg_vrtx_01AbCdEfGh',
            type: 'message',
            role: 'assistant',
            model,
            content: [],
            stop_reason: null,
            usage: { input_tokens: usage.input_tokens, output_tokens: 1 },
          },
        },
        { type: 'content_block_start', index: 0, content_block: block },
        ...deltas.map((delta) => ({ type: 'content_block_delta', index: 0, delta })),
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } },
        { type: 'message_stop' },
      ],
      true,
    ),
  }
}

function gemini(answer: boolean, model: string, stream: boolean): { type: string; body: string[] } {
  const usageMetadata = answer
    ? { promptTokenCount: 95, candidatesTokenCount: 12, totalTokenCount: 107, trafficType: 'ON_DEMAND' }
    : { promptTokenCount: 61, candidatesTokenCount: 5, totalTokenCount: 66, trafficType: 'ON_DEMAND' }
  const parts = answer ? [{ text: ANSWER }] : [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }]
  const whole = {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP' }],
    usageMetadata,
    modelVersion: model,
    createTime: '2026-12-01T15:00:00.000000Z',
    responseId: 'vrtxResp01',
  }
  if (!stream) return { type: 'application/json', body: [JSON.stringify(whole)] }
  if (!answer) return { type: 'text/event-stream', body: sse([whole], false) }
  return {
    type: 'text/event-stream',
    body: sse(
      [
        { candidates: [{ content: { role: 'model', parts: [{ text: 'It is 18°C' }] } }], usageMetadata: { trafficType: 'ON_DEMAND' }, modelVersion: model },
        { candidates: [{ content: { role: 'model', parts: [{ text: ' and sunny in Paris.' }] }, finishReason: 'STOP' }], usageMetadata, modelVersion: model },
      ],
      false,
    ),
  }
}

/**
 * Start the server.
 * @example
 * const server = await startVertexServer()
 * new AnthropicVertex({ baseURL: `${server.url}/v1`, region: 'us-east5', projectId: 'p', authClient })
 */
export async function startVertexServer(): Promise<VertexServer> {
  const requests: VertexRequest[] = []
  const server = createServer(async (req, res) => {
    const parts: Buffer[] = []
    for await (const c of req) parts.push(c as Buffer)
    const text = Buffer.concat(parts).toString('utf8')
    const path = req.url ?? '/'
    const json = (text ? JSON.parse(text) : {}) as Record<string, any>
    requests.push({ path, headers: req.headers, json })
    const last = JSON.stringify((json.messages ?? json.contents ?? []).at(-1) ?? '')
    const answer = last.includes('tool_result') || last.includes('functionResponse')
    const c = CLAUDE.exec(path)
    const g = GEMINI.exec(path)
    const out = c ? claude(answer, c[1], c[2] === 'streamRawPredict') : g ? gemini(answer, g[1], g[2] === 'streamGenerateContent') : undefined
    if (!out) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 404, message: `no route ${path}`, status: 'NOT_FOUND' } }))
      return
    }
    res.writeHead(200, { 'content-type': out.type, 'x-vertex-ai-internal-prediction-backend': 'harpoon' })
    for (const piece of out.body) {
      res.write(piece)
      await sleep(5)
    }
    res.end()
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise<void>((r) => server.close(() => r())) }
}

/**
 * The "model" this example was recorded against: a scripted, deterministic
 * OpenAI-compatible Chat Completions server on 127.0.0.1, so anyone can
 * re-record the fixtures without a key (`FLUX_GOLDEN=update`). It reads the
 * conversation and answers the way a support model would: ask for
 * `issue_refund`, then confirm or apologise from the tool result. Point
 * `OPENAI_BASE_URL`/`OPENAI_API_KEY` at a real provider to record for real.
 */
import { createHash } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

type Message = { role: string; content?: string | null; tool_calls?: unknown[] }

const hash = (s: string, n: number) => createHash('sha256').update(s).digest('base64url').replace(/[^A-Za-z0-9]/g, '').slice(0, n)
const tokens = (s: string) => Math.ceil(s.length / 4)
const DATED: Record<string, string> = { 'gpt-4o-mini': 'gpt-4o-mini-2024-07-18', 'gpt-4.1-mini': 'gpt-4.1-mini-2025-04-14' }

/**
 * One Chat Completions response for a request body.
 * @example
 * reply({ model: 'gpt-4o-mini', messages }) // { object: 'chat.completion', choices: [...] }
 */
export function reply(body: { model: string; messages: Message[] }): object {
  const messages = body.messages
  const last = messages[messages.length - 1]
  const system = String(messages.find((m) => m.role === 'system')?.content ?? '')
  let message: Record<string, unknown>
  let finish: string
  if (last?.role === 'tool') {
    const r = JSON.parse(String(last.content)) as { status: string; refundId?: string; reason?: string }
    const order = orderOf(messages)
    message = {
      role: 'assistant',
      content:
        r.status === 'refunded'
          ? `Done: I refunded $${order.amount} for order ${order.orderId} (refund ${r.refundId}).`
          : `Sorry, the refund for order ${order.orderId} could not be completed (${r.reason}). The payment was voided and we emailed ${order.customer}; a specialist will retry it.`,
      refusal: null,
    }
    finish = 'stop'
  } else {
    const order = orderOf(messages)
    const limit = /escalate refunds over \$(\d+)/i.exec(system)
    if (limit && order.amount > Number(limit[1])) {
      message = { role: 'assistant', content: `Order ${order.orderId} is over the $${limit[1]} limit, so I have escalated it to a specialist.`, refusal: null }
      finish = 'stop'
    } else {
      const args = JSON.stringify({ orderId: order.orderId, amount: order.amount })
      message = { role: 'assistant', content: null, refusal: null, tool_calls: [{ id: `call_${hash(`${system}|${args}`, 24)}`, type: 'function', function: { name: 'issue_refund', arguments: args } }] }
      finish = 'tool_calls'
    }
  }
  const prompt = tokens(JSON.stringify(messages))
  const completion = tokens(JSON.stringify(message))
  return {
    id: `chatcmpl-${hash(JSON.stringify(body), 29)}`,
    object: 'chat.completion',
    created: 1767225600,
    model: DATED[body.model] ?? body.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    system_fingerprint: 'fp_support_model',
  }
}

function orderOf(messages: Message[]): { orderId: string; amount: number; customer: string } {
  const user = String(messages.find((m) => m.role === 'user')?.content ?? '')
  const json = /Order: (\{.*\})/.exec(user)?.[1]
  return json ? JSON.parse(json) : { orderId: '?', amount: 0, customer: '?' }
}

export interface SupportModel {
  /** `http://127.0.0.1:<port>` (use `${url}/v1` as the OpenAI base URL). */
  url: string
  /** Requests received so far. */
  readonly hits: number
  close(): Promise<void>
}

/**
 * Start the scripted support model on 127.0.0.1 (an ephemeral port).
 * @example
 * const model = await startSupportModel()
 * const client = new OpenAI({ baseURL: `${model.url}/v1`, apiKey: 'sk-local' })
 */
export async function startSupportModel(): Promise<SupportModel> {
  let hits = 0
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      hits++
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error' } }))
        return
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `req_${hits}` }).end(JSON.stringify(reply(body)))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    get hits() {
      return hits
    },
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r())
        server.closeAllConnections()
      }),
  }
}

/**
 * A refund agent with a saga: the model decides whether to refund; the refund
 * itself is two steps (pay it out, write it to the ledger), and when the second
 * step fails the first is undone (the payment is voided) and the customer is
 * told (compensation). Nothing here knows fluxlab exists: the services are plain
 * async functions, put on the tape by `lab.tools(services)` in the test.
 */
import OpenAI from 'openai'
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'

export interface Order {
  orderId: string
  amount: number
  customer: string
  status: string
}

/** The services the saga calls, by name (the names are the tool names on the tape). */
export interface Services {
  'orders.lookup': (args: { orderId: string }) => Promise<Order>
  'payments.refund': (args: { orderId: string; amount: number }) => Promise<{ refundId: string }>
  'ledger.record': (args: { refundId: string; orderId: string; amount: number }) => Promise<{ entry: string }>
  'payments.void': (args: { refundId: string }) => Promise<{ voided: boolean }>
  'notify.send': (args: { to: string; template: string; orderId: string }) => Promise<{ sent: boolean }>
}

export type RefundResult =
  | { status: 'refunded'; refundId: string; entry: string }
  | { status: 'failed'; reason: string; compensated: string[] }

export const SYSTEM_PROMPT = 'You are a support agent. Refund delivered orders that arrived damaged with issue_refund, then confirm to the customer in one sentence.'

const tools: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'issue_refund',
      description: 'Refund an order in full.',
      parameters: {
        type: 'object',
        properties: { orderId: { type: 'string' }, amount: { type: 'number' } },
        required: ['orderId', 'amount'],
        additionalProperties: false,
      },
    },
  },
]

export interface AgentOptions {
  client?: OpenAI
  /** Undo the payment and notify the customer when the ledger write fails (default true). */
  compensate?: boolean
  /** The system prompt (default `SYSTEM_PROMPT`). */
  system?: string
}

/**
 * The saga behind `issue_refund`: pay out, then record; if recording fails, void the payment and notify.
 * @example
 * await issueRefund(services, order, true)
 */
export async function issueRefund(services: Services, order: Order, compensate: boolean): Promise<RefundResult> {
  const { refundId } = await services['payments.refund']({ orderId: order.orderId, amount: order.amount })
  try {
    const { entry } = await services['ledger.record']({ refundId, orderId: order.orderId, amount: order.amount })
    return { status: 'refunded', refundId, entry }
  } catch (e) {
    if (!compensate) throw e
    await services['payments.void']({ refundId })
    await services['notify.send']({ to: order.customer, template: 'refund-delayed', orderId: order.orderId })
    return { status: 'failed', reason: (e as Error).message, compensated: ['payments.void', 'notify.send'] }
  }
}

/**
 * Handle one customer message about an order.
 * @example
 * const { answer } = await refundAgent('Order A-1001 arrived broken, please refund it.', services)
 */
export async function refundAgent(request: string, services: Services, opts: AgentOptions = {}): Promise<{ answer: string; refund?: RefundResult }> {
  const client = opts.client ?? new OpenAI()
  const orderId = /[A-Z]-\d+/.exec(request)?.[0]
  if (!orderId) return { answer: 'Which order is this about?' }
  const order = await services['orders.lookup']({ orderId })
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: opts.system ?? SYSTEM_PROMPT },
    { role: 'user', content: `${request}\n\nOrder: ${JSON.stringify(order)}` },
  ]
  let refund: RefundResult | undefined
  for (let turn = 0; turn < 4; turn++) {
    const res = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools })
    const msg = res.choices[0].message
    if (!msg.tool_calls?.length) return { answer: msg.content ?? '', refund }
    messages.push(msg)
    for (const call of msg.tool_calls) {
      if (call.type !== 'function' || call.function.name !== 'issue_refund') continue
      refund = await issueRefund(services, order, opts.compensate ?? true)
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(refund) })
    }
  }
  throw new Error('the agent did not finish in 4 turns')
}

/** In-memory services (what the example records once; the replay never runs them). */
export function demoServices(): Services {
  return {
    'orders.lookup': async ({ orderId }) => ({ orderId, amount: 42, customer: 'ada@example.com', status: 'delivered' }),
    'payments.refund': async ({ orderId }) => ({ refundId: `re_${orderId.toLowerCase().replace(/[^a-z0-9]/g, '')}` }),
    'ledger.record': async ({ orderId }) => ({ entry: `L-${orderId.slice(2)}` }),
    'payments.void': async () => ({ voided: true }),
    'notify.send': async () => ({ sent: true }),
  }
}

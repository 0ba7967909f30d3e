/**
 * The refund saga agent of examples/refund-agent, driven against the scripted
 * support model on 127.0.0.1, for the what-if tests.
 */
import { scenario, type Lab, type Scenario } from 'fluxlab'
import OpenAI from 'openai'
import { expect } from 'vitest'
import { demoServices, refundAgent, type AgentOptions } from '../../examples/refund-agent/agent.js'
import { startSupportModel, type SupportModel } from '../../examples/refund-agent/support-model.js'
import { tempDir, track } from '../engine/helpers.js'

export const REQUEST = 'Order A-1001 arrived broken, please refund it.'

/** Start the scripted support model (closed after the test). */
export async function supportModel(): Promise<SupportModel> {
  const model = await startSupportModel()
  track(model)
  return model
}

/** The agent function a scenario runs: the refund agent with its services on the tape. */
export function refund(model: { url: string }, opts: Omit<AgentOptions, 'client'> & { request?: string; amount?: number } = {}) {
  return (lab: Lab) => {
    const client = new OpenAI({ baseURL: `${model.url}/v1`, apiKey: 'sk-local', maxRetries: 0 })
    const services = demoServices()
    if (opts.amount !== undefined)
      services['orders.lookup'] = async ({ orderId }) => ({ orderId, amount: opts.amount!, customer: 'ada@example.com', status: 'delivered' })
    const request = opts.request ?? (lab.input as { request?: string } | undefined)?.request ?? REQUEST
    return refundAgent(request, lab.tools(services), { client, ...opts })
  }
}

/** Record the refund scenario `name` in `dir` (default: a fresh temp dir) and reopen it for replay. */
export async function recordRefund(
  model: SupportModel,
  name = 'refund',
  opts: { dir?: string; amount?: number; request?: string; system?: string } = {},
): Promise<{ s: Scenario; dir: string }> {
  const dir = opts.dir ?? tempDir()
  const first = await scenario(name, { dir, input: { request: opts.request ?? REQUEST } })
  expect(first.mode).toBe('record')
  await first.run(refund(model, { amount: opts.amount, request: opts.request, ...(opts.system ? { system: opts.system } : {}) }))
  const s = await scenario(name, { dir })
  expect(s.mode).toBe('replay')
  return { s, dir }
}

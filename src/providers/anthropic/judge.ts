import { judgeDefaults } from '../judge-defaults.js'
import type { JudgeWire } from '../types.js'
import { anthropicVendor } from './vendor.js'

const TOOL = 'record_verdict'

/**
 * The Anthropic Messages judge (`POST {baseURL}/v1/messages`, `x-api-key`, `anthropic-version`).
 * The verdict is asked for as a forced tool call, so it arrives as structured input.
 * @example
 * anthropicJudge.request({ model: 'claude-haiku-4-5', baseURL: 'https://api.anthropic.com', key, system, user, schema })
 */
export const anthropicJudge: JudgeWire = {
  api: 'anthropic',
  providers: { anthropic: judgeDefaults(anthropicVendor) },
  request: (ask) => ({
    // @note the Anthropic SDK's base URL has no /v1, the AI SDK's has: accept both.
    url: /\/v1$/.test(ask.baseURL) ? `${ask.baseURL}/messages` : `${ask.baseURL}/v1/messages`,
    headers: { ...(ask.key ? { 'x-api-key': ask.key } : {}), 'anthropic-version': '2023-06-01' },
    body: {
      model: ask.model,
      max_tokens: 1024,
      temperature: 0,
      system: ask.system,
      messages: [{ role: 'user', content: ask.user }],
      tools: [{ name: TOOL, description: 'Record the verdict for the criterion.', input_schema: ask.schema }],
      tool_choice: { type: 'tool', name: TOOL },
    },
  }),
  reply(json) {
    const content = (json as { content?: Array<{ type?: string; name?: string; input?: unknown; text?: unknown }> })?.content
    if (!Array.isArray(content)) return { ok: false, problem: 'expected a "content" array' }
    const call = content.find((b) => b?.type === 'tool_use' && b.name === TOOL)
    if (call) return { ok: true, value: call.input }
    const text = content.flatMap((b) => (b?.type === 'text' && typeof b.text === 'string' ? [b.text] : [])).join('')
    if (!text) return { ok: false, problem: `expected a ${TOOL} tool call or a text block` }
    return { ok: true, text }
  },
}

import { replySchema, type JudgePrompt } from '../prompt.js'
import type { Rubric } from '../rubric.js'
import { checkReply, parseReplyText, type ReplyCheck } from '../verdict.js'
import type { JudgeEndpoint } from './endpoint.js'
import type { WireCall, WireRequest } from './wire.js'

const TOOL = 'record_verdict'

/**
 * The Anthropic Messages judge (`POST {baseURL}/v1/messages`, `x-api-key`, `anthropic-version`).
 * The verdict is asked for as a forced tool call, so it arrives as structured input.
 * @example
 * anthropicJudge.request(rubric, prompt, { baseURL: 'https://api.anthropic.com', key })
 */
export const anthropicJudge: WireCall = {
  request(rubric: Rubric, prompt: JudgePrompt, endpoint: JudgeEndpoint): WireRequest {
    // @note the Anthropic SDK's base URL has no /v1, the AI SDK's has: accept both.
    const url = /\/v1$/.test(endpoint.baseURL) ? `${endpoint.baseURL}/messages` : `${endpoint.baseURL}/v1/messages`
    return {
      url,
      headers: { ...(endpoint.key ? { 'x-api-key': endpoint.key } : {}), 'anthropic-version': '2023-06-01' },
      body: {
        model: rubric.modelName,
        max_tokens: 1024,
        temperature: 0,
        system: prompt.system,
        messages: [{ role: 'user', content: prompt.user }],
        tools: [{ name: TOOL, description: 'Record the verdict for the criterion.', input_schema: replySchema(prompt.threshold !== undefined) }],
        tool_choice: { type: 'tool', name: TOOL },
      },
    }
  },
  reply(json: unknown, scored: boolean): ReplyCheck {
    const content = (json as { content?: Array<{ type?: string; name?: string; input?: unknown; text?: unknown }> })?.content
    if (!Array.isArray(content)) return { ok: false, problem: 'expected a "content" array' }
    const call = content.find((b) => b?.type === 'tool_use' && b.name === TOOL)
    if (call) return checkReply(call.input, scored)
    const text = content.flatMap((b) => (b?.type === 'text' && typeof b.text === 'string' ? [b.text] : [])).join('')
    if (!text) return { ok: false, problem: `expected a ${TOOL} tool call or a text block` }
    return parseReplyText(text, scored)
  },
}

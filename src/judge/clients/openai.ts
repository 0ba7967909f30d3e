import type { JudgePrompt } from '../prompt.js'
import type { Rubric } from '../rubric.js'
import { parseReplyText, type ReplyCheck } from '../verdict.js'
import type { JudgeEndpoint } from './endpoint.js'
import type { WireCall, WireRequest } from './wire.js'

/**
 * The OpenAI-compatible Chat Completions judge (`POST {baseURL}/chat/completions`, JSON mode):
 * OpenAI itself and any compatible server (Groq, OpenRouter, Ollama, vLLM, …).
 * @example
 * openaiJudge.request(rubric, prompt, { baseURL: 'https://api.openai.com/v1', key })
 */
export const openaiJudge: WireCall = {
  request(rubric: Rubric, prompt: JudgePrompt, endpoint: JudgeEndpoint): WireRequest {
    const model = rubric.modelName ?? ''
    return {
      url: `${endpoint.baseURL}/chat/completions`,
      headers: endpoint.key ? { authorization: `Bearer ${endpoint.key}` } : {},
      body: {
        model,
        messages: [
          { role: 'system', content: prompt.system },
          { role: 'user', content: prompt.user },
        ],
        // @note reasoning models (o1, o3, gpt-5, …) reject any temperature but the default.
        ...(/^(o\d|gpt-5)/i.test(model) ? {} : { temperature: 0 }),
        response_format: { type: 'json_object' },
      },
    }
  },
  reply(json: unknown, scored: boolean): ReplyCheck {
    const message = (json as { choices?: Array<{ message?: { content?: unknown; refusal?: unknown } }> })?.choices?.[0]?.message
    if (typeof message?.refusal === 'string' && message.refusal) return { ok: false, problem: `the judge refused: ${message.refusal}` }
    if (typeof message?.content !== 'string') return { ok: false, problem: 'expected choices[0].message.content to be a string' }
    return parseReplyText(message.content, scored)
  },
}

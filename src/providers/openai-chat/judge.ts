import { judgeDefaults } from '../judge-defaults.js'
import type { JudgeWire } from '../types.js'
import { openaiVendor } from './vendors.js'

/**
 * The OpenAI-compatible Chat Completions judge (`POST {baseURL}/chat/completions`, JSON mode):
 * OpenAI itself and any compatible server (Groq, OpenRouter, Ollama, vLLM, …), so it is
 * the wire of every provider no other family claims.
 * @example
 * openaiChatJudge.request({ model: 'gpt-4.1-mini', baseURL: 'https://api.openai.com/v1', key, system, user, schema })
 */
export const openaiChatJudge: JudgeWire = {
  api: 'openai',
  providers: { openai: judgeDefaults(openaiVendor) },
  fallback: true,
  request: (ask) => ({
    url: `${ask.baseURL}/chat/completions`,
    headers: ask.key ? { authorization: `Bearer ${ask.key}` } : {},
    body: {
      model: ask.model,
      messages: [
        { role: 'system', content: ask.system },
        { role: 'user', content: ask.user },
      ],
      // @note reasoning models (o1, o3, gpt-5, …) reject any temperature but the default.
      ...(/^(o\d|gpt-5)/i.test(ask.model) ? {} : { temperature: 0 }),
      response_format: { type: 'json_object' },
    },
  }),
  reply(json) {
    const message = (json as { choices?: Array<{ message?: { content?: unknown; refusal?: unknown } }> })?.choices?.[0]?.message
    if (typeof message?.refusal === 'string' && message.refusal) return { ok: false, problem: `the judge refused: ${message.refusal}` }
    if (typeof message?.content !== 'string') return { ok: false, problem: 'expected choices[0].message.content to be a string' }
    return { ok: true, text: message.content }
  },
}

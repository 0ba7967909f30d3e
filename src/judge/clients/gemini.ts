import { replySchema, type JudgePrompt } from '../prompt.js'
import type { Rubric } from '../rubric.js'
import { parseReplyText, type ReplyCheck } from '../verdict.js'
import type { JudgeEndpoint } from './endpoint.js'
import type { WireCall, WireRequest } from './wire.js'

/**
 * The Gemini judge (`POST {baseURL}/v1beta/models/<model>:generateContent`, JSON response schema).
 * The key goes in the `x-goog-api-key` header, never in the URL.
 * @example
 * geminiJudge.request(rubric, prompt, { baseURL: 'https://generativelanguage.googleapis.com', key })
 */
export const geminiJudge: WireCall = {
  request(rubric: Rubric, prompt: JudgePrompt, endpoint: JudgeEndpoint): WireRequest {
    // @note the AI SDK's base URL ends in /v1beta already: accept it with or without.
    const base = /\/v1(beta\d*|alpha)?$/.test(endpoint.baseURL) ? endpoint.baseURL : `${endpoint.baseURL}/v1beta`
    const model = (rubric.modelName ?? '').replace(/^models\//, '')
    return {
      url: `${base}/models/${encodeURIComponent(model)}:generateContent`,
      headers: endpoint.key ? { 'x-goog-api-key': endpoint.key } : {},
      body: {
        systemInstruction: { parts: [{ text: prompt.system }] },
        contents: [{ role: 'user', parts: [{ text: prompt.user }] }],
        generationConfig: {
          temperature: 0,
          responseMimeType: 'application/json',
          responseSchema: replySchema(prompt.threshold !== undefined),
        },
      },
    }
  },
  reply(json: unknown, scored: boolean): ReplyCheck {
    const body = json as {
      candidates?: Array<{ content?: { parts?: Array<{ text?: unknown; thought?: boolean }> }; finishReason?: string }>
      promptFeedback?: { blockReason?: string }
    }
    const candidate = body?.candidates?.[0]
    if (!candidate) return { ok: false, problem: body?.promptFeedback?.blockReason ? `the prompt was blocked (${body.promptFeedback.blockReason})` : 'expected a "candidates" array' }
    const text = (candidate.content?.parts ?? []).flatMap((p) => (!p.thought && typeof p.text === 'string' ? [p.text] : [])).join('')
    if (!text) return { ok: false, problem: `the candidate has no text (finishReason ${candidate.finishReason ?? 'unknown'})` }
    return parseReplyText(text, scored)
  },
}

import { judgeDefaults } from '../judge-defaults.js'
import type { JudgeProviderDefaults, JudgeWire } from '../types.js'
import { googleVendor } from './vendor.js'

// @note a judge reads its own base-URL variable, GEMINI_BASE_URL; GOOGLE_GEMINI_BASE_URL (the vendor's) is what a child process gets.
const GOOGLE: JudgeProviderDefaults = { ...judgeDefaults(googleVendor), baseVar: 'GEMINI_BASE_URL' }

/**
 * The Gemini judge (`POST {baseURL}/v1beta/models/<model>:generateContent`, JSON response schema).
 * The key goes in the `x-goog-api-key` header, never in the URL.
 * @example
 * geminiJudge.request({ model: 'gemini-2.5-flash', baseURL: 'https://generativelanguage.googleapis.com', key, system, user, schema })
 */
export const geminiJudge: JudgeWire = {
  api: 'gemini',
  providers: { google: GOOGLE, gemini: GOOGLE },
  request(ask) {
    // @note the AI SDK's base URL ends in /v1beta already: accept it with or without.
    const base = /\/v1(beta\d*|alpha)?$/.test(ask.baseURL) ? ask.baseURL : `${ask.baseURL}/v1beta`
    const model = ask.model.replace(/^models\//, '')
    return {
      url: `${base}/models/${encodeURIComponent(model)}:generateContent`,
      headers: ask.key ? { 'x-goog-api-key': ask.key } : {},
      body: {
        systemInstruction: { parts: [{ text: ask.system }] },
        contents: [{ role: 'user', parts: [{ text: ask.user }] }],
        generationConfig: { temperature: 0, responseMimeType: 'application/json', responseSchema: ask.schema },
      },
    }
  },
  reply(json) {
    const body = json as {
      candidates?: Array<{ content?: { parts?: Array<{ text?: unknown; thought?: boolean }> }; finishReason?: string }>
      promptFeedback?: { blockReason?: string }
    }
    const candidate = body?.candidates?.[0]
    if (!candidate)
      return {
        ok: false,
        problem: body?.promptFeedback?.blockReason ? `the prompt was blocked (${body.promptFeedback.blockReason})` : 'expected a "candidates" array',
      }
    const text = (candidate.content?.parts ?? []).flatMap((p) => (!p.thought && typeof p.text === 'string' ? [p.text] : [])).join('')
    if (!text) return { ok: false, problem: `the candidate has no text (finishReason ${candidate.finishReason ?? 'unknown'})` }
    return { ok: true, text }
  },
}

import type { JudgeProviderDefaults, JudgeWire } from '../types.js'

const GOOGLE: JudgeProviderDefaults = {
  keyVars: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY'],
  baseVar: 'GEMINI_BASE_URL',
  baseURL: 'https://generativelanguage.googleapis.com',
}

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
    if (!candidate) return { ok: false, problem: body?.promptFeedback?.blockReason ? `the prompt was blocked (${body.promptFeedback.blockReason})` : 'expected a "candidates" array' }
    const text = (candidate.content?.parts ?? []).flatMap((p) => (!p.thought && typeof p.text === 'string' ? [p.text] : [])).join('')
    if (!text) return { ok: false, problem: `the candidate has no text (finishReason ${candidate.finishReason ?? 'unknown'})` }
    return { ok: true, text }
  },
}

/**
 * Compatibility matrix: every recorded exchange of every traffic file is served to plain fetch (byte-exact)
 * and to the matching real clients (native SDK + AI SDK provider). Successful exchanges must parse, and the client must report a
 * tool call exactly when the recording holds one; recorded errors must surface as client errors.
 * Known incompatibility: gemini/test_tools.yaml (see SILENTLY_EMPTY).
 */
import Anthropic from '@anthropic-ai/sdk'
import { createAnthropic } from '@ai-sdk/anthropic'
import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { createOpenAI } from '@ai-sdk/openai'
import { generateText, streamText, type LanguageModel } from 'ai'
import OpenAI from 'openai'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import {
  aiSdkAnthropicBaseURL,
  anthropicBaseURL,
  googleBaseURL,
  listTrafficFiles,
  loadExchanges,
  openaiBaseURL,
  startProviderServer,
  type Exchange,
  type ProviderServer,
} from './index.js'

/** Files whose exchanges make the clients throw, with a fragment of the expected error message. */
const EXPECTED_ERRORS: Record<string, RegExp> = {
  'errors/openai-error.1.chunks.txt': /exceeded your current quota|No output generated/,
  'errors/test_model_name_suggestion[anthropic].yaml': /claude-sonet-4-5/,
  'errors/test_openai_responses_model_http_error.yaml': /Invalid 'temperature'/,
}
/**
 * Gemini's non-SSE stream (a JSON array, requested without `?alt=sse`): @ai-sdk/google always asks for
 * `?alt=sse`, and when served this body it resolves SILENTLY with no text, no tool call and finishReason 'other'.
 */
const SILENTLY_EMPTY = new Set(['gemini/test_tools.yaml'])

const TOOL_CALL = /"type":\s*"(tool_use|function_call)"|"tool_calls":\s*\[\s*\{|"functionCall"/

type Family = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini'
const familyOfPath = (p: string): Family =>
  p.startsWith('/v1/chat/') ? 'openai-chat' : p.startsWith('/v1/responses') ? 'openai-responses' : p.startsWith('/v1/messages') ? 'anthropic' : 'gemini'

let server: ProviderServer
beforeEach(async () => {
  server = await startProviderServer()
})
afterEach(() => server.close())

/** Native SDK call (openai / @anthropic-ai/sdk); returns whether it reported a tool call. */
async function native(ex: Exchange, family: Family): Promise<boolean> {
  const sse = ex.headers['content-type'].includes('event-stream')
  const messages = [{ role: 'user' as const, content: 'x' }]
  if (family === 'openai-chat') {
    const o = new OpenAI({ baseURL: openaiBaseURL(server), apiKey: 'sk-test', maxRetries: 0 })
    const c = sse ? await o.chat.completions.stream({ model: 'm', messages }).finalChatCompletion() : await o.chat.completions.create({ model: 'm', messages })
    return c.choices[0].finish_reason === 'tool_calls'
  }
  if (family === 'openai-responses') {
    const o = new OpenAI({ baseURL: openaiBaseURL(server), apiKey: 'sk-test', maxRetries: 0 })
    const r = sse ? await o.responses.stream({ model: 'm', input: 'x' }).finalResponse() : await o.responses.create({ model: 'm', input: 'x' })
    return r.output.some((item) => item.type === 'function_call')
  }
  const a = new Anthropic({ baseURL: anthropicBaseURL(server), apiKey: 'sk-ant-test', maxRetries: 0 })
  const params = { model: 'claude-sonnet-4-0', max_tokens: 16, messages }
  const m = sse ? await a.messages.stream(params).finalMessage() : await a.messages.create(params)
  return m.stop_reason === 'tool_use'
}

/** AI SDK call with the matching provider; returns its finish reason. */
async function aiSdk(ex: Exchange, family: Family): Promise<string> {
  const model: LanguageModel =
    family === 'openai-chat'
      ? createOpenAI({ baseURL: openaiBaseURL(server), apiKey: 'sk-test' }).chat('m')
      : family === 'openai-responses'
        ? createOpenAI({ baseURL: openaiBaseURL(server), apiKey: 'sk-test' }).responses('m')
        : family === 'anthropic'
          ? createAnthropic({ baseURL: aiSdkAnthropicBaseURL(server), apiKey: 'sk-ant-test' })('claude-sonnet-4-0')
          : createGoogleGenerativeAI({ baseURL: googleBaseURL(server), apiKey: 'test-key' })(/models\/([^:]+)/.exec(ex.path)![1])
  if (!ex.headers['content-type'].includes('event-stream') && !ex.path.includes('streamGenerateContent')) {
    return (await generateText({ model, prompt: 'x', maxRetries: 0 })).finishReason
  }
  let error: unknown
  const result = streamText({ model, prompt: 'x', maxRetries: 0, onError: (e) => void (error = e.error) })
  await result.text
  if (error) throw error
  return result.finishReason
}

describe('compatibility of every recorded exchange with the real clients', () => {
  test.each(listTrafficFiles())('%s', async (file) => {
    for (const [i, ex] of loadExchanges(file).entries()) {
      const family = familyOfPath(ex.path)
      const where = `${file} #${i} (${family})`
      const expectedError = EXPECTED_ERRORS[file]
      server.queue(ex)
      const raw = await fetch(server.url + ex.path, { method: 'POST', body: '{}' })
      expect([raw.status, await raw.text()], `${where} via fetch`).toEqual([ex.status, ex.body])
      // Gemini: no native client is installed, only @ai-sdk/google
      for (const call of family === 'gemini' ? [aiSdk] : [native, aiSdk]) {
        server.queue(ex)
        const before = server.hits
        const outcome: Promise<boolean | string> = call(ex, family) // native: tool call?; AI SDK: finish reason
        if (expectedError) await expect(outcome, `${where} ${call.name}`).rejects.toThrow(expectedError)
        else if (SILENTLY_EMPTY.has(file)) expect(await outcome, where).toBe('other')
        else {
          const got = await outcome
          expect(got === true || got === 'tool-calls', `${where} ${call.name} reports a tool call`).toBe(TOOL_CALL.test(ex.body))
        }
        expect(server.hits, `${where} ${call.name} made one request`).toBe(before + 1)
      }
    }
  })
})

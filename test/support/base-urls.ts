/**
 * Client base URLs for a running {@link ProviderServer}, one per SDK family.
 * Each was verified against the real, unmodified SDK in provider-server.test.ts.
 */
import type { ProviderServer } from './provider-server.js'

type HasUrl = Pick<ProviderServer, 'url'>

/**
 * `baseURL` for the `openai` SDK and for `@ai-sdk/openai` (`${url}/v1`; they append `/chat/completions`, `/responses`).
 * @example new OpenAI({ baseURL: openaiBaseURL(server), apiKey: 'sk-test', maxRetries: 0 })
 * @example createOpenAI({ baseURL: openaiBaseURL(server), apiKey: 'sk-test' })
 */
export function openaiBaseURL(server: HasUrl): string {
  return `${server.url}/v1`
}

/**
 * `baseURL` for `@anthropic-ai/sdk` (the bare server URL; the SDK appends `/v1/messages`).
 * @example new Anthropic({ baseURL: anthropicBaseURL(server), apiKey: 'sk-ant-test', maxRetries: 0 })
 */
export function anthropicBaseURL(server: HasUrl): string {
  return server.url
}

/**
 * `baseURL` for `@ai-sdk/anthropic` (`${url}/v1`; the provider appends `/messages`).
 * @example createAnthropic({ baseURL: aiSdkAnthropicBaseURL(server), apiKey: 'sk-ant-test' })
 */
export function aiSdkAnthropicBaseURL(server: HasUrl): string {
  return `${server.url}/v1`
}

/**
 * `baseURL` for `@ai-sdk/google` (`${url}/v1beta`; it appends `/models/<id>:generateContent` or `:streamGenerateContent?alt=sse`).
 * @example createGoogleGenerativeAI({ baseURL: googleBaseURL(server), apiKey: 'test-key' })
 */
export function googleBaseURL(server: HasUrl): string {
  return `${server.url}/v1beta`
}

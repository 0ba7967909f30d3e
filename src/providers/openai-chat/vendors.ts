import type { Vendor } from '../facts.js'

/**
 * OpenAI's API: its key variable and prefix, and the base-URL variables its SDKs read.
 * @example
 * openaiVendor.base.url // 'https://api.openai.com/v1'
 */
export const openaiVendor = {
  hosts: ['api.openai.com'],
  keyVars: ['OPENAI_API_KEY'],
  keyPrefix: 'sk-',
  base: { vars: ['OPENAI_BASE_URL', 'OPENAI_API_BASE'], url: 'https://api.openai.com/v1' },
} as const satisfies Vendor

/**
 * The vendors serving Chat Completions (OpenAI and its compatible twins): their hosts, key variables and public key
 * prefixes. A fixture recorded before `keyVars` existed finds its key variables here by host.
 * @example
 * openaiChatVendors[0].keyVars // ['OPENAI_API_KEY']
 */
export const openaiChatVendors: readonly Vendor[] = [
  openaiVendor,
  { hosts: ['api.groq.com'], keyVars: ['GROQ_API_KEY'], keyPrefix: 'gsk_' },
  { hosts: ['api.mistral.ai'], keyVars: ['MISTRAL_API_KEY'] },
  { hosts: ['api.x.ai'], keyVars: ['XAI_API_KEY'], keyPrefix: 'xai-' },
  { hosts: ['api.deepseek.com'], keyVars: ['DEEPSEEK_API_KEY'], keyPrefix: 'sk-' },
  { hosts: ['openrouter.ai'], keyVars: ['OPENROUTER_API_KEY'], keyPrefix: 'sk-or-v1-' },
  { hosts: ['api.fireworks.ai'], keyVars: ['FIREWORKS_API_KEY'] },
  { hosts: ['api.together.xyz', 'api.together.ai'], keyVars: ['TOGETHER_API_KEY'] },
  { hosts: ['api.cohere.com', 'api.cohere.ai'], keyVars: ['COHERE_API_KEY', 'CO_API_KEY'] },
  { hosts: ['api.perplexity.ai'], keyVars: ['PERPLEXITY_API_KEY'], keyPrefix: 'pplx-' },
  { hosts: ['api.cerebras.ai'], keyVars: ['CEREBRAS_API_KEY'] },
  { hosts: ['api.deepinfra.com'], keyVars: ['DEEPINFRA_API_KEY'] },
  { hosts: ['router.huggingface.co'], keyVars: ['HF_TOKEN'], keyPrefix: 'hf_' },
  // @note an Azure key has no public prefix: its placeholder starts with the marker.
  {
    hosts: [/\.openai\.azure\.com$|\.cognitiveservices\.azure\.com$|\.services\.ai\.azure\.com$/],
    keyVars: ['AZURE_OPENAI_API_KEY', 'AZURE_API_KEY'],
    keyPrefix: '',
  },
]

import type { Vendor } from '../facts.js'

/**
 * Anthropic's API: its host, key variable and key prefix, and the base-URL variable its SDKs read (the Anthropic SDK's
 * base has no `/v1`, the AI SDK's has).
 * @example
 * anthropicVendor.keyVars // ['ANTHROPIC_API_KEY']
 */
export const anthropicVendor = {
  hosts: ['api.anthropic.com'],
  keyVars: ['ANTHROPIC_API_KEY'],
  keyPrefix: 'sk-ant-',
  base: { vars: ['ANTHROPIC_BASE_URL'], url: 'https://api.anthropic.com', version: 'v1' },
} as const satisfies Vendor

/**
 * The vendors of every registered family (their hosts, key variables, public key prefixes and base-URL variables), in
 * the registry's order: data only, so the runner setups fill replay placeholders without loading a codec (a test file
 * that opens no scenario loads no provider code, test/plugin/setup-imports.test.ts). The registry writes the table again
 * at each `registerFamily`.
 */
import type { Vendor } from './facts.js'
import { anthropicVendor } from './anthropic/vendor.js'
import { bedrockVendor } from './bedrock/vendor.js'
import { googleVendor } from './gemini/vendor.js'
import { openaiChatVendors } from './openai-chat/vendors.js'

/**
 * The vendors, read where they are used (the registry replaces the list when a family registers).
 * @example
 * vendorTable.vendors.find((v) => v.keyVars.includes('OPENAI_API_KEY'))?.keyPrefix // 'sk-'
 */
export const vendorTable: { vendors: readonly Vendor[] } = { vendors: [...openaiChatVendors, anthropicVendor, googleVendor, bedrockVendor] }

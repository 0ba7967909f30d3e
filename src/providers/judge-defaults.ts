import type { Vendor } from './facts.js'
import type { JudgeProviderDefaults } from './types.js'

/**
 * A judge provider's defaults, read from the vendor serving it (its key variables, its first base-URL variable and its
 * base), so a judge wire never keeps a second copy of them.
 * @example
 * judgeDefaults(anthropicVendor) // { keyVars: ['ANTHROPIC_API_KEY'], baseVar: 'ANTHROPIC_BASE_URL', baseURL: 'https://api.anthropic.com' }
 */
export function judgeDefaults(vendor: Vendor & { base: NonNullable<Vendor['base']> }): JudgeProviderDefaults {
  return { keyVars: vendor.keyVars, baseVar: vendor.base.vars[0], baseURL: vendor.base.url }
}

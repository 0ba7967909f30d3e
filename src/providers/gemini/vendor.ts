import type { Vendor } from '../facts.js'

/**
 * Google's Gemini API: its host, key variables and key prefix, and the base-URL variable its SDKs read.
 * @example
 * googleVendor.keyVars // ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY']
 */
export const googleVendor = {
  hosts: ['generativelanguage.googleapis.com'],
  keyVars: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY'],
  keyPrefix: 'AIza',
  base: { vars: ['GOOGLE_GEMINI_BASE_URL'], url: 'https://generativelanguage.googleapis.com' },
} as const satisfies Vendor

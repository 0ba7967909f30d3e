import type { Vendor } from '../facts.js'

/**
 * Amazon Bedrock's runtime: its hosts and the credential variables the AWS SDK's chain reads (a SigV4 request carries the
 * key id, never the secret).
 * @example
 * bedrockVendor.keyVars // ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']
 */
export const bedrockVendor = {
  hosts: [/^bedrock-runtime(-fips)?\.[a-z0-9-]+\.amazonaws\.com$/],
  keyVars: ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'],
} as const satisfies Vendor

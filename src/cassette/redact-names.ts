/** The names whose whole value redaction always replaces, whatever it looks like (src/cassette/redact.ts). */

/**
 * Header names whose whole value is always redacted (`x-stainless-*` are not
 * secret; callers drop them elsewhere).
 */
export const SENSITIVE_HEADERS: readonly string[] = Object.freeze([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
  'anthropic-api-key',
  'cookie',
  'set-cookie',
  'openai-organization',
  'openai-project',
  'anthropic-organization-id',
  'x-amz-security-token',
  'x-auth-token',
])

/** Query parameter names whose value is always redacted. */
export const SENSITIVE_QUERY_PARAMS: readonly string[] = Object.freeze([
  'key',
  'api_key',
  'apikey',
  'access_token',
  'token',
  'sig',
  'signature',
  'client_secret',
  'x-amz-signature',
  'x-amz-credential',
  'x-amz-security-token',
  'x-goog-signature',
  'x-goog-credential',
])

/** The names whose whole value redaction always replaces, whatever it looks like (src/cassette/redact.ts). */
import { familyTables } from '../providers/registry.js'

/**
 * Header names whose whole value is always redacted, whatever the family (`x-stainless-*` are not secret; callers drop
 * them elsewhere). Each family adds its own (`sensitiveHeaders` of its codec): {@link sensitiveHeaders}.
 */
const SENSITIVE_HEADERS: readonly string[] = Object.freeze([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'api-key',
  'cookie',
  'set-cookie',
  'x-auth-token',
])

/**
 * Header names whose whole value is always redacted: the common ones and every registered family's.
 * @example
 * sensitiveHeaders().includes('x-goog-api-key') // true
 */
export const sensitiveHeaders = (): string[] => [...SENSITIVE_HEADERS, ...familyTables.sensitiveHeaders]

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

/**
 * The built-in secret rules: what a secret looks like, and the literals that must occur in a text for a rule to
 * match in it. A leaf: it imports nothing from the project.
 */
export interface SecretRule {
  id: string
  description: string
  /**
   * Matches one secret. When it has a named group `secret`, only that group is
   * the secret (the rest, e.g. `Bearer ` or `api_key=`, is kept as context).
   */
  pattern: RegExp
  /**
   * Literals of which every match of `pattern` contains one, in the pattern's case (any case under `i`):
   * a text holding none of them is not searched with this rule.
   */
  anchors: readonly string[]
}

/**
 * @note Inside the text a rule is scanning, a secret must not continue a word
 * (`[A-Za-z0-9_-]` before it), which keeps prefixes like `sk-` or `hf_` from
 * matching inside base64url blobs (`encrypted_content`, `signature`,
 * `thoughtSignature`). A JSON escape (`\n`, `\r`, `\t`) just before is allowed.
 */
export const START = String.raw`(?:(?<![A-Za-z0-9_-])|(?<=\\[nrt]))`
const END = String.raw`(?![A-Za-z0-9_-])`
const rule = (id: string, description: string, anchors: readonly string[], source: string, flags = ''): SecretRule => ({
  id,
  description,
  pattern: new RegExp(source, flags),
  anchors,
})
/** Context words before a labelled value: `api_key: "`, `"apiKey":"`, `\"password\": \"`. */
const LABEL_GAP = String.raw`[\\"']*[ \t]*[:=][ \t]*[\\"']*`
const TOKEN_CHARS = String.raw`[A-Za-z0-9._~+/=!@#$%^*-]`
/** The query parameters that carry a credential in a URL (`url-key-param`). */
const URL_KEY_PARAMS = 'key|api[_-]?key|access[_-]?token|sig|signature|x-amz-signature|x-amz-security-token|x-goog-signature|client_secret'
/** The labels a credential follows in text (`labelled-secret`). */
const SECRET_LABELS = 'api[_-]?key|apikey|access[_-]?token|auth[_-]?token|refresh[_-]?token|client[_-]?secret|secret[_-]?key|password|passwd'

/**
 * Built-in secret rules, most specific first.
 * @example
 * SECRET_RULES.map((r) => r.id) // ['private-key', 'anthropic-key', 'openai-key', ...]
 */
export const SECRET_RULES: readonly SecretRule[] = Object.freeze([
  rule(
    'private-key',
    'PEM private key block (also with \\n escaped inside a JSON string)',
    ['-----BEGIN'],
    String.raw`-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\]*)`,
  ),
  rule(
    'anthropic-key',
    'Anthropic API or admin key (sk-ant-api03-…, sk-ant-admin01-…)',
    ['sk-ant-'],
    String.raw`${START}sk-ant-[a-z]{2,10}\d{2}-[A-Za-z0-9_-]{20,}`,
  ),
  rule(
    'openai-key',
    'OpenAI key (sk-proj-…, sk-svcacct-…, sk-admin-…, legacy sk- + 48 alphanumerics)',
    ['sk-'],
    String.raw`${START}sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{48,})`,
  ),
  rule('google-api-key', 'Google API key (AIza + 35 characters)', ['AIza'], String.raw`${START}AIza[0-9A-Za-z_-]{35}${END}`),
  rule('google-oauth-token', 'Google OAuth access token (ya29.…)', ['ya29.'], String.raw`${START}ya29\.[0-9A-Za-z_-]{20,}`),
  rule('aws-access-key-id', 'AWS access key id (AKIA/ASIA + 16)', ['AKIA', 'ASIA'], String.raw`${START}A(?:KI|SI)A[A-Z0-9]{16}${END}`),
  rule(
    'aws-secret-key',
    'AWS secret access key (40 characters) after an aws_secret_access_key label',
    ['secret'],
    String.raw`(?<![A-Za-z0-9])(?:aws_?)?secret_?access_?key${LABEL_GAP}(?<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])`,
    'i',
  ),
  rule(
    'github-token',
    'GitHub token (ghp_/gho_/ghu_/ghs_/ghr_ + 36, github_pat_…)',
    ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'],
    String.raw`${START}(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})`,
  ),
  rule('slack-token', 'Slack token (xoxb-, xoxp-, xoxa-, …)', ['xox'], String.raw`${START}xox[abposr]-(?=[0-9A-Za-z-]*\d)[0-9A-Za-z-]{15,}`),
  rule(
    'stripe-key',
    'Stripe secret or restricted key (sk_live_…, rk_live_…, *_test_…)',
    ['k_live_', 'k_test_'],
    String.raw`${START}[sr]k_(?:live|test)_[0-9A-Za-z]{16,}`,
  ),
  rule('groq-key', 'Groq API key (gsk_…)', ['gsk_'], String.raw`${START}gsk_[A-Za-z0-9]{32,}`),
  rule('xai-key', 'xAI API key (xai-…)', ['xai-'], String.raw`${START}xai-[A-Za-z0-9]{32,}`),
  rule('huggingface-token', 'Hugging Face token (hf_…)', ['hf_'], String.raw`${START}hf_[A-Za-z0-9]{30,}`),
  rule('jwt', 'JSON Web Token (eyJ….eyJ….signature)', ['eyJ'], String.raw`${START}eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`),
  rule(
    'bearer-token',
    'Bearer token (16+ token characters with a digit); the word Bearer is kept',
    ['earer'],
    String.raw`(?<![A-Za-z0-9])[Bb]earer[ \t]+(?<secret>(?=[A-Za-z0-9._~+/-]*\d)[A-Za-z0-9._~+/-]{16,}=*)`,
  ),
  rule(
    'basic-auth-url',
    'password in a URL with credentials (https://user:password@host, postgres://…); the user name is kept',
    ['://'],
    String.raw`:\/\/[A-Za-z0-9._~%!$&'()*+,;=-]{1,128}:(?<secret>[A-Za-z0-9._~%!$&'()*+,;=-]{3,256})@(?=[A-Za-z0-9[])`,
  ),
  rule(
    'url-key-param',
    'credential query parameter in a URL (?key=, &api_key=, &access_token=, &sig=, …)',
    ['key=', 'token=', 'sig=', 'signature=', 'secret='],
    String.raw`[?&](?:${URL_KEY_PARAMS})=(?<secret>[A-Za-z0-9._~%+/-]{16,})`,
    'i',
  ),
  rule(
    'labelled-secret',
    'value (8+ characters with a digit) after a label such as api_key, access_token, client_secret, password',
    ['key', 'access', 'auth', 'refresh', 'secret', 'passw'],
    String.raw`(?<![A-Za-z0-9])(?:${SECRET_LABELS})${LABEL_GAP}(?<secret>(?=${TOKEN_CHARS}*\d)${TOKEN_CHARS}{8,})`,
    'i',
  ),
])

/**
 * `s` as a regular expression source that matches it literally.
 * @example
 * escapeRegExp('ya29.') // 'ya29\\.'
 */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

const anchorSearch = (rules: readonly SecretRule[], flags: string): RegExp =>
  new RegExp([...new Set(rules.flatMap((r) => r.anchors))].map(escapeRegExp).join('|'), flags)

/**
 * What a text without a secret lacks: every rule's anchors, each matched as its rule is (case-insensitively under `i`).
 * A text in which neither search finds anything holds no match of any rule, so redaction leaves it as it is.
 * @note issue 25: redaction tests a request's raw text with these first, and searches only a text that has one
 * (src/cassette/redact.ts).
 */
export const CASED_ANCHOR: RegExp = anchorSearch(
  SECRET_RULES.filter((r) => !r.pattern.flags.includes('i')),
  '',
)
export const UNCASED_ANCHOR: RegExp = anchorSearch(
  SECRET_RULES.filter((r) => r.pattern.flags.includes('i')),
  'i',
)

/**
 * Secret patterns and the text-level redaction every other layer builds on.
 * A leaf module: it imports nothing from the project, so error formatting can
 * use it without pulling in the cassette code.
 */
import { createRequire } from 'node:module'

type Crypto = typeof import('node:crypto')
let crypto: Crypto | undefined
/**
 * The first 8 hex digits of the SHA-256 of `text`.
 * @note issue 14: node:crypto is loaded at the first placeholder, not with this module. fluxlab's vitest setup
 * file imports this module (through the error messages) into every test file's fresh process, and loading
 * node:crypto there was about 5 ms of each file's setup.
 */
function sha256Prefix(text: string): string {
  return (crypto ??= createRequire(import.meta.url)('node:crypto') as Crypto).createHash('sha256').update(text).digest('hex').slice(0, 8)
}

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

/** A secret's position in a text: `text.slice(start, end)` is the secret. */
export interface SecretMatch {
  rule: string
  start: number
  end: number
}

export interface SecretOptions {
  /** Rule ids to skip. */
  disable?: readonly string[]
}

/**
 * A span of text to replace. `with` is the replacement; when absent the span
 * becomes the placeholder of its own text.
 */
export interface ReplaceSpan {
  start: number
  end: number
  with?: string
}

/** Matches a placeholder written by {@link placeholderFor}. */
export const PLACEHOLDER_PATTERN = /\[REDACTED:[0-9a-f]{8}\]/

/**
 * @note Inside the text a rule is scanning, a secret must not continue a word
 * (`[A-Za-z0-9_-]` before it), which keeps prefixes like `sk-` or `hf_` from
 * matching inside base64url blobs (`encrypted_content`, `signature`,
 * `thoughtSignature`). A JSON escape (`\n`, `\r`, `\t`) just before is allowed.
 */
const START = String.raw`(?:(?<![A-Za-z0-9_-])|(?<=\\[nrt]))`
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
  rule('anthropic-key', 'Anthropic API or admin key (sk-ant-api03-…, sk-ant-admin01-…)', ['sk-ant-'], String.raw`${START}sk-ant-[a-z]{2,10}\d{2}-[A-Za-z0-9_-]{20,}`),
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
  rule('github-token', 'GitHub token (ghp_/gho_/ghu_/ghs_/ghr_ + 36, github_pat_…)', ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'], String.raw`${START}(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})`),
  rule('slack-token', 'Slack token (xoxb-, xoxp-, xoxa-, …)', ['xox'], String.raw`${START}xox[abposr]-(?=[0-9A-Za-z-]*\d)[0-9A-Za-z-]{15,}`),
  rule('stripe-key', 'Stripe secret or restricted key (sk_live_…, rk_live_…, *_test_…)', ['k_live_', 'k_test_'], String.raw`${START}[sr]k_(?:live|test)_[0-9A-Za-z]{16,}`),
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
    String.raw`[?&](?:key|api[_-]?key|access[_-]?token|sig|signature|x-amz-signature|x-amz-security-token|x-goog-signature|client_secret)=(?<secret>[A-Za-z0-9._~%+/-]{16,})`,
    'i',
  ),
  rule(
    'labelled-secret',
    'value (8+ characters with a digit) after a label such as api_key, access_token, client_secret, password',
    ['key', 'access', 'auth', 'refresh', 'secret', 'passw'],
    String.raw`(?<![A-Za-z0-9])(?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|refresh[_-]?token|client[_-]?secret|secret[_-]?key|password|passwd)${LABEL_GAP}(?<secret>(?=${TOKEN_CHARS}*\d)${TOKEN_CHARS}{8,})`,
    'i',
  ),
])

/**
 * A rule's search form: global, with match indices. A rule that starts with the
 * word guard `START` is searched without it and the guard is checked per match.
 * @note Measured (bench/README.md): a leading lookbehind keeps V8 from jumping to
 * the literal prefix (`xai-`, `AIza`), so every rule was tried at every character;
 * checking the guard after the match made the fixture scan several times faster.
 */
interface SearchForm {
  re: RegExp
  /** The guard taken off the front: `START`, or `(?<![A-Za-z0-9])` (issue 14: halved labelled-secret's search). */
  guarded: 'start' | 'word' | false
}
/** The other leading guard of the rules: no letter or digit before (case-insensitive rules included: under `i` without `u`, no non-ASCII character folds to ASCII). */
const WORD_START = '(?<![A-Za-z0-9])'
const globalCache = new WeakMap<RegExp, SearchForm>()
function globalOf(pattern: RegExp): SearchForm {
  let g = globalCache.get(pattern)
  if (!g) {
    const flags = new Set(pattern.flags.replace(/[gy]/g, ''))
    flags.add('g')
    flags.add('d')
    const guarded = pattern.source.startsWith(START) ? 'start' : pattern.source.startsWith(WORD_START) ? 'word' : false
    const source = guarded === 'start' ? pattern.source.slice(START.length) : guarded === 'word' ? pattern.source.slice(WORD_START.length) : pattern.source
    g = { re: new RegExp(source, [...flags].join('')), guarded }
    globalCache.set(pattern, g)
  }
  return g
}

const WORD = /[A-Za-z0-9_-]/
const ALNUM = /[A-Za-z0-9]/
/** The `START` guard at `i`: not continuing a word, unless right after a JSON escape (`\n`, `\r`, `\t`). */
function guardHolds(text: string, i: number): boolean {
  if (i === 0 || !WORD.test(text[i - 1])) return true
  return i >= 2 && text[i - 2] === '\\' && 'nrt'.includes(text[i - 1])
}

/**
 * Every match of `pattern` in `text` as `[start, end)`, using the `secret`
 * group when the pattern has one. Zero-length matches are skipped.
 * @example
 * matchSpans('a=1 a=2', /a=(?<secret>\d)/) // [[2, 3], [6, 7]]
 */
export function matchSpans(text: string, pattern: RegExp): Array<[number, number]> {
  const { re, guarded } = globalOf(pattern)
  re.lastIndex = 0
  const out: Array<[number, number]> = []
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0].length === 0 || (guarded === 'start' && !guardHolds(text, m.index)) || (guarded === 'word' && m.index > 0 && ALNUM.test(text[m.index - 1]))) {
      re.lastIndex = m.index + 1
      continue
    }
    const span = m.indices?.groups?.secret ?? m.indices?.[0]
    if (span && span[1] > span[0]) out.push([span[0], span[1]])
  }
  return out
}

/**
 * Sorts spans and merges overlapping ones into their union.
 * @example
 * mergeSpans([{ start: 4, end: 9 }, { start: 0, end: 5 }]) // [{ start: 0, end: 9 }]
 */
function mergeSpans<T extends { start: number; end: number }>(spans: readonly T[]): T[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start || b.end - a.end)
  const out: T[] = []
  for (const s of sorted) {
    const last = out[out.length - 1]
    if (last && s.start < last.end) {
      if (s.end > last.end) out[out.length - 1] = { ...last, end: s.end }
    } else out.push({ ...s })
  }
  return out
}

/**
 * Finds secret-looking values. Overlapping matches are merged and reported
 * under the rule of the one that starts first (the longer on a tie).
 * @example
 * findSecrets('key: AKIA' + 'ABCDEFGH23456789') // [{ rule: 'aws-access-key-id', start: 5, end: 25 }]
 */
export function findSecrets(text: string, opts: SecretOptions = {}): SecretMatch[] {
  const candidates = rulesIn(text)
  if (candidates.size === 0) return []
  const disabled = opts.disable?.length ? new Set(opts.disable) : undefined
  const found: SecretMatch[] = []
  for (const r of SECRET_RULES) {
    if (!candidates.has(r) || disabled?.has(r.id)) continue
    for (const [start, end] of matchSpans(text, r.pattern)) found.push({ rule: r.id, start, end })
  }
  return found.length > 1 ? mergeSpans(found) : found
}

/** One search for the anchors of some rules: their alternation, longest first, and the rules each anchor stands for. */
interface AnchorSearch {
  rules: readonly SecretRule[]
  re: RegExp
  rulesOf: Map<string, ReadonlySet<SecretRule>>
  /** The case the anchors are matched in: a rule's own (`i` or not). */
  key: (found: string) => string
}

/**
 * The anchor search of `rules`, matched as the rules are (case-insensitively under `i`). An anchor stands for its own
 * rules and those of every anchor that is a prefix of it (`sk-ant-` is also an `sk-`).
 */
function anchorSearch(rules: readonly SecretRule[], ignoreCase: boolean): AnchorSearch {
  const key = ignoreCase ? (a: string) => a.toLowerCase() : (a: string) => a
  const own = new Map<string, SecretRule[]>()
  for (const r of rules) for (const a of r.anchors) own.set(key(a), [...(own.get(key(a)) ?? []), r])
  const list = [...own.keys()].sort((a, b) => b.length - a.length || (a < b ? -1 : 1))
  const rulesOf = new Map(list.map((a) => [a, new Set(list.filter((b) => a.startsWith(b)).flatMap((b) => own.get(b)!))] as const))
  return { rules, re: new RegExp(list.map(escapeRegExp).join('|'), ignoreCase ? 'gi' : 'g'), rulesOf, key }
}

const CASED = anchorSearch(SECRET_RULES.filter((r) => !r.pattern.flags.includes('i')), false)
const UNCASED = anchorSearch(SECRET_RULES.filter((r) => r.pattern.flags.includes('i')), true)
/**
 * From this length on, the case-insensitive rules are run without looking for their anchors first: in a long text
 * their words (`key`, `access`, `auth`) occur all the time, and the search for them costs about what the rules do.
 */
const LONG_TEXT = 16 * 1024

/**
 * The rules whose anchors occur in `text`: the only ones that can match in it.
 * @note Issue 14: every rule was run over every string a request holds (18 searches per string, most of
 * them in a few words of prose); one pass for the anchors finds most texts hold none. Every start
 * position is tried, and at each the longest anchor that occurs there wins, so an anchor that is a
 * prefix of another is never hidden by it. The anchors of case-sensitive rules are searched case-sensitively,
 * which V8 does several times faster than the same search under `i` (bench/README.md).
 * @example
 * rulesIn('Bearer abc').has(SECRET_RULES.find((r) => r.id === 'bearer-token')!) // true
 */
function rulesIn(text: string): ReadonlySet<SecretRule> {
  const out = new Set<SecretRule>()
  addAnchored(text, CASED, out)
  if (text.length < LONG_TEXT) addAnchored(text, UNCASED, out)
  else for (const r of UNCASED.rules) out.add(r)
  return out
}

/** Adds to `out` the rules of `search` whose anchors occur in `text`. */
function addAnchored(text: string, { rules, re, rulesOf, key }: AnchorSearch, out: Set<SecretRule>): void {
  let flagged = 0
  re.lastIndex = 0
  for (let m = re.exec(text); m && flagged < rules.length; m = re.exec(text)) {
    for (const r of rulesOf.get(key(m[0]))!) if (!out.has(r)) (out.add(r), flagged++)
    re.lastIndex = m.index + 1
  }
}

/**
 * `s` as a regular expression source that matches it literally.
 * @example
 * escapeRegExp('ya29.') // 'ya29\\.'
 */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/**
 * The placeholder for a secret: `[REDACTED:` + first 8 hex of its sha256 + `]`.
 * The same secret always gives the same placeholder.
 * @example
 * placeholderFor('hunter2') // '[REDACTED:f52fbd32]'
 */
export function placeholderFor(secret: string): string {
  return `[REDACTED:${sha256Prefix(canonicalSecret(secret))}]`
}

const JSON_ESCAPE = /\\(?:u[0-9a-fA-F]{4}|["\\/bfnrt])/
const UNESCAPE: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }

/**
 * What a placeholder is the hash of: the secret with JSON escapes undone (up to three levels, for JSON
 * inside a JSON string), line endings as `\n`, and a PEM block without whitespace.
 * @note Issue 13: the same PEM key travelled raw in a tool output and `\n`-escaped in the next request,
 * and got two placeholders, so every replay drifted. One secret gets one placeholder in any encoding.
 */
function canonicalSecret(secret: string): string {
  let s = secret
  for (let i = 0; i < 3 && JSON_ESCAPE.test(s); i++)
    s = s.replace(/\\(u[0-9a-fA-F]{4}|["\\/bfnrt])/g, (_, e: string) => (e.length === 5 ? String.fromCharCode(parseInt(e.slice(1), 16)) : (UNESCAPE[e] ?? e)))
  s = s.replace(/\r\n?/g, '\n')
  return /^-----BEGIN/.test(s) ? s.replace(/\s+/g, '') : s
}

/**
 * Replaces spans of `text` (merged when they overlap; a merged group of
 * several spans becomes the placeholder of its whole text).
 * @example
 * replaceSpans('abc', [{ start: 1, end: 2, with: '_' }]) // 'a_c'
 */
export function replaceSpans(text: string, spans: readonly ReplaceSpan[]): string {
  let out = ''
  let pos = 0
  for (const s of mergeReplaceSpans(spans)) {
    out += text.slice(pos, s.start) + (s.with ?? placeholderFor(text.slice(s.start, s.end)))
    pos = s.end
  }
  return out + text.slice(pos)
}

/**
 * Like {@link mergeSpans}, but a span keeps its own `with` only when nothing
 * overlaps it.
 * @example
 * mergeReplaceSpans([{ start: 0, end: 3, with: 'x' }, { start: 2, end: 5 }]) // [{ start: 0, end: 5 }]
 */
export function mergeReplaceSpans(spans: readonly ReplaceSpan[]): ReplaceSpan[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start || b.end - a.end)
  const out: ReplaceSpan[] = []
  for (const s of sorted) {
    const last = out[out.length - 1]
    if (last && s.start < last.end) {
      out[out.length - 1] = { start: last.start, end: Math.max(last.end, s.end) }
    } else out.push({ ...s })
  }
  return out
}

/**
 * Replaces each secret with its placeholder. For `Bearer <token>` only the
 * token is replaced.
 * @example
 * redactText('Authorization: Bearer ' + token) // 'Authorization: Bearer [REDACTED:1a2b3c4d]'
 */
export function redactText(text: string, opts: SecretOptions = {}): string {
  return replaceSpans(text, findSecrets(text, opts))
}

/**
 * Redacts text headed for a terminal or log (error messages, warnings); all
 * rules run. Non-string input is stringified first.
 * @example
 * throw new Error(redactMessage(`request failed: ${url}`))
 */
export function redactMessage(text: unknown): string {
  return redactText(typeof text === 'string' ? text : String(text))
}

/**
 * The one redactor that runs before hashing and before disk: headers, URLs,
 * JSON bodies and streamed chunks all go through the same rules.
 */
import { sha256Hex, stableJson } from './stable-json.js'
import { findSecrets, matchSpans } from '../secrets/find.js'
import { mergeReplaceSpans, placeholderFor, replaceAcrossChunks, replaceSpans, type ReplaceSpan } from '../secrets/redact.js'
import { CASED_ANCHOR, escapeRegExp, SECRET_RULES, UNCASED_ANCHOR } from '../secrets/rules.js'
import { parsePath, replaceAtPath, type PathSegment } from './json-path.js'
import { decodedSpans, LOOKS_JSON } from './stream-view.js'
import { SENSITIVE_QUERY_PARAMS, sensitiveHeaders } from './redact-names.js'
import { encodeQueryValue, overlapsAny, safeDecode } from './redact-spans.js'

export interface RedactorConfig {
  /** Extra header names whose whole value is redacted (case-insensitive). */
  headers?: string[]
  /** Extra URL query parameter names whose value is redacted (case-insensitive). */
  queryParams?: string[]
  /** Extra JSON paths in bodies to blank, e.g. `metadata.user_id`, `messages[*].content`. */
  bodyPaths?: string[]
  /** Built-in rule ids the redactor skips. The secret scan still runs every rule. */
  disable?: string[]
  /** Extra replacements. A string pattern is literal text; `with` defaults to the placeholder of the match. */
  replace?: Array<{ pattern: RegExp | string; with?: string }>
}

export interface Redactor {
  /** `v1:<8 hex>` identifying the effective config; stored in fixtures. */
  readonly marker: string
  /** The config it was built from (a process that takes over a run builds the same redactor from it). */
  readonly config: RedactorConfig
  headers(h: Record<string, string>): Record<string, string>
  url(u: string): string
  json(value: unknown): unknown
  /**
   * A request's URL and body (parsed JSON, or text) redacted together, as `url` and `json` / `text` do. `raw`: the
   * body's text as sent, when `body` was parsed from it (a request whose text shows no sign of a secret is not searched).
   */
  request(url: string, body: RequestBody, raw?: string): { url: string; body: RequestBody }
  chunks(chunks: readonly string[]): string[]
  text(s: string): string
}

/** A request body as redaction sees it: parsed JSON, text that is not JSON, or none. */
export type RequestBody = { json: unknown } | { text: string } | null

const lowerSet = (names: readonly string[]): string[] => [...new Set(names.map((n) => n.toLowerCase()))].sort()

/**
 * Builds a redactor. Equal configs give equal markers, in any process.
 * @example
 * const r = createRedactor({ headers: ['x-tenant-token'], bodyPaths: ['metadata.user_id'] })
 * r.url('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent?key=' + key)
 * // '…:generateContent?key=[REDACTED:0c1d2e3f]'
 */
export function createRedactor(config: RedactorConfig = {}): Redactor {
  // @note issue 14: every run built its redactor again; one per configuration is enough (a redactor holds no state).
  const key = configKey(config)
  const known = redactors.get(key)
  if (known) return known
  const made = buildRedactor(config)
  if (redactors.size >= 64) redactors.delete(redactors.keys().next().value!)
  redactors.set(key, made)
  return made
}

const redactors = new Map<string, Redactor>()

/** A config as a string: equal strings, equal redactors (a RegExp by its source and flags). */
function configKey(config: RedactorConfig): string {
  return JSON.stringify([
    sensitiveHeaders(),
    config.headers ?? [],
    config.queryParams ?? [],
    config.bodyPaths ?? [],
    config.disable ?? [],
    (config.replace ?? []).map((r) =>
      typeof r.pattern === 'string' ? ['s', r.pattern, r.with ?? null] : ['r', r.pattern.source, r.pattern.flags, r.with ?? null],
    ),
  ])
}

function buildRedactor(config: RedactorConfig): Redactor {
  const headerNames = new Set(lowerSet([...sensitiveHeaders(), ...(config.headers ?? [])]))
  const paramNames = new Set(lowerSet([...SENSITIVE_QUERY_PARAMS, ...(config.queryParams ?? [])]))
  const bodyPaths = [...new Set(config.bodyPaths ?? [])].sort()
  const parsedPaths: PathSegment[][] = bodyPaths.map(parsePath)
  const disable = lowerSet(config.disable ?? [])
  const replace = (config.replace ?? []).map((r) => ({
    pattern: typeof r.pattern === 'string' ? new RegExp(escapeRegExp(r.pattern)) : r.pattern,
    with: r.with,
  }))
  /** Each `replace` pattern as a test of one string: a string it does not match has none of its spans. */
  const replaceTests = replace.map((r) => new RegExp(r.pattern.source, r.pattern.flags.replace(/[gy]/g, '')))

  const identity = {
    headers: [...headerNames],
    queryParams: [...paramNames],
    bodyPaths,
    rules: SECRET_RULES.map((r) => r.id).filter((id) => !disable.includes(id)),
    replace: (config.replace ?? []).map((r) =>
      typeof r.pattern === 'string'
        ? { text: r.pattern, with: r.with ?? null }
        : { source: r.pattern.source, flags: [...r.pattern.flags].sort().join(''), with: r.with ?? null },
    ),
  }
  const marker = `v1:${sha256Hex(stableJson(identity)).slice(0, 8)}`

  function spans(s: string): ReplaceSpan[] {
    const out: ReplaceSpan[] = findSecrets(s, { disable }).map(({ start, end }) => ({ start, end }))
    for (const r of replace) {
      for (const [start, end] of matchSpans(s, r.pattern)) out.push({ start, end, with: r.with })
    }
    return out
  }
  /**
   * Spans of the raw text and of its decoded view (JSON strings decoded, a stream's deltas joined).
   * A raw finding that overlaps a decoded one is dropped: the decoded view found that secret, with
   * the placeholder of the decoded secret, and a raw match can run across JSON structure (a PEM
   * key from BEGIN in one SSE event to END in the next), which must stay as it was.
   */
  function allSpans(s: string): ReplaceSpan[] {
    const raw = spans(s)
    const decoded = LOOKS_JSON.test(s) ? decodedSpans(s, spans, placeholderFor).spans : []
    if (decoded.length === 0) return raw
    const covered = mergeReplaceSpans(decoded)
    return [...decoded, ...raw.filter((r) => !overlapsAny(covered, r))]
  }
  const text = (s: string): string => {
    const found = allSpans(s)
    return found.length ? replaceSpans(s, found) : s
  }

  /**
   * `redactWith(text)`, with the strings it redacts searched in one go: a first pass keeps every string that does not
   * look like JSON as it is and collects it; one search over them all (joined by NUL, which no rule reads as part of
   * a secret, so a string with a finding makes the joined text have one) and a test of each `replace` pattern then
   * tell whether the first pass is the answer. Only when something was found does it run again, string by string.
   * @note issue 25: a request body was searched string by string, 3 calls into src/secrets for each of its strings
   * (98 for one replayed chat request), though most requests hold no secret at all.
   */
  function batched<T>(redactWith: (text: (s: string) => string) => T): T {
    const plain: string[] = []
    const first = redactWith((s) => (LOOKS_JSON.test(s) ? text(s) : (plain.push(s), s)))
    const clean =
      plain.length === 0 || (!replaceTests.some((re) => plain.some((s) => re.test(s))) && findSecrets(plain.join('\u0000'), { disable }).length === 0)
    return clean ? first : redactWith(text)
  }

  function headerValue(value: string): string {
    // Keep an auth scheme word (`Bearer `, `Basic `, `AWS4-HMAC-SHA256 `) readable.
    const m = /^([A-Za-z][A-Za-z0-9-]*) +(\S.*)$/s.exec(value)
    if (m && /^(bearer|basic|token|digest|aws4-hmac-sha256|apikey|key)$/i.test(m[1])) return `${m[1]} ${placeholderFor(m[2])}`
    return placeholderFor(value)
  }

  function urlWith(u: string, text: (s: string) => string): string {
    let out = u.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/?#@]*)@/, (_all, scheme: string, userinfo: string) => {
      const colon = userinfo.indexOf(':')
      if (colon < 0) return `${scheme}${placeholderFor(userinfo)}@`
      return `${scheme}${userinfo.slice(0, colon)}:${placeholderFor(userinfo.slice(colon + 1))}@`
    })
    out = out.replace(/([?&#])([^=&#]+)=([^&#]*)/g, (all, sep: string, name: string, value: string) => {
      if (!value) return all
      if (paramNames.has(safeDecode(name).toLowerCase())) return `${sep}${name}=${placeholderFor(safeDecode(value))}`
      // @note issue 13: a value is searched decoded (a PEM key or a URL with a password is all %-escapes on the wire).
      const decoded = safeDecode(value)
      const redacted = text(decoded)
      return redacted === decoded ? all : `${sep}${name}=${encodeQueryValue(redacted)}`
    })
    return text(out)
  }

  /** `value` with the configured body paths blanked. */
  function withPaths(value: unknown): unknown {
    let v = value
    for (const path of parsedPaths) {
      v = replaceAtPath(v, path, (node) => placeholderFor(typeof node === 'string' ? node : (stableJson(node) ?? 'undefined')))
    }
    return v
  }

  return {
    marker,
    config,
    text,
    url: (u) => batched((t) => urlWith(u, t)),
    json(value) {
      const v = withPaths(value)
      return batched((t) => deepRedact(v, t))
    },
    request(u, body, raw) {
      const v = body && 'json' in body ? withPaths(body.json) : undefined
      if (replace.length === 0 && plainUrl(u, paramNames) && (body === null || (v !== undefined && raw !== undefined && plainJson(raw) && restClean(v, text))))
        return { url: u, body: body && { json: v } }
      return batched((t) => ({ url: urlWith(u, t), body: body === null ? null : 'json' in body ? { json: deepRedact(v, t) } : { text: t(body.text) } }))
    },
    headers(h) {
      const out: Record<string, string> = {}
      for (const [rawName, value] of Object.entries(h)) {
        const name = rawName.toLowerCase()
        const redacted = headerNames.has(name) ? headerValue(String(value)) : text(String(value))
        out[name] = name in out ? `${out[name]}, ${redacted}` : redacted
      }
      return out
    },
    chunks(chunks) {
      return replaceAcrossChunks(chunks, allSpans(chunks.join('')))
    },
  }
}

/** Whether `text` has an anchor of a secret rule: where none occurs, no rule matches. */
const anchored = (text: string): boolean => CASED_ANCHOR.test(text) || UNCASED_ANCHOR.test(text)

/**
 * Whether no string of the JSON text `raw` can hold a secret, as its raw text shows: no anchor occurs in it, and no
 * escape that could hide one (`\u0073k-` is `sk-`, `:\/\/` is `://`; the other escapes decode to characters no anchor has,
 * so an anchor in a decoded string is in the raw text too).
 * @note issue 25: most requests hold no secret; their canonical form no longer walks a copy of the body through the
 * search (a replayed model call enters src/secrets only when its text has an anchor).
 */
const plainJson = (raw: string): boolean => !ESCAPE_HIDING.test(raw) && !anchored(raw)
const ESCAPE_HIDING = /\\[u/]/

/**
 * Whether the redactor leaves the URL `u` as it is, as its text shows: no user info or %-escape, no anchor but the
 * scheme's `://` (basic-auth-url needs an `@`), and no query parameter whose value is always redacted.
 */
function plainUrl(u: string, paramNames: ReadonlySet<string>): boolean {
  const i = u.indexOf('://')
  const text = i < 0 ? u : `${u.slice(0, i)} ${u.slice(i + 3)}`
  if (/[@%]/.test(text) || anchored(text)) return false
  for (const m of text.matchAll(/[?&#]([^=&#]+)=/g)) if (paramNames.has(m[1].toLowerCase())) return false
  return true
}

/**
 * Whether `text` leaves the strings of `value` whose raw text cannot tell as they are: one that looks like JSON (its
 * decoded view joins a stream's deltas, so a key split across two of them is in no raw string), and a value under a
 * label (`x_token`, searched as `x_token=…`). The raw text vouches for every other string.
 */
function restClean(value: unknown, text: (s: string) => string): boolean {
  if (typeof value === 'string') return !LOOKS_JSON.test(value) || text(value) === value
  if (Array.isArray(value)) return value.every((v) => restClean(v, text))
  if (!isPlainObject(value)) return true
  for (const k in value) {
    const v = value[k]
    if (!restClean(k, text) || (typeof v === 'string' && SECRET_LABEL.test(k) ? labelledValue(k, v, text) !== v : !restClean(v, text))) return false
  }
  return true
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** Object keys that label their value as a secret (the labelled rules then see `key=value`). */
const SECRET_LABEL = /api[_-]?key|apikey|token|secret|passw(?:or)?d/i

function deepRedact(value: unknown, text: (s: string) => string): unknown {
  if (typeof value === 'string') return text(value)
  if (Array.isArray(value)) return value.map((v) => deepRedact(v, text))
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[text(k)] = typeof v === 'string' && SECRET_LABEL.test(k) ? labelledValue(k, v, text) : deepRedact(v, text)
    return out
  }
  return value
}

/**
 * A string value under a secret-looking key, redacted as the text `key=value` would be: `{"password": "…"}`
 * is a labelled secret as much as `password=…` is, and the secret scan, which reads the stored line, sees it so.
 */
function labelledValue(key: string, value: string, text: (s: string) => string): string {
  const head = `${key}=`
  const redacted = text(head + value)
  return redacted.startsWith(head) ? redacted.slice(head.length) : text(value)
}

/**
 * The redactor with the built-in rules only.
 * @example
 * defaultRedactor.headers({ Authorization: 'Bearer ' + token }) // { authorization: 'Bearer [REDACTED:…]' }
 */
export const defaultRedactor: Redactor = createRedactor()

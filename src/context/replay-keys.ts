/**
 * Placeholder keys (SPEC §2 "Keys"). A replay sends nothing to a provider, but SDK constructors insist on
 * a key (`new OpenAI()` throws without `OPENAI_API_KEY`) and suites gate tests on them
 * (`describe.skipIf(!process.env.GROQ_API_KEY)`). While recording, the fixture's manifest notes the
 * names of the variables whose values its requests carried (`keyVars`); on replay exactly those get a
 * placeholder when unset, so the gates open for the providers the fixtures recorded and for no other.
 */
import { vendorTable } from '../providers/vendors.js'

/** The marker in every placeholder value; the full value names its variable (`gsk_fluxlab-replay-no-key-GROQ_API_KEY`). */
export const REPLAY_KEY = 'fluxlab-replay-no-key'

/**
 * The placeholder a replay puts in `name`: the vendor's public key prefix where it has one, then the marker and the
 * variable's name (no secret rule matches it, so it is never redacted out of a message that names it).
 * @example
 * replayKeyFor('GROQ_API_KEY') // 'gsk_fluxlab-replay-no-key-GROQ_API_KEY'
 * replayKeyFor('MY_GATEWAY_TOKEN') // 'fluxlab-replay-no-key-MY_GATEWAY_TOKEN'
 */
export function replayKeyFor(name: string): string {
  // @note issue 40 performance: a replay fills its variables at every run (8 for a fixture recorded before `keyVars`), each
  // a search of the vendors: remembered by name while the vendor table is the same (registering a family makes a new one).
  if (placeholders.vendors !== vendorTable.vendors) {
    placeholders.vendors = vendorTable.vendors
    placeholders.known.clear()
  }
  let value = placeholders.known.get(name)
  if (value === undefined) {
    // @note the prefix is the vendor's documented format (its family's `vendors`), never read from a key.
    const prefix = vendorTable.vendors.find((v) => v.keyPrefix !== undefined && v.keyVars.includes(name))?.keyPrefix ?? ''
    placeholders.known.set(name, (value = `${prefix}${REPLAY_KEY}-${name}`))
  }
  return value
}

const placeholders: { vendors?: typeof vendorTable.vendors; known: Map<string, string> } = { known: new Map() }

/**
 * Whether a value is (or holds) a placeholder of a replay, not a real key.
 * @example
 * isReplayKey(process.env.OPENAI_API_KEY)
 */
export function isReplayKey(value: string | undefined): boolean {
  return value?.includes(REPLAY_KEY) === true
}

/**
 * The variable whose placeholder `text` carries (a header value, a URL), if it carries one.
 * @example
 * placeholderIn('Bearer fluxlab-replay-no-key-GROQ_API_KEY') // 'GROQ_API_KEY'
 */
export function placeholderIn(text: string): string | undefined {
  const at = text.indexOf(REPLAY_KEY)
  if (at < 0) return undefined
  return /^-([A-Za-z_][A-Za-z0-9_]*)/.exec(text.slice(at + REPLAY_KEY.length))?.[1] ?? ''
}

/**
 * The key variables a fixture's replay fills: the names its manifest noted, else (a fixture recorded before
 * fluxlab noted them) those of the vendors (each family's `vendors`) serving its provider hosts. A provider host no vendor names (a local
 * server, a gateway) counts as the vendor hosts in `vendorHosts`: those of its recorded calls' families, when the
 * caller has read them.
 * @example
 * replayKeyVars({ keyVars: ['GROQ_API_KEY'], providerHosts: ['api.groq.com'] }) // ['GROQ_API_KEY']
 * replayKeyVars({ providerHosts: ['api.anthropic.com'] }) // ['ANTHROPIC_API_KEY']
 * replayKeyVars({ providerHosts: ['127.0.0.1:4010'] }, ['api.openai.com']) // ['OPENAI_API_KEY']
 */
export function replayKeyVars(manifest: { keyVars?: unknown; providerHosts?: unknown }, vendorHosts: readonly string[] = []): string[] {
  if (Array.isArray(manifest.keyVars)) return manifest.keyVars.filter((k): k is string => typeof k === 'string' && VAR_NAME.test(k))
  const hosts = Array.isArray(manifest.providerHosts) ? manifest.providerHosts.filter((h): h is string => typeof h === 'string') : []
  const out = new Set<string>()
  let unknown = false
  for (const host of hosts) {
    const vars = hostKeyVars(host)
    if (vars.length === 0) unknown = true
    for (const v of vars) out.add(v)
  }
  if (unknown) for (const host of vendorHosts) for (const v of hostKeyVars(host)) out.add(v)
  return [...out]
}

/**
 * The key variables of the vendor serving a host (the families' `vendors`; none for a host no vendor names). A host of
 * a gateway or an emulator is in no vendor: its fixture's names come from the manifest.
 */
function hostKeyVars(host: string): readonly string[] {
  const name = host.toLowerCase().replace(/:443$/, '')
  return vendorTable.vendors.find((v) => v.hosts.some((h) => (typeof h === 'string' ? h === name : h.test(name))))?.keyVars ?? []
}

const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
/** Name parts that say a variable holds a credential. */
const CREDENTIAL_PART = /(^|_)(API_?KEY|KEY|KEYS|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PAT|AUTH|CREDENTIAL|CREDENTIALS|BEARER)(_|$)/i

/**
 * Whether a variable's name reads as a credential's (`GROQ_API_KEY`, `HF_TOKEN`, `MY_GATEWAY_SECRET`).
 * @example
 * looksLikeCredential('FIREWORKS_API_KEY') // true
 */
export function looksLikeCredential(name: string): boolean {
  return CREDENTIAL_PART.test(name)
}
/** Request headers whose value is a credential. */
const CREDENTIAL_HEADER =
  /^(authorization|proxy-authorization|x-api-key|api-key|x-goog-api-key|anthropic-api-key|x-amz-security-token|cookie)$|key|token|secret|auth/i
/** Companion variables an SDK needs beside one that reaches the wire (a SigV4 request carries the key id, never the secret). */
const COMPANIONS: Record<string, readonly string[]> = { AWS_ACCESS_KEY_ID: ['AWS_SECRET_ACCESS_KEY'] }

/**
 * The names of the environment variables whose values `request` carries in a header, its URL or its query
 * (never the values): a variable whose name reads as a credential (`…_API_KEY`, `…_TOKEN`, `…_SECRET`), or any
 * variable whose value a credential header or query parameter carries. Values shorter than 8 characters, with
 * whitespace, or holding a URL are never taken for keys (a base URL the request was sent to is not a key).
 * @example
 * const groq = new Request('https://api.groq.com/openai/v1/chat/completions', { headers: { authorization: 'Bearer gsk_x…' } })
 * carriedKeyVars(groq, process.env) // ['GROQ_API_KEY']
 */
export function carriedKeyVars(request: { url: string; headers: Headers }, env: NodeJS.ProcessEnv = process.env): string[] {
  const credential: string[] = []
  const other: string[] = []
  for (const [name, value] of request.headers) (CREDENTIAL_HEADER.test(name) ? credential : other).push(value)
  const url = new URL(request.url)
  for (const [name, value] of url.searchParams) (CREDENTIAL_HEADER.test(name) ? credential : other).push(value)
  const path = safeDecode(url.pathname)
  const out = new Set<string>()
  for (const [name, value] of Object.entries(env)) {
    if (!value || value.length < 8 || /\s/.test(value) || value.includes('://') || isReplayKey(value) || !VAR_NAME.test(name)) continue
    const carried = credential.some((v) => v.includes(value)) || (looksLikeCredential(name) && (other.some((v) => v.includes(value)) || path.includes(value)))
    if (!carried) continue
    out.add(name)
    for (const c of COMPANIONS[name] ?? []) if (env[c]) out.add(c)
  }
  return [...out].sort()
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

/**
 * Issue 38 item 4: the placeholders the runner's main process filled for its global setup (`gate-keys.ts`), comma-separated.
 * A worker started while they stood inherits them; its setup drops them ({@link dropGateKeys}) before its file's own keys.
 */
export const GATE_ENV = 'FLUX_GATE_KEYS'

/**
 * Remove the global setup's placeholders a worker inherited (those {@link GATE_ENV} lists and that still hold their
 * placeholder), so a test file sees its keys as it did while recording, whatever the main process read.
 * @example
 * dropGateKeys(process.env)
 */
export function dropGateKeys(env: NodeJS.ProcessEnv): void {
  const names = env[GATE_ENV]
  if (names === undefined) return
  for (const k of names.split(',')) if (k && env[k] === replayKeyFor(k)) delete env[k]
  delete env[GATE_ENV]
}

const KEY = Symbol.for('fluxlab.replay-keys.v2')
const g = globalThis as Record<symbol, unknown>
const st = (g[KEY] ??= { refs: 0, filled: [] as string[] }) as { refs: number; filled: string[] }

/**
 * Which of `names` a replay fills in `env`: those unset. `AWS_SECRET_ACCESS_KEY` goes only beside a placeholder
 * `AWS_ACCESS_KEY_ID`, so a real key id is never signed with a placeholder secret (that request would carry no
 * placeholder, and would reach AWS).
 * @example
 * missingKeyVars({ OPENAI_API_KEY: 'sk-…' }, ['OPENAI_API_KEY', 'GROQ_API_KEY']) // ['GROQ_API_KEY']
 */
export function missingKeyVars(env: NodeJS.ProcessEnv, names: readonly string[]): string[] {
  const unset = [...new Set(names)].filter((k) => !env[k])
  const keyId = env.AWS_ACCESS_KEY_ID
  return unset.filter((k) => k !== 'AWS_SECRET_ACCESS_KEY' || (keyId ? isReplayKey(keyId) : unset.includes('AWS_ACCESS_KEY_ID')))
}

/**
 * Give each of `names` that is unset a placeholder ({@link missingKeyVars}) until the returned release runs
 * (ref-counted across holders: a test file's setup and the runs inside it).
 * @example
 * const release = fillReplayKeys(process.env, ['GROQ_API_KEY'])
 * try { await agent() } finally { release() }
 */
export function fillReplayKeys(env: NodeJS.ProcessEnv, names: readonly string[]): () => void {
  st.refs++
  for (const k of missingKeyVars(env, names)) {
    env[k] = replayKeyFor(k)
    st.filled.push(k)
  }
  let released = false
  return () => {
    if (released) return
    released = true
    if (--st.refs === 0) {
      for (const k of st.filled) if (isReplayKey(env[k])) delete env[k]
      st.filled = []
    }
  }
}

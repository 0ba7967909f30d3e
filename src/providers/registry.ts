import type { JudgeApi, JudgeProviderDefaults, JudgeWire, ModelCallCodec } from './types.js'
import type { ModelIds, Vendor } from './facts.js'
import { FluxError } from '../errors.js'
import { escapeRegExp } from '../secrets/rules.js'
import { anthropicCodec } from './anthropic/index.js'
import { bedrockCodec } from './bedrock/index.js'
import { geminiCodec } from './gemini/index.js'
import { openaiChatCodec } from './openai-chat/index.js'
import { openaiEmbeddingsCodec } from './openai-embeddings/index.js'
import { openaiMediaCodec } from './openai-media/index.js'
import { openaiResponsesCodec } from './openai-responses/index.js'
import { openaiRealtimeCodec } from './openai-realtime/index.js'
import { geminiLiveCodec } from './gemini-live/index.js'
import { vendorTable } from './vendors.js'

/** The built-in families, one registry line each, in the order detection tries them (first match wins). */
const BUILT_IN = [
  openaiChatCodec,
  openaiResponsesCodec,
  anthropicCodec,
  geminiCodec,
  openaiEmbeddingsCodec,
  openaiMediaCodec,
  bedrockCodec,
  openaiRealtimeCodec,
  geminiLiveCodec,
] as const

/**
 * The families registered with `registerFamily`, by name, for the type checker: declare yours in it
 * (`declare module 'fluxlab' { interface RegisteredFamilies { acme: true } }`) and `ProviderFamily` includes it.
 * @example
 * declare module 'fluxlab' { interface RegisteredFamilies { acme: true } }
 */
// biome-ignore lint/suspicious/noEmptyInterface: the empty interface a user's declaration merging fills (`declare module 'fluxlab'`)
export interface RegisteredFamilies {}

/**
 * A provider family's name, derived from the registry (and `RegisteredFamilies`): it checks the `hosts` option and the
 * `family` of every model cell.
 */
export type ProviderFamily = (typeof BUILT_IN)[number]['family'] | keyof RegisteredFamilies

/**
 * Every provider family's codec, one per family: the built-in ones, then those `registerFamily` added.
 * @example
 * codecs.map((c) => c.family)
 * // ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'openai-embeddings', 'openai-media', 'bedrock', 'openai-realtime', 'gemini-live']
 */
export const codecs: readonly ModelCallCodec<ProviderFamily>[] = [...BUILT_IN]

/** What the layers above read of every family at once, derived from `codecs` (again at each `registerFamily`). */
interface FamilyTables {
  /** Every family's name. */
  readonly names: Set<string>
  /** The headers some family says carry a secret. */
  readonly sensitiveHeaders: Set<string>
  /** An id some family's API mints (its prefix is the first group), or nothing when none does. */
  mintedId: RegExp
  /** Objects whose `id` some family's clients invent. */
  readonly clientIdOwners: Set<string>
  /** Every family's vendors, in registry order. */
  vendors: readonly Vendor[]
  /** Every family's model-id rules, in registry order. */
  modelIds: readonly ModelIds[]
}

/**
 * The tables derived from the registry. Their fields are replaced or refilled in place when a family is registered, so
 * read them where they are used, never copy them at load time.
 * @example
 * familyTables.names.has(cell.family)
 */
export const familyTables: FamilyTables = {
  names: new Set(),
  sensitiveHeaders: new Set(),
  mintedId: /$^/,
  clientIdOwners: new Set(),
  vendors: [],
  modelIds: [],
}

function derive(): void {
  const t = familyTables
  const refill = (set: Set<string>, items: Iterable<string>) => {
    set.clear()
    for (const i of items) set.add(i)
  }
  refill(
    t.names,
    codecs.map((c) => c.family),
  )
  refill(
    t.sensitiveHeaders,
    codecs.flatMap((c) => c.sensitiveHeaders ?? []).map((h) => h.toLowerCase()),
  )
  refill(
    t.clientIdOwners,
    codecs.flatMap((c) => c.clientIdOwners ?? []),
  )
  const minted = [...new Set(codecs.flatMap((c) => c.mintedIds ?? []))]
  t.mintedId = minted.length ? new RegExp(`^(${minted.map(escapeRegExp).join('|')})_[A-Za-z0-9_-]{6,}$`) : /$^/
  t.vendors = codecs.flatMap((c) => c.vendors ?? [])
  vendorTable.vendors = t.vendors
  t.modelIds = codecs.flatMap((c) => (c.modelIds ? [c.modelIds] : []))
}
derive()

const NAME = /^[a-z][a-z0-9-]*$/

/**
 * Register a provider family of your own (a wire format fluxlab does not know) in this process: detection tries it
 * after the built-in families, and every table (cell validation, keys, headers, ids, prices) counts it. Returns the undo.
 * @note Register it where your tests load (a setup file), before the first request; a child process registers its own.
 * @example
 * const unregister = registerFamily(acmeCodec)
 */
export function registerFamily(codec: ModelCallCodec): () => void {
  const failed = `register the provider family "${codec.family}"`
  if (!NAME.test(codec.family))
    throw new FluxError('FLUX_BAD_CONFIG', {
      failed,
      reason: 'its name is not lowercase letters, digits and dashes',
      fix: 'Name it like the built-in families (`openai-chat`).',
    })
  if (familyTables.names.has(codec.family))
    throw new FluxError('FLUX_BAD_CONFIG', {
      failed,
      reason: 'a family of that name is registered already',
      fix: 'Register each family once, or name yours otherwise.',
    })
  const list = codecs as ModelCallCodec[]
  list.push(codec)
  derive()
  return () => {
    const at = list.indexOf(codec)
    if (at >= 0) list.splice(at, 1)
    derive()
  }
}

/**
 * The codec of a family.
 * @example
 * codecFor('gemini').family // 'gemini'
 */
export function codecFor(family: ProviderFamily): ModelCallCodec<ProviderFamily> {
  const codec = codecs.find((c) => c.family === family)
  if (codec === undefined) throw new Error(`no codec for provider family "${family}"`)
  return codec
}

/**
 * The codec that reads a request as a model call, or `undefined` when it is
 * not one. Detection goes by method and path, so a provider behind a proxy
 * or on 127.0.0.1 is still recognized; only POSTs are model calls.
 * `hosts` (user-added `host` or `host:port` → family) makes that family win
 * for its hosts when its codec accepts the path; a path no codec accepts
 * stays a non-model call whatever the host.
 * @example
 * detectModelCall('POST', new URL('http://127.0.0.1:11434/v1/chat/completions'))?.family // 'openai-chat'
 * detectModelCall('GET', new URL('https://api.openai.com/v1/models')) // undefined
 * detectModelCall('POST', new URL('http://llm.internal:8080/v1/messages'), { 'llm.internal:8080': 'anthropic' })?.family // 'anthropic'
 */
/**
 * The family whose provider serves `host` (the codecs' `hosts`), for a request that was not
 * recognised as a model call there.
 * @example
 * providerOfHost('api.anthropic.com') // 'anthropic'
 */
export function providerOfHost(host: string, hosts: Record<string, ProviderFamily> = {}): ProviderFamily | undefined {
  const h = host.toLowerCase().replace(/:443$/, '')
  return hosts[h] ?? hosts[h.split(':')[0]] ?? codecs.find((c) => c.hosts.includes(h))?.family
}

export function detectModelCall(method: string, url: URL, hosts?: Record<string, ProviderFamily>): ModelCallCodec<ProviderFamily> | undefined {
  if (method.toUpperCase() !== 'POST') return undefined
  const family = hosts?.[url.host] ?? hosts?.[url.hostname]
  if (family !== undefined) {
    const preferred = codecFor(family)
    if (preferred.detect(method, url)) return preferred
  }
  return codecs.find((c) => c.detect(method, url))
}

/**
 * Whether a request is a model call, or at least goes to a provider's host (so one fluxlab cannot route, such as a
 * WebSocket to `api.openai.com`, or a file upload, is refused rather than let through where a run cannot record it).
 * @example
 * isProviderRequest('GET', new URL('wss://api.openai.com/v1/realtime')) // true
 */
export function isProviderRequest(method: string, url: URL, hosts: Record<string, ProviderFamily> = {}): boolean {
  return detectModelCall(method, url, hosts) !== undefined || providerOfHost(url.host, hosts) !== undefined
}

/**
 * Whether a request reads a provider's model list or one model (`GET /v1/models`, `GET /v1/models/{id}`, Gemini's
 * `GET /v1beta/models`): no model call, but the provider's answer, so a recording keeps it. Found by path on any host,
 * as model calls are (a gateway or an emulator behind a base-URL variable).
 * @example
 * isModelListRequest('GET', new URL('http://127.0.0.1:8080/openai/v1/models')) // true
 */
export function isModelListRequest(method: string, url: URL): boolean {
  return (method === 'GET' || method === 'HEAD') && /\/v\d\w*\/models(?:\/[^/:]+)?$/.test(url.pathname)
}

/** The families that can be a judge, in registry order. */
const judges: readonly JudgeWire[] = codecs.flatMap((c) => (c.judge ? [c.judge] : []))

/**
 * The judge APIs there are, for `Rubric.model(id, { api })`.
 * @example
 * judgeApis // ['openai', 'anthropic', 'gemini']
 */
export const judgeApis: readonly JudgeApi[] = judges.map((j) => j.api)

/**
 * The judge wire of an `api`.
 * @example
 * judgeWire('anthropic').request(ask).url // 'https://api.anthropic.com/v1/messages'
 */
export function judgeWire(api: JudgeApi): JudgeWire {
  const wire = judges.find((j) => j.api === api)
  if (wire === undefined) throw new Error(`no judge wire for api "${api}"`)
  return wire
}

/**
 * What a judge provider (`Rubric.model('<provider>/…')`, lowercased) speaks without an `api`
 * option, and its defaults when a family names it; any other provider speaks the fallback
 * wire (the OpenAI-compatible API) and has no defaults.
 * @example
 * judgeProvider('google').api // 'gemini'
 * judgeProvider('groq') // { api: 'openai' }
 */
export function judgeProvider(provider: string): { api: JudgeApi; defaults?: JudgeProviderDefaults } {
  for (const j of judges) {
    if (Object.hasOwn(j.providers, provider)) return { api: j.api, defaults: j.providers[provider] }
  }
  const fallback = judges.find((j) => j.fallback)
  if (fallback === undefined) throw new Error('no judge wire is the fallback')
  return { api: fallback.api }
}

import { readdirSync } from 'node:fs'
import { describe, expect, it, vi } from 'vitest'
import { codecFor, codecs, detectModelCall, familyTables, judgeApis, judgeProvider, judgeWire, registerFamily } from './registry.js'
import { loadExchanges } from './test-helpers.js'
import type { ProviderFamily } from './registry.js'

const post = (u: string, hosts?: Record<string, ProviderFamily>) => detectModelCall('POST', new URL(u), hosts)?.family

describe('codecs', () => {
  it('lists one codec per family', () => {
    expect(codecs.map((c) => c.family)).toEqual([
      'openai-chat',
      'openai-responses',
      'anthropic',
      'gemini',
      'openai-embeddings',
      'openai-media',
      'bedrock',
      'openai-realtime',
      'gemini-live',
    ])
  })

  it('finds a codec by family', () => {
    for (const c of codecs) expect(codecFor(c.family)).toBe(c)
  })
})

describe('familyTables', () => {
  it("the vendors' light table (read by the setups before any codec loads) holds the built-in codecs' vendors, in order", async () => {
    // a fresh copy of vendors.ts, evaluated without the registry (which writes the table again when it loads)
    vi.resetModules()
    const fresh = (await import('./vendors.js')).vendorTable.vendors
    expect(fresh).toEqual(codecs.flatMap((c) => c.vendors ?? []))
    expect(fresh.length).toBeGreaterThan(3)
  })

  it("derives every table from the families' facts", () => {
    expect([...familyTables.names]).toEqual(codecs.map((c) => c.family))
    for (const id of [
      'call_ZR5UUuTt3pf61kjw',
      'toolu_01NRLabsLyVH',
      'srvtoolu_01abcdef',
      'tooluse_abcdefgh',
      'resp_0123456789',
      'msg_01abcdefgh',
      'fc_0123456',
      'rs_0123456',
      'ws_0123456',
      'chatcmpl_abcdef',
      'ctc_0123456',
    ])
      expect(familyTables.mintedId.exec(id)?.[1], id).toBe(id.slice(0, id.indexOf('_')))
    expect(familyTables.mintedId.test('call_abc')).toBe(false)
    expect([...familyTables.sensitiveHeaders].sort()).toEqual([
      'anthropic-api-key',
      'anthropic-organization-id',
      'openai-organization',
      'openai-project',
      'x-amz-security-token',
      'x-goog-api-key',
    ])
    expect([...familyTables.clientIdOwners]).toEqual(['functionCall', 'functionResponse'])
    expect(familyTables.vendors.flatMap((v) => v.base?.vars ?? [])).toEqual([
      'OPENAI_BASE_URL',
      'OPENAI_API_BASE',
      'ANTHROPIC_BASE_URL',
      'GOOGLE_GEMINI_BASE_URL',
    ])
  })
})

describe('registerFamily', () => {
  const acme = { ...codecFor('anthropic'), family: 'acme', mintedIds: ['acmecall'], sensitiveHeaders: ['X-Acme-Key'] }

  it('adds a family to detection and every table, after the built-in ones, until its undo', () => {
    const undo = registerFamily(acme)
    try {
      expect(codecs.at(-1)).toBe(acme)
      expect(familyTables.names.has('acme')).toBe(true)
      expect(familyTables.sensitiveHeaders.has('x-acme-key')).toBe(true)
      expect(familyTables.mintedId.exec('acmecall_0123456')?.[1]).toBe('acmecall')
      // the built-in family that accepts the path still comes first
      expect(detectModelCall('POST', new URL('https://api.anthropic.com/v1/messages'))?.family).toBe('anthropic')
    } finally {
      undo()
    }
    expect(familyTables.names.has('acme')).toBe(false)
    expect(familyTables.mintedId.test('acmecall_0123456')).toBe(false)
    expect(codecs).toHaveLength(9)
  })

  it('refuses a name already registered, and a name that is not lowercase letters, digits and dashes', () => {
    expect(() => registerFamily({ ...acme, family: 'gemini' })).toThrow(
      '[fluxlab] FLUX_BAD_CONFIG: Failed to register the provider family "gemini": a family of that name is registered already.',
    )
    expect(() => registerFamily({ ...acme, family: 'Acme Co' })).toThrow(
      'Failed to register the provider family "Acme Co": its name is not lowercase letters, digits and dashes.',
    )
    expect(familyTables.names.size).toBe(9)
  })
})

describe('detectModelCall', () => {
  const traffic = new URL('../../test/fixtures/traffic/', import.meta.url)
  it.each(['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'multi-provider', 'errors'])('detects every recorded call under %s/', (dir) => {
    const files = readdirSync(new URL(`${dir}/`, traffic)).filter((f) => f.endsWith('.yaml') || f === 'ToolRunner.json')
    expect(files.length).toBeGreaterThan(0)
    for (const file of files) {
      for (const e of loadExchanges(`${dir}/${file}`)) {
        const family = detectModelCall(e.method, e.url)?.family
        const expected = e.url.pathname.endsWith('/responses')
          ? 'openai-responses'
          : e.url.host === 'api.openai.com'
            ? 'openai-chat'
            : e.url.host === 'api.anthropic.com'
              ? 'anthropic'
              : 'gemini'
        expect(family, `${file} ${e.url.href}`).toBe(expected)
      }
    }
  })

  it('recognizes providers on 127.0.0.1 and behind proxies by path', () => {
    expect(post('http://127.0.0.1:11434/v1/chat/completions')).toBe('openai-chat')
    expect(post('http://localhost:4000/anthropic/v1/messages?beta=true')).toBe('anthropic')
    expect(post('http://127.0.0.1:9000/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse')).toBe('gemini')
    expect(post('https://gateway.example.com/openai/v1/responses')).toBe('openai-responses')
    expect(post('https://gateway.example.com/v1/embeddings')).toBe('openai-embeddings')
    expect(post('http://127.0.0.1:4566/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse-stream')).toBe('bedrock')
    expect(post('https://bedrock-runtime.eu-west-1.amazonaws.com/model/amazon.nova-micro-v1%3A0/invoke')).toBe('bedrock')
  })

  it('never treats other methods or other paths as model calls', () => {
    expect(detectModelCall('GET', new URL('https://api.openai.com/v1/models'))).toBeUndefined()
    expect(detectModelCall('GET', new URL('https://api.openai.com/v1/chat/completions'))).toBeUndefined()
    expect(detectModelCall('OPTIONS', new URL('https://api.anthropic.com/v1/messages'))).toBeUndefined()
    expect(post('https://api.openai.com/v1/files')).toBeUndefined()
    expect(post('https://api.anthropic.com/v1/messages/count_tokens')).toBeUndefined()
  })

  it('lets user hosts choose the family for paths that family reads', () => {
    const hosts: Record<string, ProviderFamily> = { 'llm.internal:8080': 'openai-chat', 'claude.internal': 'anthropic' }
    expect(post('http://llm.internal:8080/v1/chat/completions', hosts)).toBe('openai-chat')
    expect(post('https://claude.internal/v1/messages', hosts)).toBe('anthropic')
  })

  it('keeps unknown paths non-model and falls back to the path for other families on user hosts', () => {
    const hosts: Record<string, ProviderFamily> = { 'llm.internal:8080': 'anthropic' }
    expect(post('http://llm.internal:8080/v1/files', hosts)).toBeUndefined()
    expect(post('http://llm.internal:8080/healthz', hosts)).toBeUndefined()
    expect(post('http://llm.internal:8080/v1/embeddings', hosts)).toBe('openai-embeddings')
  })
})

describe('every codec', () => {
  const url = (c: (typeof codecs)[number]) =>
    new URL(c.family === 'gemini' ? 'http://127.0.0.1/v1beta/models/gemini-2.5-flash:generateContent' : 'http://127.0.0.1/v1/x')

  it.each(codecs.map((c) => [c.family, c] as const))('%s reads its own injected error body back as that error type', (_family, c) => {
    for (const status of [400, 429, 500, 503, 529]) {
      const body = JSON.stringify(c.errorBody(status, 'injected'))
      expect(c.parseResponse(body, 'application/json', status, url(c)).error).toEqual({ type: c.errorType(status), message: 'injected' })
    }
  })

  it.each(codecs.map((c) => [c.family, c] as const))('%s rewrites nothing in a body that is not a JSON object', (_family, c) => {
    for (const text of ['not json', '[]', 'null']) expect(c.rewriteRequest(url(c), text, { model: 'm', instructions: 'i' })).toBeUndefined()
  })
})

describe('judge wires', () => {
  it('lists the judge APIs in registry order, each with its wire', () => {
    expect(judgeApis).toEqual(['openai', 'anthropic', 'gemini'])
    for (const api of judgeApis) expect(judgeWire(api).api).toBe(api)
  })

  it('picks the API and the defaults by provider, and the OpenAI-compatible API for any other', () => {
    expect(judgeProvider('anthropic')).toMatchObject({ api: 'anthropic', defaults: { keyVars: ['ANTHROPIC_API_KEY'] } })
    expect(judgeProvider('google')).toEqual(judgeProvider('gemini'))
    expect(judgeProvider('groq')).toEqual({ api: 'openai' })
    expect(judgeProvider('constructor')).toEqual({ api: 'openai' })
  })
})

import { describe, expect, it } from 'vitest'
import { codecFor } from './registry.js'
import type { RequestRewrite } from './types.js'
import type { ProviderFamily } from './registry.js'

/** A what-if's rewrite, through the family's codec (as the intervention applies it). */
const rewriteRequest = (family: ProviderFamily, url: URL, text: string, rw: RequestRewrite) => codecFor(family).rewriteRequest(url, text, rw)

const url = (p: string) => new URL(`https://api.example.com${p}`)
const body = (r: { text: string } | undefined) => (r ? JSON.parse(r.text) : undefined)

describe('codec.rewriteRequest', () => {
  it('sets the model field and the first system message of a Chat Completions request', () => {
    const r = rewriteRequest(
      'openai-chat',
      url('/v1/chat/completions'),
      JSON.stringify({
        model: 'gpt-4o',
        messages: [
          { role: 'system', content: 'old' },
          { role: 'user', content: 'hi' },
        ],
      }),
      { model: 'gpt-4.1-mini', instructions: 'new' },
    )
    expect(body(r)).toEqual({
      model: 'gpt-4.1-mini',
      messages: [
        { role: 'system', content: 'new' },
        { role: 'user', content: 'hi' },
      ],
    })
  })

  it('adds a system message to a Chat Completions request that has none, and rewrites a developer message', () => {
    expect(
      body(
        rewriteRequest('openai-chat', url('/v1/chat/completions'), JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }), {
          instructions: 'be brief',
        }),
      ),
    ).toEqual({
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
    })
    expect(
      body(
        rewriteRequest('openai-chat', url('/v1/chat/completions'), JSON.stringify({ messages: [{ role: 'developer', content: 'x' }] }), { instructions: 'y' }),
      ),
    ).toEqual({ messages: [{ role: 'developer', content: 'y' }] })
  })

  it("sets Responses' instructions, Anthropic's system and Gemini's systemInstruction", () => {
    expect(body(rewriteRequest('openai-responses', url('/v1/responses'), '{"model":"gpt-4o","input":"hi"}', { instructions: 'x' }))).toEqual({
      model: 'gpt-4o',
      input: 'hi',
      instructions: 'x',
    })
    expect(
      body(
        rewriteRequest('anthropic', url('/v1/messages'), '{"model":"claude","system":[{"type":"text","text":"old"}],"messages":[]}', {
          model: 'claude-haiku-4-5',
          instructions: 'x',
        }),
      ),
    ).toEqual({
      model: 'claude-haiku-4-5',
      system: 'x',
      messages: [],
    })
    expect(
      body(
        rewriteRequest(
          'gemini',
          url('/v1beta/models/gemini-2.0-flash:generateContent'),
          '{"contents":[],"systemInstruction":{"role":"user","parts":[{"text":"old"}]}}',
          { instructions: 'x' },
        ),
      ),
    ).toEqual({
      contents: [],
      systemInstruction: { role: 'user', parts: [{ text: 'x' }] },
    })
  })

  it("rewrites Gemini's model in the URL path", () => {
    const r = rewriteRequest('gemini', url('/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse'), '{"contents":[]}', { model: 'gemini-2.5-flash' })
    expect(r?.url.href).toBe('https://api.example.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse')
  })

  it("rewrites Claude on Vertex AI's model in the URL path, never adding a body field Vertex refuses", () => {
    const vertex = url('/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-haiku-4-5@20251001:streamRawPredict')
    const r = rewriteRequest('anthropic', vertex, '{"anthropic_version":"vertex-2023-10-16","messages":[]}', { model: 'claude-sonnet-4-5@20250929' })
    expect(r?.url.href).toBe('https://api.example.com/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict')
    expect(body(r)).toEqual({ anthropic_version: 'vertex-2023-10-16', messages: [] })
  })

  it("rewrites Bedrock's model in the URL path, and its system where Converse or Claude's body names it", () => {
    const converse = url('/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse-stream')
    const r = rewriteRequest('bedrock', converse, '{"messages":[],"system":[{"text":"old"}]}', {
      model: 'us.anthropic.claude-haiku-4-5-20251001-v1:0',
      instructions: 'x',
    })
    expect(r?.url.pathname).toBe('/model/us.anthropic.claude-haiku-4-5-20251001-v1%3A0/converse-stream')
    expect(body(r)).toEqual({ messages: [], system: [{ text: 'x' }] })
    const invoke = rewriteRequest(
      'bedrock',
      url('/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/invoke'),
      '{"anthropic_version":"bedrock-2023-05-31","messages":[]}',
      { instructions: 'x' },
    )
    expect(body(invoke)).toEqual({ anthropic_version: 'bedrock-2023-05-31', messages: [], system: 'x' })
    expect(rewriteRequest('bedrock', converse, '{"messages":[]}', { model: 'anthropic.claude-3-5-haiku-20241022-v1:0' })).toBeUndefined()
  })

  it('returns undefined when nothing changes or the body is not JSON', () => {
    expect(rewriteRequest('openai-chat', url('/v1/chat/completions'), '{"model":"gpt-4o","messages":[]}', { model: 'gpt-4o' })).toBeUndefined()
    expect(rewriteRequest('openai-chat', url('/v1/chat/completions'), 'not json', { model: 'x' })).toBeUndefined()
    expect(rewriteRequest('openai-embeddings', url('/v1/embeddings'), '{"model":"e","input":"x"}', { instructions: 'x' })).toBeUndefined()
  })
})

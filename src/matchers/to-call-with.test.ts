import { describe, expect, it } from 'vitest'
import { toCallWith } from './to-call-with.js'
import { capitalsOutcome, messageOf, model, testOutcome, tool } from './utils/test-outcome.js'

expect.extend({ toCallWith })

const out = capitalsOutcome()

describe('.toCallWith', () => {
  it('passes when some call of the name has equal args', () => {
    expect(out).toCallWith('get_capital', { country: 'France' })
    expect(out).toCallWith('search', { query: 'population of Paris', limit: 3 })
  })

  it('passes when asymmetric matchers in the args match', () => {
    expect(out).toCallWith('search', expect.objectContaining({ query: expect.stringContaining('Paris') }))
    expect(out).toCallWith('search', { query: expect.stringContaining('population'), limit: expect.any(Number) })
    expect(out).toCallWith('get_capital', expect.anything())
  })

  it('passes when a custom equality tester registered with expect.addEqualityTesters says equal', () => {
    const caseInsensitive = (a: unknown, b: unknown) =>
      typeof a === 'string' && typeof b === 'string' && a.startsWith('ci:') !== b.startsWith('ci:')
        ? a.replace(/^ci:/, '').toLowerCase() === b.replace(/^ci:/, '').toLowerCase()
        : undefined
    expect.addEqualityTesters([caseInsensitive])
    expect(out).toCallWith('get_capital', { country: 'ci:FRANCE' })
    expect(out).not.toCallWith('get_capital', { country: 'FRANCE' })
  })

  it('matches calls the tool channel executed without a model request', () => {
    const http = testOutcome({ steps: [model({ text: 'ok' }), tool({ name: 'GET api.example.com/x', kind: 'http', args: { query: { id: '7' } } })] })
    expect(http).toCallWith('GET api.example.com/x', { query: { id: '7' } })
  })

  it('fails when no call of the name has those args, listing every call of it', () => {
    expect(messageOf(() => expect(out).toCallWith('get_capital', { country: 'Spain' }))).toMatchInlineSnapshot(`
      "expect(outcome).toCallWith(name, args)

      Expected: get_capital called with {"country": "Spain"}
      Received: 2 calls of get_capital, none with those args:
        • {"country": "UK"} (requested at model#1, executed at tool#1 get_capital)
        • {"country": "France"} (requested at model#2, executed at tool#2 get_capital)

      Trace around model#1 (closest call):
      › 1 model#1 openai-chat gpt-4o-mini · in 50 · out 10 · tool_calls
            → get_capital call_<1> {"country":"UK"}
        2 tool#1 get_capital call_<1> {"country":"UK"} → "London"
        3 model#2 openai-chat gpt-4o-mini · in 50 · out 10 · tool_calls"
    `)
  })

  it('fails when the args differ and points the trace at the closest call', () => {
    const e = messageOf(() => expect(out).toCallWith('get_capital', expect.objectContaining({ country: 'France', lang: 'fr' })))
    expect(e).toMatchInlineSnapshot(`
      "expect(outcome).toCallWith(name, args)

      Expected: get_capital called with ObjectContaining {"country": "France", "lang": "fr"}
      Received: 2 calls of get_capital, none with those args:
        • {"country": "UK"} (requested at model#1, executed at tool#1 get_capital)
        • {"country": "France"} (requested at model#2, executed at tool#2 get_capital)

      Trace around model#2 (closest call):
        1 model#1 openai-chat gpt-4o-mini · in 50 · out 10 · tool_calls
            → get_capital call_<1> {"country":"UK"}
        2 tool#1 get_capital call_<1> {"country":"UK"} → "London"
      › 3 model#2 openai-chat gpt-4o-mini · in 50 · out 10 · tool_calls
            → get_capital call_<2> {"country":"France"}
            → search call_<3> {"query":"population of Paris","limit":3}
        4 tool#2 get_capital call_<2> {"country":"France"} → "Paris""
    `)
  })

  it('fails when there is no call of the name', () => {
    expect(messageOf(() => expect(out).toCallWith('get_weather', { city: 'Paris' }))).toMatchInlineSnapshot(`
      "expect(outcome).toCallWith(name, args)

      Expected: get_weather called with {"city": "Paris"}
      Received: no call of get_weather; calls made: ["get_capital", "get_capital", "search"]

      End of trace:
        5 tool#3 search call_<3> {"query":"population of Paris","limit":3} → ["2.1M"]
        6 model#3 openai-chat gpt-4o-mini · in 50 · out 10 · stop
            text: "The capital of the UK is London; the capital of France is Paris (population 2.1M)."
      › final: "The capital of the UK is London; the capital of France is Paris (population 2.1M).""
    `)
  })

  it('returns the expected args and the closest call args for the runner diff', () => {
    const ctx = { equals: (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b) }
    expect(toCallWith.call(ctx, out, 'get_capital', { country: 'France ' })).toMatchObject({
      pass: false,
      expected: { country: 'France ' },
      actual: { country: 'UK' },
    })
  })

  it('throws when received is not an Outcome', () => {
    expect(() => expect('hi').toCallWith('search', {})).toThrow(/toCallWith expects the Outcome/)
  })

  it('throws when the name is not a string or the args are missing', () => {
    expect(() => expect(out).toCallWith(/search/ as never, {})).toThrow(/`name` must be a tool name/)
    expect(messageOf(() => (expect(out).toCallWith as (name: string) => void)('search'))).toMatchInlineSnapshot(`
      "expect(outcome).toCallWith(name)

      [fluxlab] Failed to run toCallWith: \`args\` is missing. Pass the args to compare (expect.anything() for any), or use toCall([name], { mode: 'subset' })
        • received: undefined"
    `)
  })
})

describe('.not.toCallWith', () => {
  it('passes when no call of the name has those args', () => {
    expect(out).not.toCallWith('get_capital', { country: 'Spain' })
    expect(out).not.toCallWith('delete_file', expect.anything())
  })

  it('fails when a call matches', () => {
    expect(messageOf(() => expect(out).not.toCallWith('search', expect.objectContaining({ limit: 3 })))).toMatchInlineSnapshot(`
      "expect(outcome).not.toCallWith(name, args)

      Expected: not search called with ObjectContaining {"limit": 3}
      Received:     search called with {"limit": 3, "query": "population of Paris"} (requested at model#2, executed at tool#3 search)

      Trace around model#2:
        1 model#1 openai-chat gpt-4o-mini · in 50 · out 10 · tool_calls
            → get_capital call_<1> {"country":"UK"}
        2 tool#1 get_capital call_<1> {"country":"UK"} → "London"
      › 3 model#2 openai-chat gpt-4o-mini · in 50 · out 10 · tool_calls
            → get_capital call_<2> {"country":"France"}
            → search call_<3> {"query":"population of Paris","limit":3}
        4 tool#2 get_capital call_<2> {"country":"France"} → "Paris""
    `)
  })
})

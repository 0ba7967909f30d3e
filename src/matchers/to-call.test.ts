import { describe, expect, it } from 'vitest'
import { toCall } from './to-call.js'
import { capitalsOutcome, messageOf, model, testOutcome, tool } from './utils/test-outcome.js'

expect.extend({ toCall })

// Trajectory of capitalsOutcome(): get_capital, get_capital, search.
const out = capitalsOutcome()

describe('.toCall', () => {
  it('passes when the names match in order (strict is the default)', () => {
    expect(out).toCall(['get_capital', 'get_capital', 'search'])
    expect(out).toCall(['get_capital', 'get_capital', 'search'], { mode: 'strict' })
  })

  it('passes on one entry per call when the tool ran without the id the model gave it (an SDK tool loop)', () => {
    const run = testOutcome({
      steps: [
        model({
          toolCalls: [
            { name: 'get_weather', id: 'call_w0000001', args: { city: 'Paris' } },
            { name: 'get_weather', id: 'call_w0000002', args: { city: 'Oslo' } },
          ],
        }),
        tool({ name: 'get_weather', args: { city: 'Oslo' } }),
        tool({ name: 'get_weather', args: { city: 'Paris' } }),
        model({ text: 'Mild in Paris, cold in Oslo.' }),
      ],
    })
    expect(run).toCall(['get_weather', 'get_weather'])
    expect(run.calls.map((c) => [c.id, c.executedAt])).toEqual([
      ['call_w0000001', 'tool#2 get_weather'],
      ['call_w0000002', 'tool#1 get_weather'],
    ])
  })

  it('passes when unordered and the names match with the same counts', () => {
    expect(out).toCall(['search', 'get_capital', 'get_capital'], { mode: 'unordered' })
  })

  it('passes when superset and every expected name was called at least that often', () => {
    expect(out).toCall(['search', 'get_capital'], { mode: 'superset' })
    expect(out).toCall(['get_capital', 'get_capital'], { mode: 'superset' })
    expect(out).toCall([], { mode: 'superset' })
  })

  it('passes when subset and no call falls outside the list, whatever the counts', () => {
    expect(out).toCall(['search', 'get_capital', 'delete_file'], { mode: 'subset' })
  })

  it('counts calls the tool channel executed without a model request', () => {
    const http = testOutcome({ steps: [model({ text: 'hi' }), tool({ name: 'GET api.example.com/x', kind: 'http', args: { query: { a: '1' } } })] })
    expect(http).toCall(['GET api.example.com/x'])
  })

  it('fails when strict and a call differs', () => {
    expect(messageOf(() => expect(out).toCall(['get_capital', 'search', 'search']))).toMatchInlineSnapshot(`
      "expect(outcome).toCall(names)

      Expected: ["get_capital", "search", "search"] (strict: exactly these calls, in this order)
      Received: ["get_capital", "get_capital", "search"]

        • call 2 differs: expected search, received get_capital (requested at model#2)

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

  it('fails when strict and the run made fewer calls', () => {
    expect(messageOf(() => expect(out).toCall(['get_capital', 'get_capital', 'search', 'answer']))).toMatchInlineSnapshot(`
      "expect(outcome).toCall(names)

      Expected: ["get_capital", "get_capital", "search", "answer"] (strict: exactly these calls, in this order)
      Received: ["get_capital", "get_capital", "search"]

        • missing after call 3: answer (the run made 3 calls, expected 4)

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

  it('fails when strict and the run made extra calls', () => {
    expect(messageOf(() => expect(out).toCall(['get_capital']))).toMatchInlineSnapshot(`
      "expect(outcome).toCall(names)

      Expected: ["get_capital"] (strict: exactly these calls, in this order)
      Received: ["get_capital", "get_capital", "search"]

        • unexpected call 2: get_capital (requested at model#2)
        • unexpected call 3: search (requested at model#2)

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

  it('fails when unordered and the counts differ', () => {
    expect(messageOf(() => expect(out).toCall(['search', 'get_capital', 'answer'], { mode: 'unordered' }))).toMatchInlineSnapshot(`
      "expect(outcome).toCall(names, { mode: 'unordered' })

      Expected: ["search", "get_capital", "answer"] (unordered: exactly these calls, in any order)
      Received: ["get_capital", "get_capital", "search"]

        • unexpected: get_capital (requested at model#2)
        • missing: answer (expected 1 call, received 0)

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

  it('fails when superset and an expected name was called too few times', () => {
    expect(messageOf(() => expect(out).toCall(['search', 'search'], { mode: 'superset' }))).toMatchInlineSnapshot(`
      "expect(outcome).toCall(names, { mode: 'superset' })

      Expected: ["search", "search"] (superset: at least these calls, in any order)
      Received: ["get_capital", "get_capital", "search"]

        • missing: search (expected 2 calls, received 1)

      End of trace:
        5 tool#3 search call_<3> {"query":"population of Paris","limit":3} → ["2.1M"]
        6 model#3 openai-chat gpt-4o-mini · in 50 · out 10 · stop
            text: "The capital of the UK is London; the capital of France is Paris (population 2.1M)."
      › final: "The capital of the UK is London; the capital of France is Paris (population 2.1M).""
    `)
  })

  it('fails when subset and a call falls outside the list', () => {
    expect(messageOf(() => expect(out).toCall(['get_capital'], { mode: 'subset' }))).toMatchInlineSnapshot(`
      "expect(outcome).toCall(names, { mode: 'subset' })

      Expected: ["get_capital"] (subset: no call outside this list)
      Received: ["get_capital", "get_capital", "search"]

        • not in the list: search (requested at model#2)

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

  it('returns the sequences for the runner diff (sorted outside strict)', () => {
    const ctx = { equals: () => true }
    expect(toCall.call(ctx, out, ['search'])).toMatchObject({ pass: false, expected: ['search'], actual: ['get_capital', 'get_capital', 'search'] })
    expect(toCall.call(ctx, out, ['search', 'get_capital'], { mode: 'unordered' })).toMatchObject({
      expected: ['get_capital', 'search'],
      actual: ['get_capital', 'get_capital', 'search'],
    })
  })

  it('throws when received is not an Outcome', () => {
    expect(() => expect({ calls: [] }).toCall([])).toThrow(/toCall expects the Outcome/)
  })

  it('throws when names is not an array of strings', () => {
    expect(messageOf(() => expect(out).toCall('search' as never))).toMatchInlineSnapshot(`
      "expect(outcome).toCall(names)

      [fluxlab] Failed to run toCall: \`names\` must be an array of tool-name strings. Pass them as toCall(['search', 'answer'])
        • received: "search""
    `)
    expect(() => expect(out).toCall([1] as never)).toThrow(/`names` must be an array/)
  })

  it('throws when the mode is unknown, listing the valid ones', () => {
    expect(() => expect(out).toCall([], { mode: 'ordered' as never })).toThrow(/'strict', 'unordered', 'subset', 'superset'/)
  })
})

describe('.not.toCall', () => {
  it('passes when the sequence differs', () => {
    expect(out).not.toCall(['search'])
    expect(out).not.toCall(['delete_file'], { mode: 'superset' })
  })

  it('fails when the sequence matches', () => {
    expect(messageOf(() => expect(out).not.toCall(['search', 'get_capital'], { mode: 'superset' }))).toMatchInlineSnapshot(`
      "expect(outcome).not.toCall(names, { mode: 'superset' })

      Expected: not ["search", "get_capital"] (superset: at least these calls, in any order)
      Received:     ["get_capital", "get_capital", "search"]

      Trace around model#1 (first call):
      › 1 model#1 openai-chat gpt-4o-mini · in 50 · out 10 · tool_calls
            → get_capital call_<1> {"country":"UK"}
        2 tool#1 get_capital call_<1> {"country":"UK"} → "London"
        3 model#2 openai-chat gpt-4o-mini · in 50 · out 10 · tool_calls"
    `)
  })
})

import { describe, expect, it } from 'vitest'
import { toHaveTextContaining } from './to-have-text-containing.js'
import { capitalsOutcome, messageOf, model, testOutcome, tool } from './utils/test-outcome.js'

expect.extend({ toHaveTextContaining })

const out = capitalsOutcome()
const long = testOutcome({
  steps: [
    model({ text: 'Thinking out loud first.' }),
    model({ toolCalls: [{ name: 'lookup', id: 'call_lk000001', args: {} }] }),
    tool({ name: 'lookup', callId: 'call_lk000001', output: 'ok' }),
    model({ text: `${'Lorem ipsum dolor sit amet. '.repeat(20)}The answer is 42. ${'Sed do eiusmod tempor. '.repeat(20)}` }),
  ],
})
const silent = testOutcome({ steps: [model({ toolCalls: [{ name: 'lookup', id: 'call_lk000002', args: {} }] })] })

describe('.toHaveTextContaining', () => {
  it('passes when the final text contains the substring', () => {
    expect(out).toHaveTextContaining('capital of France is Paris')
  })

  it('passes when the final text matches the RegExp', () => {
    expect(out).toHaveTextContaining(/population \d+(\.\d)?M/)
    expect(out).toHaveTextContaining(/LONDON/i)
  })

  it('reads the text of the last model call that produced any', () => {
    expect(long).toHaveTextContaining('The answer is 42')
    expect(long).not.toHaveTextContaining('Thinking out loud')
  })

  it('fails when the substring is missing', () => {
    expect(messageOf(() => expect(out).toHaveTextContaining('Berlin'))).toMatchInlineSnapshot(`
      "expect(outcome).toHaveTextContaining(text)

      Expected substring: "Berlin"
      Received text:      "The capital of the UK is London; the capital of France is Paris (population 2.1M)."

      Trace around model#3 (final text):
            → search call_<3> {"query":"population of Paris","limit":3}
        4 tool#2 get_capital call_<2> {"country":"France"} → "Paris"
        5 tool#3 search call_<3> {"query":"population of Paris","limit":3} → ["2.1M"]
      › 6 model#3 openai-chat gpt-4o-mini · in 50 · out 10 · stop
            text: "The capital of the UK is London; the capital of France is Paris (population 2.1M)."
        final: "The capital of the UK is London; the capital of France is Paris (population 2.1M).""
    `)
  })

  it('fails when a long text does not match, showing its first 400 characters', () => {
    expect(messageOf(() => expect(long).toHaveTextContaining(/answer is 43/))).toMatchInlineSnapshot(`
      "expect(outcome).toHaveTextContaining(text)

      Expected pattern: /answer is 43/
      Received text:    "Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. Lorem ip…" (first 400 of 1038 chars)

      Trace around model#3 (final text):
        2 model#2 openai-chat gpt-4o-mini · in 50 · out 10 · tool_calls
            → lookup call_<1> {}
        3 tool#1 lookup call_<1> {} → "ok"
      › 4 model#3 openai-chat gpt-4o-mini · in 50 · out 10 · stop
            text: "Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. Lorem ipsum do…
        final: "Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. Lorem ipsum do…"
    `)
  })

  it('fails when the run produced no text', () => {
    expect(messageOf(() => expect(silent).toHaveTextContaining('done'))).toMatchInlineSnapshot(`
      "expect(outcome).toHaveTextContaining(text)

      Expected substring: "done"
      Received text:      "" (no model call produced text)

      End of trace:
        1 model#1 openai-chat gpt-4o-mini · in 50 · out 10 · tool_calls
            → lookup call_<1> {}
      › final: """
    `)
  })

  it('throws when received is not an Outcome', () => {
    expect(() => expect('Paris').toHaveTextContaining('Paris')).toThrow(/toHaveTextContaining expects the Outcome/)
  })

  it('throws when the text is neither a string nor a RegExp', () => {
    expect(() => expect(out).toHaveTextContaining(42 as never)).toThrow(/`text` must be a string or a RegExp/)
  })
})

describe('.not.toHaveTextContaining', () => {
  it('passes when the text does not contain it', () => {
    expect(out).not.toHaveTextContaining('Berlin')
    expect(out).not.toHaveTextContaining(/berlin/i)
  })

  it('fails when the text contains it', () => {
    expect(messageOf(() => expect(out).not.toHaveTextContaining('London'))).toMatchInlineSnapshot(`
      "expect(outcome).not.toHaveTextContaining(text)

      Expected substring: not "London"
      Received text:          "The capital of the UK is London; the capital of France is Paris (population 2.1M)."

      Trace around model#3 (final text):
            → search call_<3> {"query":"population of Paris","limit":3}
        4 tool#2 get_capital call_<2> {"country":"France"} → "Paris"
        5 tool#3 search call_<3> {"query":"population of Paris","limit":3} → ["2.1M"]
      › 6 model#3 openai-chat gpt-4o-mini · in 50 · out 10 · stop
            text: "The capital of the UK is London; the capital of France is Paris (population 2.1M)."
        final: "The capital of the UK is London; the capital of France is Paris (population 2.1M).""
    `)
  })

  it('fails when a long text matches, showing the 400 characters around the match', () => {
    expect(messageOf(() => expect(long).not.toHaveTextContaining(/answer is \d+/))).toMatchInlineSnapshot(`
      "expect(outcome).not.toHaveTextContaining(text)

      Expected pattern: not /answer is \\d+/
      Received text:        "…Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. The answer is 42. Sed do eiusmod tempor. Sed do eiusmod tempor. Sed do eiusmod tempor. Sed do eiusmod tempor. Sed do eiusmod tempor. Sed do eiusmod tempor. Sed do eiusmod tempor. Sed do eiusmod tempor. Se…" (400 of 1038 chars, around the match at 564)

      Trace around model#3 (final text):
        2 model#2 openai-chat gpt-4o-mini · in 50 · out 10 · tool_calls
            → lookup call_<1> {}
        3 tool#1 lookup call_<1> {} → "ok"
      › 4 model#3 openai-chat gpt-4o-mini · in 50 · out 10 · stop
            text: "Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. Lorem ipsum do…
        final: "Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. Lorem ipsum dolor sit amet. Lorem ipsum do…"
    `)
  })
})

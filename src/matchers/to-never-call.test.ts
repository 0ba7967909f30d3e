import { describe, expect, it } from 'vitest'
import { toNeverCall } from './to-never-call.js'
import { capitalsOutcome, messageOf, model, testOutcome, tool } from './utils/test-outcome.js'

expect.extend({ toNeverCall })

const out = capitalsOutcome()

// model#1 asks write_file, which never runs on the tool channel; the agent also POSTs somewhere unrequested.
const risky = testOutcome({
  steps: [
    model({ toolCalls: [{ name: 'write_file', id: 'call_wr000001', args: { path: 'notes.md', content: 'hi' } }] }),
    tool({ name: 'POST api.example.com/upload', kind: 'http', args: { body: { file: 'notes.md' } } }),
    model({ text: 'Saved.' }),
  ],
})

describe('.toNeverCall', () => {
  it('passes when no call has the name', () => {
    expect(out).toNeverCall('delete_file')
    expect(out).toNeverCall('get_capitals')
  })

  it('passes when no call name matches the RegExp', () => {
    expect(out).toNeverCall(/^(write|delete)_/)
  })

  it('fails when the model requested the call, even though it never ran', () => {
    expect(messageOf(() => expect(risky).toNeverCall('write_file'))).toMatchInlineSnapshot(`
      "expect(outcome).toNeverCall(name)

      Expected: no call of write_file
      Received: 1 call of write_file:
        • write_file {"content": "hi", "path": "notes.md"} (requested at model#1, never executed on the tool channel)

      Trace around model#1:
      › 1 model#1 openai-chat gpt-4o-mini · in 50 · out 10 · tool_calls
            → write_file call_<1> {"path":"notes.md","content":"hi"}
        2 tool#1 POST api.example.com/upload body {"file":"notes.md"} → 200
        3 model#2 openai-chat gpt-4o-mini · in 50 · out 10 · stop"
    `)
  })

  it('fails when the tool channel executed a matching call nobody requested', () => {
    expect(messageOf(() => expect(risky).toNeverCall(/^POST /))).toMatchInlineSnapshot(`
      "expect(outcome).toNeverCall(name)

      Expected: no call matching /^POST /
      Received: 1 call matching /^POST /:
        • POST api.example.com/upload {"body": {"file": "notes.md"}} (executed at tool#1 POST api.example.com/upload, not requested by the model)

      Trace around tool#1 POST api.example.com/upload:
        1 model#1 openai-chat gpt-4o-mini · in 50 · out 10 · tool_calls
            → write_file call_<1> {"path":"notes.md","content":"hi"}
      › 2 tool#1 POST api.example.com/upload body {"file":"notes.md"} → 200
        3 model#2 openai-chat gpt-4o-mini · in 50 · out 10 · stop
            text: "Saved."
        final: "Saved.""
    `)
  })

  it('fails when several calls match, listing each with its step', () => {
    expect(messageOf(() => expect(out).toNeverCall(/capital/))).toMatchInlineSnapshot(`
      "expect(outcome).toNeverCall(name)

      Expected: no call matching /capital/
      Received: 2 calls matching /capital/:
        • get_capital {"country": "UK"} (requested at model#1, executed at tool#1 get_capital)
        • get_capital {"country": "France"} (requested at model#2, executed at tool#2 get_capital)

      Trace around model#1 (first one):
      › 1 model#1 openai-chat gpt-4o-mini · in 50 · out 10 · tool_calls
            → get_capital call_<1> {"country":"UK"}
        2 tool#1 get_capital call_<1> {"country":"UK"} → "London"
        3 model#2 openai-chat gpt-4o-mini · in 50 · out 10 · tool_calls"
    `)
  })

  it('tests a global RegExp the same way on every call', () => {
    expect(() => expect(out).toNeverCall(/get_capital/g)).toThrow(/2 calls matching/)
  })

  it('throws when received is not an Outcome', () => {
    expect(() => expect(undefined).toNeverCall('x')).toThrow(/toNeverCall expects the Outcome/)
  })

  it('throws when the name is neither a string nor a RegExp', () => {
    expect(messageOf(() => expect(out).toNeverCall(['write_file'] as never))).toMatchInlineSnapshot(`
      "expect(outcome).toNeverCall(name)

      [fluxlab] Failed to run toNeverCall: \`name\` must be a tool name or a RegExp. Pass it as toNeverCall('delete_file') or toNeverCall(/^delete_/)
        • received: ["write_file"]"
    `)
    expect(() => expect(out).toNeverCall('')).toThrow(/`name` must be a tool name or a RegExp/)
  })
})

describe('.not.toNeverCall', () => {
  it('passes when a call matches', () => {
    expect(risky).not.toNeverCall('write_file')
    expect(out).not.toNeverCall(/^get_/)
  })

  it('fails when no call matches', () => {
    expect(messageOf(() => expect(out).not.toNeverCall('write_file'))).toMatchInlineSnapshot(`
      "expect(outcome).not.toNeverCall(name)

      Expected: a call of write_file
      Received: no call of write_file; calls made: ["get_capital", "get_capital", "search"]

      End of trace:
        5 tool#3 search call_<3> {"query":"population of Paris","limit":3} → ["2.1M"]
        6 model#3 openai-chat gpt-4o-mini · in 50 · out 10 · stop
            text: "The capital of the UK is London; the capital of France is Paris (population 2.1M)."
      › final: "The capital of the UK is London; the capital of France is Paris (population 2.1M).""
    `)
  })
})

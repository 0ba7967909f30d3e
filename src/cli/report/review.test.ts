import { describe, expect, test } from 'vitest'
import type { Fixture, ModelCell, ToolCell } from '../../cassette/cell.js'
import { breaches, parseFailOn } from './fail-on.js'
import { reviewMarkdown } from './markdown.js'
import { align, reviewFixture, unreadableReview } from './review.js'
import { around, fieldOf } from './text-change.js'

const body = (country: string) => ({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: `What is the capital of ${country === 'UK' ? 'the UK' : country}? Use the tool, then answer.` }],
})
const usage = (input: number, output: number) => ({ input, output, cacheRead: 0, cacheWrite: 0, reasoning: 0 })
const model = (seq: number, over: Partial<ModelCell> = {}): ModelCell => ({
  seq,
  step: `model#${seq}`,
  key: `sha256:${String(seq).repeat(64).slice(0, 64)}`,
  family: 'openai-chat',
  url: 'https://api.openai.com/v1/chat/completions',
  request: { method: 'POST', path: '/v1/chat/completions', body: body('UK') },
  response: { status: 200, headers: {}, chunks: [] },
  model: 'gpt-4o-mini',
  usage: usage(100, 20),
  text: '',
  toolCalls: [],
  durationMs: 10,
  truncated: false,
  ...over,
})
const tool = (seq: number, name: string, args: unknown, output: unknown): ToolCell => ({
  seq,
  step: `tool#${seq}`,
  kind: 'fn',
  name,
  key: `k${seq}`,
  args,
  output,
  durationMs: 5,
  truncated: false,
})
const fixture = (model: ModelCell[], tools: ToolCell[] = []): Fixture => ({
  dir: '/x',
  manifest: {
    formatVersion: 1,
    fluxlabVersion: '0.1.0',
    name: 'capital',
    recordedAt: '2026-01-01T00:00:00Z',
    models: [],
    providerHosts: [],
    cassetteMaxBytes: 1,
    redaction: 'r',
  },
  model,
  tools,
})

const call = { id: 'call_1', name: 'get_capital', args: { country: 'UK' } }
const LONDON = 'The capital of the UK is London.'
const ukTool = () => [tool(2, 'get_capital', { country: 'UK' }, 'London')]
const old = fixture([model(1, { toolCalls: [call] }), model(3, { text: LONDON })], ukTool())

describe('align', () => {
  test('pairs the longest common subsequence and leaves the rest one-sided', () => {
    expect(align(['m', 't', 'm'], ['m', 't', 't', 'm'])).toEqual([
      [0, 0],
      [1, 1],
      [undefined, 2],
      [2, 3],
    ])
    expect(align(['m', 't'], ['m'])).toEqual([
      [0, 0],
      [1, undefined],
    ])
    expect(align([], ['m'])).toEqual([[undefined, 0]])
  })
})

describe('reviewFixture', () => {
  test('a re-record with the same requests and answers is a change of bytes, not of behaviour', () => {
    const again = fixture([model(1, { toolCalls: [call], durationMs: 99 }), model(3, { text: LONDON })], ukTool())
    const r = reviewFixture('capital', 'tests/scenarios/capital', old, again)
    expect(r).toMatchObject({ status: 'changed', behaviour: false, changes: [], added: 0, removed: 0 })
    expect(r.before!.durationMs).toBe(25)
    expect(r.after!.durationMs).toBe(114)
  })

  test('a changed prompt names the message, the field and the text around the change', () => {
    const request = { method: 'POST', path: '/v1/chat/completions', body: body('France') }
    const first = model(1, { toolCalls: [{ ...call, args: { country: 'France' } }], request })
    const now = fixture([first, model(3, { text: 'Paris.' })], [tool(2, 'get_capital', { country: 'France' }, 'Paris')])
    const r = reviewFixture('capital', 'tests/scenarios/capital', old, now)
    expect(r.behaviour).toBe(true)
    expect(r.changes.map((c) => `${c.step} ${c.kind}`)).toEqual(['model#1 changed', 'tool#1 changed', 'model#2 changed'])
    expect(r.changes[0].request).toEqual([
      {
        path: 'messages[0].content',
        message: 'message 1 (user)',
        field: 'content',
        kind: 'changed',
        before: 'What is the capital of the UK? Use the tool, then answer.',
        after: 'What is the capital of France? Use the tool, then answer.',
      },
    ])
    expect(r.changes[0].toolCalls).toEqual({ before: ['get_capital({"country":"UK"})'], after: ['get_capital({"country":"France"})'] })
    expect(r.changes[1].output).toEqual({ before: '"London"', after: '"Paris"' })
    expect(r.changes[2].answer).toEqual({ before: 'The capital of the UK is London.', after: 'Paris.' })
  })

  test('an inserted tool call is one added step, and tokens and cost are before → after', () => {
    const now = fixture(
      [model(1, { toolCalls: [call] }), model(4, { text: 'The capital of the UK is London.', usage: usage(150, 30) })],
      [tool(2, 'get_capital', { country: 'UK' }, 'London'), tool(3, 'get_population', { city: 'London' }, 9)],
    )
    const r = reviewFixture('capital', 'd', old, now)
    expect(r.changes.map((c) => `${c.step} ${c.label} ${c.kind}`)).toEqual(['tool#2 get_population added'])
    expect(r.changes[0].summary).toBe('get_population({"city":"London"})')
    expect([r.added, r.removed, r.before!.steps, r.after!.steps]).toEqual([1, 0, 3, 4])
    expect([r.before!.tokens, r.after!.tokens]).toEqual([
      { input: 200, output: 40 },
      { input: 250, output: 50 },
    ])
    expect(r.after!.cost).toBeGreaterThan(r.before!.cost)
  })

  test('a fixture with no earlier version is added; with none now, removed', () => {
    expect(reviewFixture('n', 'd', undefined, old)).toMatchObject({ status: 'added', behaviour: true, added: 3 })
    expect(reviewFixture('n', 'd', old, undefined)).toMatchObject({ status: 'removed', behaviour: true, removed: 3 })
  })

  test('a secret in a changed text never reaches the review', () => {
    const secret = `sk-proj-${'Qw3rTy7uI9oP1aS5dF8gH2jK'.repeat(2)}`
    const now = fixture([model(1, { toolCalls: [call] }), model(3, { text: `The key is ${secret}` })], [tool(2, 'get_capital', { country: 'UK' }, 'London')])
    const r = reviewFixture('capital', 'd', old, now)
    expect(JSON.stringify(r)).not.toContain(secret)
    expect(r.changes[0].answer!.after).toMatch(/\[REDACTED:[0-9a-f]{8}\]/)
    expect(reviewMarkdown([r], { since: 'main', breaches: [] })).not.toContain(secret)
  })
})

describe('around and fieldOf', () => {
  test('cut long texts to the change with some context', () => {
    const a = `${'x'.repeat(200)} the UK ${'y'.repeat(200)}`
    const b = `${'x'.repeat(200)} France ${'y'.repeat(200)}`
    const [x, y] = around(a, b)
    expect(x).toBe(`…${'x'.repeat(39)} the UK ${'y'.repeat(39)}…`)
    expect(y).toBe(`…${'x'.repeat(39)} France ${'y'.repeat(39)}…`)
  })

  test('name the message of a path in the conversation, else the path', () => {
    const body = { messages: [{}, { role: 'assistant' }] }
    expect(fieldOf('messages[1].content[0].text', body)).toEqual({ message: 'message 2 (assistant)', field: 'content[0].text' })
    expect(fieldOf('contents[0].parts[0].text')).toEqual({ message: 'message 1', field: 'parts[0].text' })
    expect(fieldOf('temperature')).toEqual({ field: 'temperature' })
  })
})

describe('--fail-on', () => {
  test('parses metrics, amounts and percentages, comma-separated or repeated', () => {
    expect(parseFailOn(['cost:+20%,steps', 'tokens:+500'], true)).toEqual([
      { text: 'cost:+20%', metric: 'cost', over: { amount: 20, percent: true } },
      { text: 'steps', metric: 'steps' },
      { text: 'tokens:+500', metric: 'tokens', over: { amount: 500, percent: false } },
    ])
  })

  test('a bad rule is a usage error that names it', () => {
    const reason = (v: string, since = true) => {
      try {
        parseFailOn([v], since)
      } catch (e) {
        return [(e as { exitCode: number }).exitCode, (e as { parts: { reason: string } }).parts.reason]
      }
      return undefined
    }
    expect(reason('costs:+20%')).toEqual([64, expect.stringContaining('--fail-on "costs:+20%": there is no metric "costs"; a rule is')])
    expect(reason('cost:20%')).toEqual([64, expect.stringContaining('--fail-on "cost:20%": it does not parse')])
    expect(reason('changed:+1')).toEqual([64, '--fail-on "changed:+1": changed takes no amount (only cost, tokens and steps do)'])
    expect(reason('steps:+5%')).toEqual([64, '--fail-on "steps:+5%": steps takes a count (steps:+2), not a percentage'])
    expect(reason('cost', false)).toEqual([64, expect.stringContaining('--fail-on "cost": cost compares with a revision; add --since <rev>')])
  })

  test('breaks cost:+20% on a 25% growth and passes it on 10%', () => {
    const grown = (out: number) =>
      reviewFixture('capital', 'd', old, fixture([model(1, { toolCalls: [call] }), model(3, { text: LONDON, usage: usage(100, out) })], old.tools))
    const rules = parseFailOn(['cost:+20%'], true)
    expect(breaches(rules, [grown(20)], [])).toEqual([])
    const big = breaches(rules, [grown(80)], [])
    expect(big).toHaveLength(1)
    expect(big[0].message).toMatch(/^cost of the changed fixtures \$[\d.]+ → \$[\d.]+ \(\+\d+\.\d%; allowed \+20%\)$/)
    expect(breaches(parseFailOn(['steps'], true), [grown(20)], [])).toEqual([])
  })
})

describe('unreadableReview', () => {
  test('names the fixture, the version and why, cut to one short line', () => {
    const r = unreadableReview('capital', 'd', `the version at main could not be read: ${'x'.repeat(400)}`)
    expect(r).toMatchObject({ name: 'capital', status: 'unreadable', behaviour: true })
    expect(r.reason).toHaveLength(240)
    expect(reviewMarkdown([r], { since: 'main', breaches: [] })).toContain('| `capital` | ? | ? / ? | ? | ? | the version at main could not be read: xxx')
  })
})

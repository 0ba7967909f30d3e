// fluxlab's trajectory matchers under jest 30, loaded from the build as a jest user would.
const { describe, expect, it } = require('@jest/globals')
const { Outcome } = require('../../dist/index.cjs')
const { matchers } = require('../../dist/matchers.cjs')

const names = ['toCall', 'toCallWith', 'toNeverCall', 'toHaveTextContaining', 'toBeHermetic']
const missing = names.filter((n) => typeof matchers[n] !== 'function')
if (missing.length) throw new Error(`dist/matchers.cjs does not export ${missing.join(', ')}: wire them into src/matchers/index.ts and run npm run build`)
expect.extend(matchers)

const usage = { input: 50, output: 10, cacheRead: 0, cacheWrite: 0, reasoning: 0 }
const model = (toolCalls, text = '') => ({
  channel: 'model',
  cell: {
    seq: 0, step: '', key: 'k', family: 'openai-chat', url: 'https://api.openai.com/v1/chat/completions',
    request: { method: 'POST', path: '/v1/chat/completions', body: {} },
    response: { status: 200, headers: {}, chunks: [] },
    model: 'gpt-4o-mini', usage, finishReason: toolCalls.length ? 'tool_calls' : 'stop', text, toolCalls, durationMs: 1, truncated: false,
  },
})
const tool = (name, callId, args, output) => ({
  channel: 'tool',
  cell: { seq: 0, step: '', kind: 'fn', name, callId, key: 'k', args, output, durationMs: 1, truncated: false },
})
const outcome = (mode = 'replay', modelLive = 0) =>
  new Outcome({ scenario: 'capitals', mode, result: undefined, modelLive, steps: [
    model([{ name: 'get_capital', id: 'call_uk000001', args: { country: 'UK' } }]),
    tool('get_capital', 'call_uk000001', { country: 'UK' }, 'London'),
    model([{ name: 'search', id: 'call_se000002', args: { query: 'population of London', limit: 3 } }]),
    tool('search', 'call_se000002', { query: 'population of London', limit: 3 }, ['8.9M']),
    model([], 'The capital of the UK is London (population 8.9M).'),
  ] })

const out = outcome()

/** The failure message of `fn`'s assertion, without ANSI colours. */
const failure = (fn) => {
  try {
    fn()
  } catch (e) {
    return e.message.replace(/\u001b\[[0-9;]*m/g, '')
  }
  throw new Error('expected the assertion to fail, and it passed')
}

describe('toCall under jest', () => {
  it('passes in every mode and supports .not', () => {
    expect(out).toCall(['get_capital', 'search'])
    expect(out).toCall(['search', 'get_capital'], { mode: 'unordered' })
    expect(out).toCall(['search'], { mode: 'superset' })
    expect(out).toCall(['search', 'get_capital', 'delete_file'], { mode: 'subset' })
    expect(out).not.toCall(['search', 'get_capital'])
  })

  it('fails with the expected and received sequences', () => {
    expect(failure(() => expect(out).toCall(['get_capital']))).toMatch(/toCall[\s\S]*Expected: \["get_capital"\][\s\S]*Received: \["get_capital", "search"\]/)
  })
})

describe('toCallWith under jest', () => {
  it('passes with asymmetric matchers and supports .not', () => {
    expect(out).toCallWith('get_capital', { country: 'UK' })
    expect(out).toCallWith('search', expect.objectContaining({ query: expect.stringContaining('London'), limit: expect.any(Number) }))
    expect(out).not.toCallWith('get_capital', { country: 'France' })
  })

  it('honours a custom equality tester', () => {
    const ci = (s) => typeof s === 'string' && s.startsWith('ci:')
    expect.addEqualityTesters([(a, b) => (ci(a) !== ci(b) && typeof a === 'string' && typeof b === 'string' ? a.replace(/^ci:/, '').toLowerCase() === b.replace(/^ci:/, '').toLowerCase() : undefined)])
    expect(out).toCallWith('get_capital', { country: 'ci:uk' })
    expect(out).not.toCallWith('get_capital', { country: 'uk' })
  })

  it('fails listing the calls of that name', () => {
    expect(failure(() => expect(out).toCallWith('get_capital', { country: 'Spain' }))).toMatch(/toCallWith[\s\S]*1 call of get_capital, none with those args/)
  })
})

describe('toNeverCall under jest', () => {
  it('passes for a name or RegExp never called and supports .not', () => {
    expect(out).toNeverCall('write')
    expect(out).toNeverCall(/^delete_/)
    expect(out).not.toNeverCall('search')
  })

  it('fails showing the offending call and its step', () => {
    expect(failure(() => expect(out).toNeverCall('search'))).toMatch(/toNeverCall[\s\S]*requested at model#2, executed at tool#2 search/)
  })
})

describe('toHaveTextContaining under jest', () => {
  it('passes for a substring or RegExp and supports .not', () => {
    expect(out).toHaveTextContaining('London')
    expect(out).toHaveTextContaining(/\d+\.\dM/)
    expect(out).not.toHaveTextContaining('Paris')
  })

  it('fails printing the final text', () => {
    expect(failure(() => expect(out).toHaveTextContaining('Paris'))).toMatch(/toHaveTextContaining[\s\S]*Received text: +"The capital of the UK is London/)
  })
})

describe('toBeHermetic under jest', () => {
  it('passes for a replayed run and supports .not', () => {
    expect(out).toBeHermetic()
    expect(outcome('record', 3)).not.toBeHermetic()
    expect({ outcome: out, hermetic: true }).toBeHermetic()
  })

  it('fails listing why the run was not hermetic', () => {
    expect(failure(() => expect(outcome('record', 3)).toBeHermetic())).toMatch(/toBeHermetic[\s\S]*mode is "record"[\s\S]*3 model calls went live/)
  })

  it('throws for input that is not an Outcome', () => {
    expect(failure(() => expect({ text: 'hi' }).toBeHermetic())).toMatch(/toBeHermetic expects the Outcome/)
  })
})

import { describe, expect, it } from 'vitest'
import { checkReply, decide, parseReplyText } from './verdict.js'

describe('parseReplyText', () => {
  it('reads a bare JSON object, in any verdict case', () => {
    expect(parseReplyText('{"verdict":"pass","rationale":" cites it "}', false)).toEqual({ ok: true, reply: { verdict: 'PASS', rationale: 'cites it' } })
  })

  it('reads a fenced or wrapped JSON object', () => {
    expect(parseReplyText('```json\n{"verdict":"FAIL","rationale":"no"}\n```', false)).toEqual({ ok: true, reply: { verdict: 'FAIL', rationale: 'no' } })
    expect(parseReplyText('Here you go: {"verdict":"FAIL","rationale":"no"} Hope it helps.', false)).toMatchObject({ ok: true })
  })

  it('says what is wrong with a reply that is not a verdict', () => {
    expect(parseReplyText('', false)).toEqual({ ok: false, problem: 'the reply is empty' })
    expect(parseReplyText('It passes.', false)).toEqual({ ok: false, problem: 'the reply is not a JSON object' })
    expect(parseReplyText('[1]', false)).toEqual({ ok: false, problem: 'expected a JSON object with "verdict" and "rationale"' })
    expect(parseReplyText('{"verdict":"YES"}', false)).toEqual({ ok: false, problem: '"verdict" must be "PASS" or "FAIL" (got "YES")' })
    expect(parseReplyText('{"rationale":"x"}', false)).toEqual({ ok: false, problem: '"verdict" must be "PASS" or "FAIL" (got no verdict)' })
    expect(parseReplyText('{"verdict":"PASS","rationale":3}', false)).toEqual({ ok: false, problem: '"rationale" must be a string' })
  })

  it('needs a score from 0 to 1 for a scored rubric', () => {
    expect(parseReplyText('{"verdict":"PASS","rationale":"x"}', true)).toMatchObject({ ok: false, problem: expect.stringContaining('needs a "score"') })
    expect(parseReplyText('{"verdict":"PASS","rationale":"x","score":8}', true)).toEqual({ ok: false, problem: '"score" must be from 0 to 1 (got 8)' })
    expect(parseReplyText('{"verdict":"PASS","rationale":"x","score":"high"}', true)).toEqual({ ok: false, problem: '"score" must be a number (got "high")' })
    expect(parseReplyText('{"verdict":"PASS","rationale":"x","score":0.5}', true)).toEqual({ ok: true, reply: { verdict: 'PASS', rationale: 'x', score: 0.5 } })
  })
})

describe('checkReply', () => {
  it('defaults a missing rationale to empty', () => {
    expect(checkReply({ verdict: 'FAIL' }, false)).toEqual({ ok: true, reply: { verdict: 'FAIL', rationale: '' } })
  })
})

describe('decide', () => {
  it('lets the score decide when there is a threshold, else the judge', () => {
    expect(decide({ verdict: 'FAIL', rationale: '', score: 0.9 }, 0.8)).toBe('PASS')
    expect(decide({ verdict: 'PASS', rationale: '', score: 0.79 }, 0.8)).toBe('FAIL')
    expect(decide({ verdict: 'PASS', rationale: '', score: 0.8 }, 0.8)).toBe('PASS')
    expect(decide({ verdict: 'FAIL', rationale: '', score: 0.9 }, undefined)).toBe('FAIL')
  })
})

import { describe, expect, it } from 'vitest'
import { capitalsOutcome } from '../matchers/utils/test-outcome.js'
import { parseStepRef, resolveStep, stepLabels, stepMatches } from './steps.js'

// model#1, tool#1 get_capital, model#2, tool#2 get_capital, tool#3 search, model#3
const steps = () => (capitalsOutcome() as unknown as { steps: Parameters<typeof stepLabels>[0] }).steps

describe('steps', () => {
  it('reads global, channel and tool-name references', () => {
    expect(parseStepRef(3)).toEqual({ kind: 'global', n: 3 })
    expect(parseStepRef('3')).toEqual({ kind: 'global', n: 3 })
    expect(parseStepRef('model#2')).toEqual({ kind: 'channel', channel: 'model', n: 2, name: undefined })
    expect(parseStepRef('tool#1 GET api.example.com/x')).toEqual({ kind: 'channel', channel: 'tool', n: 1, name: 'GET api.example.com/x' })
    expect(parseStepRef('search')).toEqual({ kind: 'name', name: 'search' })
    expect([parseStepRef(0), parseStepRef(1.5), parseStepRef(''), parseStepRef('model#0')]).toEqual([undefined, undefined, undefined, undefined])
  })

  it('labels steps per channel as trace.snap does, and matches references against them', () => {
    expect(stepLabels(steps())).toEqual(['model#1', 'tool#1 get_capital', 'model#2', 'tool#2 get_capital', 'tool#3 search', 'model#3'])
    expect(stepMatches(5, 'tool#3 search', 'search')).toBe(true)
    expect(stepMatches(5, 'tool#3 search', 'tool#3 get_capital')).toBe(false)
  })

  it('resolves a step with the occurrence of its key (a retry of the same call is the next one)', () => {
    const r = resolveStep(steps(), 'tool#2', { scenario: 'capitals', verb: 'inject a fault at' })
    expect([r.index, r.label, r.channel, r.occurrence]).toEqual([4, 'tool#2 get_capital', 'tool', 2]) // test cells share one key
    expect(resolveStep(steps(), 'search', { scenario: 'capitals', verb: 'x' }).index).toBe(5)
  })
})

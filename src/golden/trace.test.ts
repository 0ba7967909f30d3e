// The trace of a run (trace.snap): rendered from its steps' cells; the text of frozen cells in the same order is kept
// (issue 28: a suite replays a scenario again and again), and anything else is rendered afresh.
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { readFixture } from '../cassette/fixture.js'
import { fixtureSteps, renderTrace, type TraceStep } from './trace.js'

const fixture = readFixture(join(process.cwd(), 'examples/scenarios/capital-agent'))

describe('renderTrace', () => {
  test("renders the committed example's cells as its committed trace.snap, again and again", () => {
    const steps = fixtureSteps(fixture)
    expect(steps.every((s) => Object.isFrozen(s.cell))).toBe(true)
    expect(renderTrace('capital-agent', steps)).toBe(fixture.trace)
    expect(renderTrace('capital-agent', fixtureSteps(fixture))).toBe(fixture.trace)
  })

  test('the same cells in another order, or cells that can still change, are rendered afresh', () => {
    const steps = fixtureSteps(fixture)
    const kept = renderTrace('capital-agent', steps)
    const reordered = renderTrace('capital-agent', [steps[2], steps[1], steps[0]])
    expect(reordered).not.toBe(kept)
    expect(reordered.split('\n')[1]).toMatch(/^1 model#1 .* · stop$/)
    // not frozen (a recording's cells): never kept, so a change shows
    const open = steps.map((s) => ({ channel: s.channel, cell: structuredClone(s.cell) }) as TraceStep)
    expect(renderTrace('recorded', open)).toBe(kept.replace('capital-agent', 'recorded'))
    ;(open[0].cell as { model?: string }).model = 'gpt-4.1'
    expect(renderTrace('recorded', open)).toContain('1 model#1 openai-chat gpt-4.1 ')
  })
})

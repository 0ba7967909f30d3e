import { describe, expect, test } from 'vitest'
import { model } from '../../matchers/utils/test-outcome.js'
import { closeReplay } from './close.js'
import { RunLog } from './log.js'

const log = () => new RunLog('weather', (env) => `${env} npx vitest run`)

describe('closeReplay', () => {
  test('warns unwrapped_tool once per tool, at the first turn that asked for it', () => {
    const l = log()
    const asks = (n: number, id: string) => ({ seq: n, ...model({ toolCalls: [{ name: 'get_weather', id, args: {} }] }) })
    for (const [i, s] of [asks(1, 'call_a0000001'), asks(2, 'call_b0000002'), asks(3, 'call_c0000003')].entries()) {
      s.cell.step = `model#${i + 1}`
      l.entries.push(s as never)
    }
    closeReplay(l, undefined, undefined)
    expect(l.divergences.map((d) => [d.code, d.step])).toEqual([['unwrapped_tool', 'model#1']])
  })
})

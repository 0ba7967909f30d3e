import type {} from 'fluxlab/jest'
// Type test: a jest project using @jest/globals (no vitest types) sees fluxlab's matchers.
import { expect, test } from '@jest/globals'
import { scenario } from 'fluxlab'

test('types', async () => {
  const s = await scenario('types')
  const out = await s.run(async () => 'hi')
  const text: string = out.text
  const result: string = out.result
  expect(out).toReplayFaithfully()
  expect(out).toReplayFaithfully({ strict: true })
  expect(out).not.toReplayFaithfully()
  await expect(Promise.resolve(out)).resolves.toReplayFaithfully()
  expect(out).toCall(['read', 'bash'], { mode: 'subset' })
  expect(out).toCallWith('read', { path: expect.stringContaining('ci.log') })
  expect(out).toNeverCall('write')
  expect(out).not.toNeverCall(/^delete_/)
  expect(out).toHaveTextContaining(/root cause/i)
  expect(out).toCostUnder(0.05, { pricing: { 'my-model': { input: 0.15, output: 0.6 } } })
  expect(out).toMatchTraceSnapshot()
  expect(out).toBeHermetic()
  await expect(Promise.resolve(out)).resolves.toNeverCall('write')
  // @ts-expect-error mode must be one of strict | unordered | subset | superset
  expect(out).toCall(['read'], { mode: 'loose' })
  // @ts-expect-error the budget is a number of dollars
  expect(out).toCostUnder('5 cents')
  // @ts-expect-error strict must be a boolean
  expect(out).toReplayFaithfully({ strict: 'yes' })
  void text
  void result
})

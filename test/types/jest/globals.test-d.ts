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
  // @ts-expect-error strict must be a boolean
  expect(out).toReplayFaithfully({ strict: 'yes' })
  void text
  void result
})

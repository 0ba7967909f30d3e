import type {} from 'fluxlab/vitest'
// Type test: a vitest-only project (no jest types) sees fluxlab's matchers.
import { expect, test } from 'vitest'
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

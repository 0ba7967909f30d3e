/// <reference types="jest" />
import type {} from 'fluxlab/jest'
// Type test: jest's global `expect` (the `jest.Matchers` namespace) sees fluxlab's matchers.
import { scenario } from 'fluxlab'

test('global expect types', async () => {
  const out = await (await scenario('types')).run(async () => 1)
  expect(out).toReplayFaithfully()
  expect(out).not.toReplayFaithfully({ strict: true })
  await expect(Promise.resolve(out)).resolves.toReplayFaithfully()
})

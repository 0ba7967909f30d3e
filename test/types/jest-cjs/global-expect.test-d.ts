// Type test: a jest project on the common `module: commonjs` (node10 resolution) tsconfig, with
// `"types": ["jest", "fluxlab/jest"]`, sees fluxlab's matchers on the global `expect` (typesVersions).
import { scenario } from 'fluxlab'

test('global expect types under module: commonjs', async () => {
  const out = await (await scenario('types')).run(async () => 1)
  expect(out).toReplayFaithfully()
  expect(out).toCall(['search'], { mode: 'superset' })
  // @ts-expect-error mode must be one of strict | unordered | subset | superset
  expect(out).toCall(['search'], { mode: 'ordered' })
})

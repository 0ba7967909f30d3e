import { scenario } from 'fluxlab'
import { expect, test } from 'vitest'
import { runAgent } from './agent'

test('answers for Japan in its own worker', async () => {
  const s = await scenario('capital-japan')
  const out = await s.run(() => runAgent('What is the capital of Japan? Use the tool, then answer.'))
  expect(out).toReplayFaithfully()
  expect(out.result).toBe('The capital of the Japan is Tokyo.')
})

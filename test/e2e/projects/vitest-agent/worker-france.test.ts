import { scenario } from 'fluxlab'
import { expect, test } from 'vitest'
import { runAgent } from './agent'

test('answers for France in its own worker', async () => {
  const s = await scenario('capital-france')
  const out = await s.run(() => runAgent('What is the capital of France? Use the tool, then answer.'))
  expect(out).toReplayFaithfully()
  expect(out.result).toBe('The capital of the France is Paris.')
})

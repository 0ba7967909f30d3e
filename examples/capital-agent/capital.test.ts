import { scenario } from 'fluxlab'
import { expect, test } from 'vitest'
import { capitalAgent } from './agent.js'

test('answers with the capital after calling the geography tool', async () => {
  const s = await scenario('capital-agent')
  const out = await s.run(() => capitalAgent('What is the capital of the UK? Use the tool, then answer.'))

  expect(out).toReplayFaithfully()
  expect(out.text).toContain('London')
  expect(out.modelCalls.map((c) => c.toolCalls.map((t) => t.name))).toEqual([['get_capital'], []])
  expect(out.result.steps).toBe(2)

  console.log(`[${s.mode}] ${out.modelCalls.length} model calls, ${out.usage.input} in / ${out.usage.output} out tokens, hermetic: ${out.hermetic}\n${out.trace()}`)
})

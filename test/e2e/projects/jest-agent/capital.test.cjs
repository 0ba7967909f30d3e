const { scenario } = require('fluxlab')
const { runAgent, log } = require('./agent.cjs')

const PROMPT = 'What is the capital of the UK? Use the tool, then answer.'
const OPTIONS = {}

test('answers with the capital after calling the geography tool', async () => {
  log({ event: 'test' })
  const s = await scenario('capital')
  const out = await s.run(() => runAgent(PROMPT, OPTIONS))
  expect(out).toReplayFaithfully() // matcher
  expect(out.result).toBe('The capital of the UK is London.')
  expect(out.modelCalls).toHaveLength(2)
})

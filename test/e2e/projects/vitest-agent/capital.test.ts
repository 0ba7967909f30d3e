import { appendFileSync } from 'node:fs'
import { scenario } from 'fluxlab'
import { expect, test } from 'vitest'
import { runAgent, type AgentOptions } from './agent'

const PROMPT = 'What is the capital of the UK? Use the tool, then answer.'
const OPTIONS: AgentOptions = {}

test('answers with the capital after calling the geography tool', async () => {
  appendFileSync(process.env.AGENT_LOG!, `${JSON.stringify({ event: 'test', userSetupRan: (globalThis as { userSetupRan?: boolean }).userSetupRan === true })}\n`)
  const s = await scenario('capital')
  const out = await s.run(() => runAgent(PROMPT, OPTIONS))
  expect(out).toReplayFaithfully() // matcher
  expect(out.result).toBe('The capital of the UK is London.')
  expect(out.modelCalls).toHaveLength(2)
})

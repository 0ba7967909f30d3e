// Written as a suite nobody wrote for fluxlab: a key skip-gate, a client built at import time, a
// client built per call, `retry: 3`, a date in a prompt. Whole-suite mode records each test.
import { describe, expect, it, test } from 'vitest'
import { ask, createClient } from '../src/agent.js'

const hasKey = !!process.env.OPENAI_API_KEY

describe.skipIf(!hasKey)('capital agent', () => {
  it('answers the capital of the UK', { retry: 3 }, async () => {
    expect(await ask('What is the capital of the UK? Use the tool, then answer.')).toBe('The capital of the UK is London.')
  })

  it('answers France with a client built for the call', async () => {
    const c = createClient(process.env.OPENAI_API_KEY)
    expect(await ask(`What is the capital of France? Use the tool, then answer. (asked ${new Date().toISOString().slice(0, 10)})`, c)).toContain('Paris')
  })
})

test('adds numbers without any model call', () => {
  expect(1 + 1).toBe(2)
})

// Written as a suite nobody wrote for fluxlab: a key skip-gate, a client built at import time, a
// client built per call, `jest.retryTimes(3)`, a date in a prompt. Whole-suite mode records each test.
import { ask, createClient } from '../src/agent'

const hasKey = !!process.env.OPENAI_API_KEY
const describeIfKey = hasKey ? describe : describe.skip

describeIfKey('capital agent', () => {
  jest.retryTimes(3)

  it('answers the capital of the UK', async () => {
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

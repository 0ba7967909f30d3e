// Whole-suite mode with `test.concurrent` and no explicit scenario: each test is its own scenario where vitest
// has `aroundEach` (4.1 and later). Where it does not (3.2, 4.0), a model call made while concurrent tests run is
// refused with FLUX_CONCURRENT_TEST and every concurrent test running then fails: expected here with `.fails`.
import * as vitest from 'vitest'
import { describe, expect, test } from 'vitest'
import { ask } from '../src/agent.js'

const perTestContext = typeof (vitest as unknown as Record<string, unknown>).aroundEach === 'function'
const concurrent = perTestContext ? test.concurrent : test.concurrent.fails

describe.skipIf(!process.env.OPENAI_API_KEY)('whole-suite concurrent', () => {
  concurrent('answers Japan', async () => {
    expect(await ask('What is the capital of Japan? Use the tool, then answer.')).toContain('Tokyo')
  })
  concurrent('does no model call next to it', async () => {
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(1 + 1).toBe(2)
  })
})

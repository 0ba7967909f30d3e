// `test.concurrent` with explicit scenarios: isolated where vitest has `aroundEach` (4.1 and later);
// refused with FLUX_CONCURRENT_TEST where it does not (3.2, 4.0), never routed to the wrong test.
import { scenario } from 'fluxlab'
import * as vitest from 'vitest'
import { describe, expect, test } from 'vitest'
import { ask } from '../src/agent.js'

const perTestContext = typeof (vitest as unknown as Record<string, unknown>).aroundEach === 'function'

describe.skipIf(!process.env.OPENAI_API_KEY)('concurrent scenarios', () => {
  for (const [country, capital] of [['Japan', 'Tokyo'], ['UK', 'London']]) {
    test.concurrent(`answers ${country}`, async () => {
      if (!perTestContext) {
        await expect(scenario(`concurrent-${country}`)).rejects.toThrow(/FLUX_CONCURRENT_TEST/)
        return
      }
      const s = await scenario(`concurrent-${country}`)
      const out = await s.run(() => ask(`What is the capital of ${country}? Use the tool, then answer.`))
      expect(out.result).toContain(capital)
      expect(out).toReplayFaithfully()
      expect(out.commands?.rerecord).toContain(`-t '^concurrent scenarios answers ${country}$'`)
    })
  }
})
